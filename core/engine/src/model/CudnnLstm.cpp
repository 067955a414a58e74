// One LSTM layer on cuDNN's RNN API, its algorithm timed per shape (see CudnnLstm.h).
#include "model/CudnnLstm.h"

#include <algorithm>
#include <numeric>

namespace wb {

CudnnWeightLayout cudnnWeightLayout(const std::vector<std::int64_t>& gateOffsets,
                                    const std::vector<std::int64_t>& biasOffsets, std::int64_t inputSize,
                                    std::int64_t hiddenSize, std::int64_t spaceElements) {
    CudnnWeightLayout layout;
    if (gateOffsets.size() != 8 || biasOffsets.size() != 8) return layout;
    // w_ih: linear layers 0-3 ([H, in] each); w_hh: 4-7 ([H, H]); b_ih: biases 0-3; b_hh: 4-7 ([H] each).
    const std::int64_t pieces[4] = {hiddenSize * inputSize, hiddenSize * hiddenSize, hiddenSize, hiddenSize};
    const std::vector<std::int64_t>* sources[4] = {&gateOffsets, &gateOffsets, &biasOffsets, &biasOffsets};
    for (int t = 0; t < 4; ++t) {
        const int first = t % 2 == 0 ? 0 : 4;
        const auto& at = *sources[t];
        for (int g = 1; g < 4; ++g)
            if (at[first + g] != at[first] + g * pieces[t]) return layout;
        layout.start.push_back(at[first]);
    }
    layout.valid = true;
    std::vector<int> order(4);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return layout.start[a] < layout.start[b]; });
    std::int64_t end = 0;
    for (int t : order) {
        if (layout.start[t] != end) return layout;
        end += 4 * pieces[t];
    }
    layout.tiles = end == spaceElements;
    if (layout.tiles) layout.order = order;
    return layout;
}

}  // namespace wb

#if defined(WORKBENCH_WITH_CUDA) && __has_include(<c10/cuda/CUDAStream.h>)

#include <ATen/autocast_mode.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <tuple>

#include "TorchCompat.h"
#include "device/CudnnApi.h"

namespace wb {
// Named rather than anonymous: a unity unit may put this file beside others with helpers of the same names.
namespace cudnn_lstm {

using cudnn::check;

// One handle per thread and device (a cuDNN handle is not to be shared between threads), on the stream
// that is current now: under a CUDA graph's capture, the capturing one.
cudnn::Handle handleFor(int device) {
    thread_local std::map<int, cudnn::Handle> handles;
    cudnn::Handle& h = handles[device];
    if (!h) check(cudnn::api()->create(&h), "cudnnCreate");
    check(cudnn::api()->setStream(h, c10::cuda::getCurrentCUDAStream(device).stream()), "cudnnSetStream");
    return h;
}

const char* algoName(int algo) {
    switch (algo) {
        case cudnn::kStandard:
            return "standard";
        case cudnn::kPersistStatic:
            return "persist_static";
        case cudnn::kPersistDynamic:
            return "persist_dynamic";
        case cudnn::kPersistStaticSmallH:
            return "persist_static_small_h";
        default:
            return "?";
    }
}

// Every algorithm, in the order they are timed.
constexpr int kAlgorithms[] = {cudnn::kStandard, cudnn::kPersistStatic, cudnn::kPersistStaticSmallH,
                               cudnn::kPersistDynamic};

// The algorithm of this name, or -1.
int algoCalled(const std::string& name) {
    for (int algo : kAlgorithms)
        if (name == algoName(algo)) return algo;
    return -1;
}

// LSTM_WORKBENCH_CUDNN_RNN: unset or "aten" (at::lstm), "auto" (time every algorithm), or one algorithm's
// name.
struct Choice {
    bool aten = false;
    std::vector<int> candidates;
};
const Choice& choice() {
    static const Choice c = [] {
        Choice r;
        const char* value = std::getenv("LSTM_WORKBENCH_CUDNN_RNN");
        const std::string v = value && *value ? value : "aten";
        if (v == "aten") r.aten = true;
        if (v == "auto") r.candidates.assign(std::begin(kAlgorithms), std::end(kAlgorithms));
        if (const int algo = algoCalled(v); algo >= 0) r.candidates = {algo};
        TORCH_CHECK(r.aten || !r.candidates.empty(),
                    "LSTM_WORKBENCH_CUDNN_RNN: expected auto, aten, standard, ",
                    "persist_static, persist_static_small_h or persist_dynamic, found '", v, "'");
        return r;
    }();
    return c;
}

// A shape: device, data type, math type, input size, hidden size, batch, steps.
using Key = std::tuple<int, int, int, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;

// One algorithm set up for one shape: descriptors, buffer sizes, the weight layout. Made outside a CUDA
// graph's capture and kept for the process (a captured graph goes on using its descriptors).
struct Plan {
    int algo = cudnn::kStandard;
    int dataType = cudnn::kFloat;
    cudnn::RnnDesc rnn = nullptr;
    cudnn::DropoutDesc dropout = nullptr;
    cudnn::DataDesc x = nullptr, y = nullptr;
    cudnn::TensorDesc h = nullptr;
    size_t weightBytes = 0, workBytes = 0, reserveBytes = 0;
    std::int64_t weightElements = 0;
    torch::Tensor lengths;  // int32 [B] on the device, every row T steps
    CudnnWeightLayout layout;

    Plan() = default;
    Plan(const Plan&) = delete;
    Plan& operator=(const Plan&) = delete;
    ~Plan() {
        const auto* a = cudnn::api();
        if (rnn) a->destroyRnn(rnn);
        if (dropout) a->destroyDropout(dropout);
        if (x) a->destroyData(x);
        if (y) a->destroyData(y);
        if (h) a->destroyTensor(h);
    }
};

int dataTypeOf(at::ScalarType t) {
    if (t == at::kBFloat16) return cudnn::kBf16;
    if (t == at::kHalf) return cudnn::kHalf;
    TORCH_CHECK(t == at::kFloat, "the cuDNN LSTM computes in fp32, bf16 or fp16, not ", t);
    return cudnn::kFloat;
}

int elementSize(int dataType) { return dataType == cudnn::kFloat ? 4 : 2; }

// Where each gate's matrix and bias starts in the weight space, in elements (-1 where cuDNN says none).
std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> gateOffsets(cudnn::Handle handle,
                                                                            const Plan& p,
                                                                            const torch::Tensor& space) {
    const auto* a = cudnn::api();
    cudnn::TensorDesc m = nullptr, b = nullptr;
    check(a->createTensor(&m), "cudnnCreateTensorDescriptor");
    check(a->createTensor(&b), "cudnnCreateTensorDescriptor");
    std::vector<std::int64_t> gates, biases;
    const auto* base = static_cast<const char*>(space.data_ptr());
    const int size = elementSize(p.dataType);
    for (int linear = 0; linear < 8; ++linear) {
        void* matrix = nullptr;
        void* bias = nullptr;
        const auto s =
            a->weightParams(handle, p.rnn, 0, p.weightBytes, space.data_ptr(), linear, m, &matrix, b, &bias);
        gates.push_back(s == 0 && matrix ? (static_cast<const char*>(matrix) - base) / size : -1);
        biases.push_back(s == 0 && bias ? (static_cast<const char*>(bias) - base) / size : -1);
    }
    a->destroyTensor(m);
    a->destroyTensor(b);
    return {gates, biases};
}

// The plan for one algorithm, or null with the reason where cuDNN does not take this shape on it.
std::unique_ptr<Plan> makePlan(cudnn::Handle handle, const Key& key, int algo, std::string& why) {
    const auto* a = cudnn::api();
    const auto [device, dataType, mathType, in, hidden, batch, steps] = key;
    auto p = std::make_unique<Plan>();
    p->algo = algo;
    p->dataType = dataType;
    auto fail = [&](cudnn::Status s, const char* what) {
        why = std::string(what) + ": " + cudnn::message(s);
        return nullptr;
    };
    cudnn::Status s = 0;
    if ((s = a->createDropout(&p->dropout)) || (s = a->setDropout(p->dropout, handle, 0.0f, nullptr, 0, 0)))
        return fail(s, "dropout descriptor");
    if ((s = a->createRnn(&p->rnn)) ||
        (s = a->setRnn(p->rnn, algo, cudnn::kLstm, cudnn::kDoubleBias, cudnn::kUnidirectional,
                       cudnn::kLinearInput, dataType, cudnn::kFloat, mathType, static_cast<std::int32_t>(in),
                       static_cast<std::int32_t>(hidden), static_cast<std::int32_t>(hidden), 1, p->dropout,
                       cudnn::kPaddedIoDisabled)))
        return fail(s, "RNN descriptor");
    if (algo == cudnn::kPersistDynamic && (s = a->buildDynamic(handle, p->rnn, static_cast<int>(batch))))
        return fail(s, "cudnnBuildRNNDynamic");
    // Every row has all T steps: the packed layout is then exactly a contiguous [T, B, features] tensor.
    const std::vector<int> lengths(static_cast<size_t>(batch), static_cast<int>(steps));
    if ((s = a->createData(&p->x)) || (s = a->createData(&p->y)) ||
        (s = a->setData(p->x, dataType, cudnn::kSeqMajorPacked, static_cast<int>(steps),
                        static_cast<int>(batch), static_cast<int>(in), lengths.data(), nullptr)) ||
        (s = a->setData(p->y, dataType, cudnn::kSeqMajorPacked, static_cast<int>(steps),
                        static_cast<int>(batch), static_cast<int>(hidden), lengths.data(), nullptr)))
        return fail(s, "RNN data descriptor");
    const int dims[3] = {1, static_cast<int>(batch), static_cast<int>(hidden)};
    const int strides[3] = {static_cast<int>(batch * hidden), static_cast<int>(hidden), 1};
    if ((s = a->createTensor(&p->h)) || (s = a->setTensorNd(p->h, dataType, 3, dims, strides)))
        return fail(s, "state descriptor");
    if ((s = a->weightSpaceSize(handle, p->rnn, &p->weightBytes)) ||
        (s = a->tempSpaceSizes(handle, p->rnn, cudnn::kTraining, p->x, &p->workBytes, &p->reserveBytes)))
        return fail(s, "buffer sizes");
    p->weightElements = static_cast<std::int64_t>(p->weightBytes) / elementSize(dataType);
    const auto options = torch::TensorOptions().device(torch::kCUDA, device);
    const auto probe =
        torch::empty({static_cast<std::int64_t>(p->weightBytes)}, options.dtype(torch::kUInt8));
    const auto [gates, biases] = gateOffsets(handle, *p, probe);
    p->layout = cudnnWeightLayout(gates, biases, in, hidden, p->weightElements);
    if (!p->layout.valid) {
        why = "weight layout: a tensor's gates are not back to back";
        return nullptr;
    }
    p->lengths = torch::full({batch}, steps, options.dtype(torch::kInt32));
    return p;
}

void* ptr(const torch::Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

torch::Tensor bytes(size_t n, const torch::Device& device) {
    return torch::empty({static_cast<std::int64_t>(n)},
                        torch::TensorOptions().dtype(torch::kUInt8).device(device));
}

// The forward and both backward calls of one layer (what a training step runs), with their buffers.
struct Buffers {
    torch::Tensor x, hx, cx, space, y, hy, cy, work, reserve, dy, dx, dhx, dcx, dspace;
};

cudnn::Status runForward(cudnn::Handle handle, const Plan& p, Buffers& b) {
    return cudnn::api()->forward(handle, p.rnn, cudnn::kTraining, p.lengths.data_ptr<std::int32_t>(), p.x,
                                 ptr(b.x), p.y, ptr(b.y), p.h, ptr(b.hx), ptr(b.hy), p.h, ptr(b.cx),
                                 ptr(b.cy), p.weightBytes, ptr(b.space), p.workBytes, ptr(b.work),
                                 p.reserveBytes, ptr(b.reserve));
}

// dhy, dcy: null for no gradient into the last state.
cudnn::Status runBackward(cudnn::Handle handle, const Plan& p, Buffers& b, const void* dhy, const void* dcy) {
    const auto* a = cudnn::api();
    const std::int32_t* lengths = p.lengths.data_ptr<std::int32_t>();
    if (auto s = a->backwardData(handle, p.rnn, lengths, p.y, ptr(b.y), ptr(b.dy), p.x, ptr(b.dx), p.h,
                                 ptr(b.hx), dhy, ptr(b.dhx), p.h, ptr(b.cx), dcy, ptr(b.dcx), p.weightBytes,
                                 ptr(b.space), p.workBytes, ptr(b.work), p.reserveBytes, ptr(b.reserve)))
        return s;
    b.dspace.zero_();  // the weights' gradient is added to it
    return a->backwardWeights(handle, p.rnn, cudnn::kWgradAdd, lengths, p.x, ptr(b.x), p.h, ptr(b.hx), p.y,
                              ptr(b.y), p.weightBytes, ptr(b.dspace), p.workBytes, ptr(b.work),
                              p.reserveBytes, ptr(b.reserve));
}

// Deterministic values of a moderate size, drawn from no generator (timing must not move a run's random
// numbers).
torch::Tensor filler(std::int64_t n, const torch::TensorOptions& options, double scale) {
    return torch::arange(n, options.dtype(torch::kFloat))
        .mul(0.7548776662)
        .sin()
        .mul(scale)
        .to(options.dtype());
}

// Milliseconds for one training step's forward and backward of this layer on this plan (median of 5 after
// one untimed), or infinity where cuDNN refuses to run it.
double timePlan(cudnn::Handle handle, const Plan& p, const Key& key, at::ScalarType type, std::string& why) {
    const auto [device, dataType, mathType, in, hidden, batch, steps] = key;
    const auto o = torch::TensorOptions().device(torch::kCUDA, device).dtype(type);
    const torch::Device d(torch::kCUDA, static_cast<c10::DeviceIndex>(device));
    Buffers b;
    b.x = filler(steps * batch * in, o, 1.0).view({steps, batch, in});
    b.hx = filler(batch * hidden, o, 0.5);
    b.cx = filler(batch * hidden, o, 0.5);
    b.space = filler(p.weightElements, o, 0.05);
    b.y = torch::empty({steps, batch, hidden}, o);
    b.hy = torch::empty({batch, hidden}, o);
    b.cy = torch::empty({batch, hidden}, o);
    b.work = bytes(p.workBytes, d);
    b.reserve = bytes(p.reserveBytes, d);
    b.dy = filler(steps * batch * hidden, o, 0.01).view({steps, batch, hidden});
    b.dx = torch::empty_like(b.x);
    b.dhx = torch::empty_like(b.hx);
    b.dcx = torch::empty_like(b.cx);
    b.dspace = torch::empty_like(b.space);
    std::vector<double> ms;
    for (int i = 0; i < 6; ++i) {
        cudaDeviceSynchronize();
        const auto t0 = std::chrono::steady_clock::now();
        cudnn::Status s = runForward(handle, p, b);
        if (!s) s = runBackward(handle, p, b, nullptr, nullptr);
        if (s) {
            why = "runs: " + cudnn::message(s);
            return std::numeric_limits<double>::infinity();
        }
        cudaDeviceSynchronize();
        if (i > 0)
            ms.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
    return ms[ms.size() / 2];
}

struct Registry {
    std::mutex mutex;
    std::vector<int> candidates;  // the tests' choice, when not empty
    std::map<Key, int> chosen;    // a plan's index, or -1: at::lstm for this shape
    std::vector<std::unique_ptr<Plan>> plans;
    std::vector<std::string> report;
};
// Never destroyed: its plans' descriptors and device tensors must not be freed after CUDA has shut down at
// the process's exit.
Registry& registry() {
    static auto* r = new Registry;
    return *r;
}

std::string describe(const Key& key) {
    const auto [device, dataType, mathType, in, hidden, batch, steps] = key;
    std::ostringstream s;
    s << (dataType == cudnn::kBf16   ? "bf16"
          : dataType == cudnn::kHalf ? "fp16"
                                     : "fp32")
      << (dataType == cudnn::kFloat && mathType == cudnn::kDefaultMath ? " (TF32)" : "") << " cuda:" << device
      << " B=" << batch << " T=" << steps << " " << in << "->" << hidden;
    return s.str();
}

bool capturing(int device) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    cudaStreamIsCapturing(c10::cuda::getCurrentCUDAStream(device).stream(), &status);
    return status != cudaStreamCaptureStatusNone;
}

// The plan this shape runs on: chosen on its first call by timing every candidate algorithm cuDNN takes.
// Null: at::lstm (no algorithm taken, or first seen while a CUDA graph is being captured, when nothing may
// be timed; a later call outside the capture chooses).
const Plan* planFor(const Key& key, at::ScalarType type) {
    auto& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (auto it = r.chosen.find(key); it != r.chosen.end())
        return it->second < 0 ? nullptr : r.plans[static_cast<size_t>(it->second)].get();
    const int device = std::get<0>(key);
    if (capturing(device)) return nullptr;
    const auto handle = handleFor(device);
    std::ostringstream line;
    line << describe(key) << ":";
    std::unique_ptr<Plan> best;
    double bestMs = std::numeric_limits<double>::infinity();
    std::string times;
    for (int algo : r.candidates.empty() ? choice().candidates : r.candidates) {
        std::string why;
        auto plan = makePlan(handle, key, algo, why);
        const double ms =
            plan ? timePlan(handle, *plan, key, type, why) : std::numeric_limits<double>::infinity();
        std::ostringstream t;
        t << (times.empty() ? "" : ", ") << algoName(algo) << " ";
        if (ms < std::numeric_limits<double>::infinity())
            t << std::fixed << std::setprecision(3) << ms << " ms";
        else
            t << "not taken (" << why << ")";
        times += t.str();
        if (ms < bestMs) {
            bestMs = ms;
            best = std::move(plan);
        }
    }
    cudaGetLastError();  // a refused algorithm may leave an error behind; nothing else has run since
    if (best) {
        line << " " << algoName(best->algo) << " (" << times << ")";
        r.plans.push_back(std::move(best));
        r.chosen[key] = static_cast<int>(r.plans.size() - 1);
    } else {
        line << " at::lstm (" << times << ")";
        r.chosen[key] = -1;
    }
    r.report.push_back(line.str());
    std::cerr << "cuDNN LSTM: " << r.report.back() << std::endl;
    return r.chosen[key] < 0 ? nullptr : r.plans.back().get();
}

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

class CudnnLstmFunction : public torch::autograd::Function<CudnnLstmFunction> {
public:
    // x, h0, c0 in the compute type; the weights in theirs (fp32 under autocast), packed and cast here.
    static variable_list forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& h0,
                                 const torch::Tensor& c0, const torch::Tensor& wIh, const torch::Tensor& wHh,
                                 const torch::Tensor& bIh, const torch::Tensor& bHh,
                                 std::int64_t planAddress) {
        const auto& p = *reinterpret_cast<const Plan*>(planAddress);
        const int device = x.get_device();
        const auto handle = handleFor(device);
        Buffers b;
        b.x = x;
        b.hx = h0;
        b.cx = c0;
        b.space = packWeights(p, {wIh, wHh, bIh, bHh}).to(x.scalar_type());
        b.y = torch::empty({x.size(0), x.size(1), wHh.size(1)}, x.options());
        b.hy = torch::empty_like(h0);
        b.cy = torch::empty_like(c0);
        b.work = bytes(p.workBytes, x.device());
        b.reserve = bytes(p.reserveBytes, x.device());
        check(runForward(handle, p, b), "cudnnRNNForward");
        ctx->save_for_backward({x, h0, c0, b.y, b.space, b.reserve});
        ctx->saved_data["plan"] = planAddress;
        ctx->saved_data["weight_type"] = static_cast<std::int64_t>(wIh.scalar_type());
        return {b.y, b.hy, b.cy};
    }

    static variable_list backward(AutogradContext* ctx, variable_list grads) {
        const auto& p = *reinterpret_cast<const Plan*>(ctx->saved_data["plan"].toInt());
        const auto weightType = static_cast<at::ScalarType>(ctx->saved_data["weight_type"].toInt());
        auto saved = ctx->get_saved_variables();
        Buffers b;
        b.x = saved[0];
        b.hx = saved[1];
        b.cx = saved[2];
        b.y = saved[3];
        b.space = saved[4];
        b.reserve = saved[5];
        const auto handle = handleFor(b.x.get_device());
        b.dy = grads[0].defined() ? grads[0].to(b.y.scalar_type()).contiguous() : torch::zeros_like(b.y);
        const auto dhy = grads[1].defined() ? grads[1].to(b.y.scalar_type()).contiguous() : torch::Tensor();
        const auto dcy = grads[2].defined() ? grads[2].to(b.y.scalar_type()).contiguous() : torch::Tensor();
        b.dx = torch::empty_like(b.x);
        b.dhx = torch::empty_like(b.hx);
        b.dcx = torch::empty_like(b.cx);
        b.dspace = torch::empty_like(b.space);
        b.work = bytes(p.workBytes, b.x.device());
        check(runBackward(handle, p, b, ptr(dhy), ptr(dcy)), "cudnnRNNBackwardData_v8/BackwardWeights_v8");
        const auto dspace = b.dspace.to(weightType);
        const std::int64_t hidden = b.hx.size(-1), in = b.x.size(-1);
        const std::vector<std::vector<std::int64_t>> shapes = {
            {4 * hidden, in}, {4 * hidden, hidden}, {4 * hidden}, {4 * hidden}};
        variable_list out = {b.dx, b.dhx, b.dcx};
        for (size_t t = 0; t < 4; ++t) {
            std::int64_t n = 1;
            for (auto s : shapes[t]) n *= s;
            out.push_back(dspace.narrow(0, p.layout.start[t], n).view(shapes[t]));
        }
        out.emplace_back();  // the plan
        return out;
    }

private:
    // PyTorch's four tensors in cuDNN's weight space: one concatenation where they fill it back to back,
    // else copied into place.
    static torch::Tensor packWeights(const Plan& p, const std::vector<torch::Tensor>& w) {
        if (p.layout.tiles) {
            std::vector<torch::Tensor> parts;
            for (int t : p.layout.order) parts.push_back(w[static_cast<size_t>(t)].reshape({-1}));
            return torch::cat(parts);
        }
        auto space = torch::zeros({p.weightElements}, w[0].options());
        for (size_t t = 0; t < 4; ++t)
            space.narrow(0, p.layout.start[t], w[t].numel()).copy_(w[t].reshape({-1}));
        return space;
    }
};

std::optional<at::ScalarType> cudaAutocastType() {
#if WORKBENCH_TORCH_AT_LEAST(2, 4)
    if (!at::autocast::is_autocast_enabled(at::kCUDA)) return std::nullopt;
    return at::autocast::get_autocast_dtype(at::kCUDA);
#else
    if (!at::autocast::is_enabled()) return std::nullopt;
    return at::autocast::get_autocast_gpu_dtype();
#endif
}

std::vector<torch::Tensor> layer(const torch::Tensor& x, const torch::Tensor& h0, const torch::Tensor& c0,
                                 const torch::Tensor& wIh, const torch::Tensor& wHh, const torch::Tensor& bIh,
                                 const torch::Tensor& bHh) {
    const c10::cuda::CUDAGuard guard(x.device());
    const auto type = cudaAutocastType().value_or(x.scalar_type());
    const int dataType = dataTypeOf(type);
    // fp32: TF32 where ATen's cuDNN LSTM would use it (cuDNN's TF32 switch, on by default in LibTorch) or the
    // run asks for it (--tf32), else plain FMA; bf16 and fp16 on tensor cores, with fp32 sums.
    const bool tf32 = at::globalContext().allowTF32CuDNN() ||
                      at::globalContext().float32MatmulPrecision() != at::Float32MatmulPrecision::HIGHEST;
    const int mathType = dataType != cudnn::kFloat ? cudnn::kTensorOpMath
                         : tf32                    ? cudnn::kDefaultMath
                                                   : cudnn::kFmaMath;
    const Key key{x.get_device(), dataType, mathType, x.size(2), wHh.size(1), x.size(1), x.size(0)};
    const auto cx = x.to(type).contiguous(), ch = h0.to(type).contiguous(), cc = c0.to(type).contiguous();
    if (const Plan* plan = planFor(key, type))
        return CudnnLstmFunction::apply(cx, ch, cc, wIh, wHh, bIh, bHh, reinterpret_cast<std::int64_t>(plan));
    auto r = at::lstm(cx, {ch.unsqueeze(0), cc.unsqueeze(0)},
                      {wIh.to(type), wHh.to(type), bIh.to(type), bHh.to(type)},
                      /*has_biases=*/true, 1, 0.0, /*train=*/true, false, /*batch_first=*/false);
    return {std::get<0>(r), std::get<1>(r).squeeze(0), std::get<2>(r).squeeze(0)};
}

std::string report() {
    auto& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    std::string out;
    for (const auto& line : r.report) out += (out.empty() ? "" : "\n") + line;
    return out;
}

}  // namespace cudnn_lstm

bool cudnnLstmAvailable() { return cudnn::api() != nullptr; }

bool cudnnLstmApplies(const torch::Tensor& input) {
    return input.is_cuda() && torch::GradMode::is_enabled() && !cudnn_lstm::choice().aten &&
           cudnnLstmAvailable();
}

std::vector<torch::Tensor> cudnnLstmLayer(const torch::Tensor& x, const torch::Tensor& h0,
                                          const torch::Tensor& c0, const torch::Tensor& wIh,
                                          const torch::Tensor& wHh, const torch::Tensor& bIh,
                                          const torch::Tensor& bHh) {
    return cudnn_lstm::layer(x, h0, c0, wIh, wHh, bIh, bHh);
}

std::string cudnnLstmReport() { return cudnn_lstm::report(); }

void cudnnLstmCandidatesForTests(const std::vector<std::string>& algorithms) {
    using namespace cudnn_lstm;
    std::vector<int> codes;
    for (const auto& name : algorithms) {
        const int code = algoCalled(name);
        TORCH_CHECK(code >= 0, "no cuDNN RNN algorithm is called ", name);
        codes.push_back(code);
    }
    auto& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.candidates = codes;
}

}  // namespace wb

#else  // no CUDA in this LibTorch build

namespace wb {
bool cudnnLstmAvailable() { return false; }
bool cudnnLstmApplies(const torch::Tensor&) { return false; }
std::vector<torch::Tensor> cudnnLstmLayer(const torch::Tensor&, const torch::Tensor&, const torch::Tensor&,
                                          const torch::Tensor&, const torch::Tensor&, const torch::Tensor&,
                                          const torch::Tensor&) {
    TORCH_CHECK(false, "the cuDNN LSTM needs a CUDA build of LibTorch");
}
std::string cudnnLstmReport() { return {}; }
void cudnnLstmCandidatesForTests(const std::vector<std::string>&) {}
}  // namespace wb

#endif
