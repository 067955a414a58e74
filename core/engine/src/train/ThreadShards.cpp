// Batch-split training steps over threads (see ThreadShards.h).
#include "train/ThreadShards.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string>

#include "EnvSwitch.h"
#include "device/Autocast.h"
#include "device/DeviceSetup.h"
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

// Worker i runs on the i-th CPU this process may use, when there is one for every worker (and unless
// LSTM_WORKBENCH_PIN_THREADS=off). Without it, Linux often puts both workers on one core when a third
// thread (another program) is pinned or busy on the other: the two workers then get one core between them,
// and no split of the batch can beat one thread. Pinned, each worker keeps its own core's share, and the
// shares of the batch follow what each core gives (bounds()). Measured in docs/performance.md.
void pinToOwnCore(int index, int workers) {
    if (switchedOff("LSTM_WORKBENCH_PIN_THREADS")) return;
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < workers) return;
    for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (!CPU_ISSET(cpu, &allowed) || seen++ != index) continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        pthread_setaffinity_np(pthread_self(), sizeof one, &one);  // best effort: unpinned still works
        return;
    }
}
}  // namespace

void ThreadShards::workerLoop(int index) {
    useOneIntraOpThreadHere();
    flushSubnormals();  // as the thread that started the workers does (DeviceSetup.h)
    pinToOwnCore(index, threads());
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

namespace {
// Even shares are kept unless shares in proportion to the measured speeds promise a step at least this much
// shorter: on an idle machine the workers' speeds differ by a few per cent from step to step, and even
// shares keep a 2-thread run's arithmetic the same from run to run (two gradients added in either order give
// the same sum); a core shared with another process makes its worker 1.5-2x slower, far past this.
constexpr double kUnevenGain = 1.10;
// Weight of the newest step in the workers' speed averages: a neighbour that starts or stops is followed
// within a few steps, one noisy step moves the shares little.
constexpr double kSpeedWeight = 0.5;

// The step's time with these bounds at these speeds: its slowest share.
double predictedSeconds(const std::vector<std::int64_t>& bounds, const std::vector<double>& speeds) {
    double worst = 0;
    for (std::size_t i = 0; i + 1 < bounds.size(); ++i)
        worst = std::max(worst, static_cast<double>(bounds[i + 1] - bounds[i]) / speeds[i]);
    return worst;
}
}  // namespace

std::vector<std::int64_t> ThreadShards::evenBounds(std::int64_t rows) const {
    const std::int64_t n = chunks(rows);
    std::vector<std::int64_t> even(static_cast<std::size_t>(n + 1));
    for (std::int64_t i = 0; i <= n; ++i) even[static_cast<std::size_t>(i)] = rows * i / n;
    return even;
}

std::vector<std::int64_t> ThreadShards::bounds(std::int64_t rows) const {
    const auto even = evenBounds(rows);
    const std::int64_t n = chunks(rows);
    if (n < 2 || static_cast<std::int64_t>(m_speeds.size()) < n) return even;
    double total = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        if (!(m_speeds[static_cast<std::size_t>(i)] > 0)) return even;
        total += m_speeds[static_cast<std::size_t>(i)];
    }
    // Cumulative shares rounded to rows, every chunk keeping at least one row (so that every worker's speed
    // stays measured).
    std::vector<std::int64_t> uneven(even.size());
    double cumulative = 0;
    for (std::int64_t i = 1; i < n; ++i) {
        cumulative += m_speeds[static_cast<std::size_t>(i - 1)];
        const auto b =
            static_cast<std::int64_t>(std::llround(static_cast<double>(rows) * cumulative / total));
        uneven[static_cast<std::size_t>(i)] =
            std::clamp(b, uneven[static_cast<std::size_t>(i - 1)] + 1, rows - (n - i));
    }
    uneven[static_cast<std::size_t>(n)] = rows;
    return predictedSeconds(even, m_speeds) > kUnevenGain * predictedSeconds(uneven, m_speeds) ? uneven
                                                                                               : even;
}

torch::Tensor ThreadShards::step(TrainingSetup& setup, const Batch& batch, const ExperimentConfig& config,
                                 std::uint64_t dropoutSeed) {
    // The gradients were zeroed at the end of this object's last step on this optimizer (below), unless
    // something came between.
    if (m_zeroedFor != setup.optimizer.get()) setup.optimizer->zeroGrad();
    m_zeroedFor = nullptr;
    const std::int64_t rows = batch.size();
    const auto bounds = this->bounds(rows);
    const auto n = static_cast<int>(bounds.size()) - 1;
    std::vector<torch::Tensor> losses(static_cast<std::size_t>(n));
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
    std::vector<double> seconds(static_cast<std::size_t>(n));
    const std::function<void(int)> task = [&](int worker) {
        if (worker >= n) return;  // fewer rows than threads
        const auto index = static_cast<std::size_t>(worker);
        const auto start = std::chrono::steady_clock::now();
        try {
            const std::int64_t first = bounds[index], last = bounds[index + 1];
            Batch part;
            part.inputs = batch.inputs.narrow(0, first, last - first);
            part.targets = batch.targets.narrow(0, first, last - first);
            if (batch.lengths.defined()) part.lengths = batch.lengths.narrow(0, first, last - first);
            ScopedDropoutShard dropout(rows, first, at::make_generator<at::CPUGeneratorImpl>(dropoutSeed));
            AutocastScope autocast(setup.device, config.device.precision);
            auto loss = computeLoss(setup.model, part).loss *
                        (static_cast<double>(last - first) / static_cast<double>(rows));
            loss.backward();
            losses[index] = loss.detach();
        } catch (...) {
            errors[index] = std::current_exception();
        }
        seconds[index] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    run(task);
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    // Each worker's speed over this step: the wall time of its share, including any time its core gave to
    // another process, which is what the shares must follow.
    m_speeds.resize(static_cast<std::size_t>(threads()), 0.0);
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
        if (!(seconds[i] > 0)) continue;
        const double speed = static_cast<double>(bounds[i + 1] - bounds[i]) / seconds[i];
        m_speeds[i] = m_speeds[i] > 0 ? (1 - kSpeedWeight) * m_speeds[i] + kSpeedWeight * speed : speed;
    }
    if (bounds != evenBounds(rows)) ++m_unevenSteps;
    torch::Tensor total;
    for (const auto& l : losses)
        if (l.defined()) total = total.defined() ? total + l : l;
    // The clip, the optimizer step and zeroing the gradients for the next step, on the worker whose core gave
    // the most this step (any worker on an idle machine), with its one intra-op thread: on the calling thread
    // with N intra-op threads every elementwise pass over the weights meets the other threads at a barrier,
    // and one of them waiting behind another program's time slice stalls the step (measured on imdb with one
    // core busy: about 1 ms in most steps, up to 90 ms in others; moving it here also took the idle 2-thread
    // step from about 44 to 40 ms).
    const auto fastest =
        static_cast<int>(std::max_element(m_speeds.begin(), m_speeds.end()) - m_speeds.begin());
    std::exception_ptr stepError;
    run([&](int worker) {
        if (worker != fastest) return;
        try {
            setup.optimizer->clipGradNorm(config.train.gradClip);
            setup.optimizer->step();
            setup.optimizer->zeroGrad();
        } catch (...) {
            stepError = std::current_exception();
        }
    });
    if (stepError) std::rethrow_exception(stepError);
    m_zeroedFor = setup.optimizer.get();
    return total;
}

}  // namespace wb
