// One CUDA graph per training-step shape (see CudaGraphStep.h).
#include "train/CudaGraphStep.h"

#include "TorchCompat.h"

#include <map>
#include <vector>

#if defined(WORKBENCH_WITH_CUDA) && __has_include(<ATen/cuda/CUDAGraph.h>)
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#define WORKBENCH_CUDA_GRAPHS 1
#endif

namespace wb {

#ifdef WORKBENCH_CUDA_GRAPHS

namespace {
// A batch's shape as a graph sees it: its tensors' sizes, and whether it has lengths (a classifier's).
std::vector<std::int64_t> shapeKey(const Batch& batch) {
    std::vector<std::int64_t> key = batch.inputs.sizes().vec();
    key.push_back(-1);
    for (auto d : batch.targets.sizes()) key.push_back(d);
    key.push_back(batch.lengths.defined() ? 1 : 0);
    return key;
}
}  // namespace

struct CudaGraphStep::Impl {
    struct Entry {
        int seen = 0;
        std::unique_ptr<at::cuda::CUDAGraph> graph;
        Batch statics;  // the tensors the graph reads: each batch is copied into them
        torch::Tensor loss;
    };
    torch::Device device;
    Optimizer& optimizer;
    c10::cuda::CUDAStream stream;
    std::map<std::vector<std::int64_t>, Entry> entries;
    std::string failure;  // why graphs are off for this run, once a capture failed
    std::int64_t replays = 0;

    Impl(const torch::Device& d, Optimizer& o)
        : device(d), optimizer(o), stream(c10::cuda::getStreamFromPool(false, d.index())) {}

    // Runs fn on this object's stream, after the caller's stream's work so far; the caller's stream waits
    // for it in turn.
    template <typename Fn>
    auto onOwnStream(Fn&& fn) {
        const auto caller = c10::cuda::getCurrentCUDAStream(device.index());
        at::cuda::CUDAEvent before;
        before.record(caller);
        before.block(stream);
        struct Rejoin {
            c10::cuda::CUDAStream own, caller;
            ~Rejoin() {
                at::cuda::CUDAEvent after;
                after.record(own);
                after.block(caller);
            }
        } rejoin{stream, caller};
        const c10::cuda::CUDAStreamGuard guard(stream);
        return fn();
    }

    // A step op by op, reading the optimizer's scalars as they are now once a capture has moved them to the
    // device (the last replay left the previous step's learning rate there).
    torch::Tensor opByOp(const Batch& batch, const Body& body) {
        if (optimizer.usesDeviceScalars()) optimizer.loadDeviceScalars();
        return body(batch);
    }

    at::CUDAGeneratorImpl* generator() const {
        return at::cuda::detail::getDefaultCUDAGenerator(device.index()).get<at::CUDAGeneratorImpl>();
    }

    // A capture that failed leaves the GPU's generator in its capturing state, and every later draw outside a
    // capture then throws ("Offset increment outside graph capture"): it gets a fresh state with the same
    // seed and offset.
    void resetGenerator() const {
#if WORKBENCH_TORCH_AT_LEAST(2, 3)
        auto* gen = generator();
        const auto seed = gen->current_seed();
        const auto offset = gen->philox_offset_per_thread();
        auto fresh = c10::make_intrusive<at::CUDAGeneratorImpl>(device.index());
        fresh->set_current_seed(seed);
        fresh->set_philox_offset_per_thread(offset);
        gen->graphsafe_set_state(fresh);
#endif
    }

    torch::Tensor capture(Entry& e, const Batch& batch, const Body& body) {
        e.statics.inputs = batch.inputs.clone();
        e.statics.targets = batch.targets.clone();
        if (batch.lengths.defined()) e.statics.lengths = batch.lengths.clone();
        if (!optimizer.usesDeviceScalars()) optimizer.useDeviceScalars(device);
        optimizer.loadDeviceScalars();
        const auto stepsBefore = optimizer.steps();
        // A generator seeded since cuDNN's last LSTM call makes the next one rebuild its dropout state, which
        // reads a seed back to the host: not in a capture. The state it has is kept.
        (void)generator()->reset_rnn_state();
        torch::cuda::synchronize(device.index());
        auto graph = std::make_unique<at::cuda::CUDAGraph>();
        try {
            graph->capture_begin();
            try {
                e.loss = body(e.statics);
            } catch (...) {
                try {
                    graph->capture_end();  // ends the broken capture; it reports the failure again
                } catch (...) {
                }
                throw;
            }
            graph->capture_end();
        } catch (const std::exception& ex) {
            // Nothing ran: the step is taken op by op below, from the state it started in.
            (void)cudaGetLastError();
            graph.reset();
            resetGenerator();
            optimizer.setSteps(stepsBefore);
            failure = firstLine(ex.what());
            e.statics = Batch{};
            e.loss = torch::Tensor();
            return opByOp(batch, body);
        }
        e.graph = std::move(graph);
        e.graph->replay();  // this step's update: capturing ran nothing
        ++replays;
        return e.loss;
    }

    torch::Tensor replay(Entry& e, const Batch& batch) {
        e.statics.inputs.copy_(batch.inputs, /*non_blocking=*/true);
        e.statics.targets.copy_(batch.targets, /*non_blocking=*/true);
        if (batch.lengths.defined()) e.statics.lengths.copy_(batch.lengths, /*non_blocking=*/true);
        optimizer.loadDeviceScalars();
        e.graph->replay();
        optimizer.countReplayedStep();
        ++replays;
        return e.loss;
    }

    static std::string firstLine(const std::string& text) {
        const auto end = text.find('\n');
        return end == std::string::npos ? text : text.substr(0, end);
    }
};

CudaGraphStep::CudaGraphStep(const torch::Device& device, Optimizer& optimizer)
    : m(std::make_unique<Impl>(device, optimizer)) {}

std::string CudaGraphStep::unavailableReason(const torch::Device& device) {
    if (!device.is_cuda()) return "not a CUDA device";
    return {};
}

torch::Tensor CudaGraphStep::run(const Batch& batch, const Body& body) {
    if (!m->failure.empty() || batch.size() == 0) return m->opByOp(batch, body);
    auto key = shapeKey(batch);
    auto it = m->entries.find(key);
    if (it == m->entries.end()) {
        if (static_cast<int>(m->entries.size()) >= kMaxShapes) return m->opByOp(batch, body);
        it = m->entries.emplace(std::move(key), Impl::Entry{}).first;
    }
    Impl::Entry& e = it->second;
    torch::Tensor staticLoss = m->onOwnStream([&] {
        if (e.graph) return m->replay(e, batch);
        if (++e.seen < 2) return m->opByOp(batch, body);  // warm-up
        return m->capture(e, batch, body);
    });
    // A copy on the caller's stream: the next replay overwrites the graph's own loss.
    return e.graph && staticLoss.is_same(e.loss) ? staticLoss.clone() : staticLoss;
}

std::string CudaGraphStep::describe() const {
    if (!m->failure.empty()) return "op by op: capturing the step failed (" + m->failure + ")";
    const int shapes = capturedShapes();
    if (shapes == 0) return "op by op: no batch shape came twice";
    return "graph (" + std::to_string(shapes) + (shapes == 1 ? " shape" : " shapes") + " captured, " +
           std::to_string(m->replays) + " replays)";
}

int CudaGraphStep::capturedShapes() const {
    int n = 0;
    for (const auto& [key, e] : m->entries) n += e.graph ? 1 : 0;
    return n;
}

bool CudaGraphStep::failed() const { return !m->failure.empty(); }

#else  // a build without CUDA graphs: the same interface, every step op by op

struct CudaGraphStep::Impl {};

CudaGraphStep::CudaGraphStep(const torch::Device&, Optimizer&) : m(std::make_unique<Impl>()) {}

std::string CudaGraphStep::unavailableReason(const torch::Device& device) {
    if (!device.is_cuda()) return "not a CUDA device";
    return "this build has no CUDA graphs";
}

torch::Tensor CudaGraphStep::run(const Batch& batch, const Body& body) { return body(batch); }

std::string CudaGraphStep::describe() const { return "op by op: this build has no CUDA graphs"; }
int CudaGraphStep::capturedShapes() const { return 0; }
bool CudaGraphStep::failed() const { return false; }

#endif

CudaGraphStep::~CudaGraphStep() = default;

}  // namespace wb
