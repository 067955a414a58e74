// Batch-split training steps over threads (see ThreadShards.h).
#include "train/ThreadShards.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include <dlfcn.h>

#include <atomic>

#include "device/Autocast.h"
#include "model/ShardedDropout.h"

namespace wb {

ThreadShards::ThreadShards(int threads) {
    TORCH_CHECK(threads >= 2, "ThreadShards needs at least two threads");
    for (int i = 0; i < threads; ++i) m_workers.emplace_back([this, i] { workerLoop(i); });
}

ThreadShards::~ThreadShards() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_quit = true;
    }
    m_wake.notify_all();
    for (auto& t : m_workers) t.join();
}

namespace {
// One intra-op thread in the calling thread only. OpenMP's thread count is a per-thread setting, but
// at::set_num_threads also stores the process-wide count that every thread's first parallel call copies,
// so it would give one thread to whichever thread of the process initialises next (the session's own,
// which validates). ATen's lazy initialisation of this thread runs first, so it cannot undo this later.
void useOneIntraOpThreadHere() {
    (void)at::get_num_threads();
    using SetFn = void (*)(int);
    if (auto fn = reinterpret_cast<SetFn>(dlsym(RTLD_DEFAULT, "omp_set_num_threads")))
        fn(1);
    else
        at::set_num_threads(1);  // a LibTorch without OpenMP: its own pool, whose size is process-wide anyway
}
}  // namespace

void ThreadShards::workerLoop(int index) {
    useOneIntraOpThreadHere();
    std::uint64_t seen = 0;
    for (;;) {
        const std::function<void(int)>* task = nullptr;
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_wake.wait(lock, [&] { return m_quit || m_generation != seen; });
            if (m_quit) return;
            seen = m_generation;
            task = m_task;
        }
        (*task)(index);
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            if (--m_running == 0) m_finished.notify_one();
        }
    }
}

void ThreadShards::run(const std::function<void(int)>& task) {
    std::unique_lock<std::mutex> lock(m_mutex);
    m_task = &task;
    m_running = threads();
    ++m_generation;
    m_wake.notify_all();
    m_finished.wait(lock, [&] { return m_running == 0; });
    m_task = nullptr;
}

torch::Tensor ThreadShards::step(TrainingSetup& setup, const Batch& batch, const ExperimentConfig& config,
                                 std::uint64_t dropoutSeed) {
    setup.optimizer->zeroGrad();
    const std::int64_t rows = batch.size();
    const std::int64_t n = chunks(rows);
    std::vector<torch::Tensor> losses(static_cast<std::size_t>(n));
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
    std::atomic<std::int64_t> next{0};
    const std::function<void(int)> task = [&](int) {
        for (std::int64_t c; (c = next.fetch_add(1)) < n;) {
            const auto index = static_cast<std::size_t>(c);
            try {
                const std::int64_t first = rows * c / n, last = rows * (c + 1) / n;
                Batch part;
                part.inputs = batch.inputs.narrow(0, first, last - first);
                part.targets = batch.targets.narrow(0, first, last - first);
                if (batch.lengths.defined()) part.lengths = batch.lengths.narrow(0, first, last - first);
                ScopedDropoutShard dropout(rows, first,
                                           at::make_generator<at::CPUGeneratorImpl>(dropoutSeed));
                AutocastScope autocast(setup.device, config.device.precision);
                auto loss = computeLoss(setup.model, part).loss *
                            (static_cast<double>(last - first) / static_cast<double>(rows));
                loss.backward();
                losses[index] = loss.detach();
            } catch (...) {
                errors[index] = std::current_exception();
            }
        }
    };
    run(task);
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    torch::Tensor total;
    for (const auto& l : losses)
        if (l.defined()) total = total.defined() ? total + l : l;
    setup.optimizer->clipGradNorm(config.train.gradClip);
    setup.optimizer->step();
    return total;
}

}  // namespace wb
