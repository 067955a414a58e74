// A CPU training step split by batch over threads of this process: each of N persistent threads runs the
// whole step (forward, loss, backward) on its contiguous share of the batch's rows, with one intra-op thread
// of its own, and the gradients meet in the shared parameters (autograd accumulates into a leaf's .grad under
// a per-parameter lock). Then one gradient clip, one optimizer step and the zeroing of the gradients, on one
// of the workers.
//
// Why: splitting each operation between threads (LibTorch's intra-op parallelism, OpenBLAS's threads)
// synchronises the threads hundreds of times per step on small matrices; the batch split synchronises them
// twice, as two processes do, without the processes. The arithmetic is the global batch's: each share's mean
// loss is weighted by rows / batch, and dropout masks are drawn for the global batch and cut to the share's
// rows (ShardedDropout.h), from a generator per thread seeded as the one-thread run seeds the global one.
//
// When another program takes part of a core: worker i keeps to the i-th CPU the process may use (Linux
// otherwise tends to stack both workers on the free core), the shares follow each worker's measured speed
// once one is clearly slower (bounds()), and the optimizer's elementwise passes run on the fastest worker
// alone, with no barrier that could wait behind another program's time slice. On an idle machine the shares
// stay even, so a 2-thread run computes the same numbers every time.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "train/TrainingStep.h"

namespace wb {

class ThreadShards {
public:
    explicit ThreadShards(int threads);  // >= 2
    ~ThreadShards();
    ThreadShards(const ThreadShards&) = delete;
    ThreadShards& operator=(const ThreadShards&) = delete;

    int threads() const { return static_cast<int>(m_workers.size()); }
    // The batch's rows are cut into this many contiguous chunks, chunk i for worker i (fewer for a batch
    // with fewer rows than threads). Smaller chunks, two or four per thread taken by whichever thread is
    // free, were measured as well: slower on an idle machine and no faster with a busy core
    // (docs/performance.md); the shares below adapt instead.
    std::int64_t chunks(std::int64_t rows) const {
        return std::max<std::int64_t>(1, std::min<std::int64_t>(threads(), rows));
    }

    // Where chunk i of a batch of `rows` rows starts: bounds[i] .. bounds[i + 1]. Even shares while the
    // workers run at about the same speed; when one runs slower (its core is shared with another
    // process), shares in proportion to each worker's measured rows per second, so that the step is not
    // as slow as its slowest share. See ShareBalancer.
    std::vector<std::int64_t> bounds(std::int64_t rows) const;
    std::vector<std::int64_t> evenBounds(std::int64_t rows) const;  // rows * i / chunks

    // One step on the batch; dropoutSeed seeds each chunk's dropout generator. Returns the batch's mean loss
    // (detached).
    torch::Tensor step(TrainingSetup& setup, const Batch& batch, const ExperimentConfig& config,
                       std::uint64_t dropoutSeed);

    // How many steps so far used uneven shares (run.json-free diagnostics for the benchmark and tests).
    std::int64_t unevenSteps() const { return m_unevenSteps; }

    // The workers' measured speeds (rows per second of wall time, a moving average over steps); empty before
    // the first step. setSpeedsForTest replaces them (the next step's shares follow, then its measurement).
    const std::vector<double>& speeds() const { return m_speeds; }
    void setSpeedsForTest(std::vector<double> speeds) { m_speeds = std::move(speeds); }

private:
    void run(const std::function<void(int)>& task);  // task(i) on worker i, for every i; waits for all
    void workerLoop(int index);

    std::vector<std::thread> m_workers;
    std::mutex m_mutex;
    std::condition_variable m_wake, m_finished;
    const std::function<void(int)>* m_task = nullptr;
    std::uint64_t m_generation = 0;
    int m_running = 0;
    bool m_quit = false;
    std::vector<double> m_speeds;  // per worker, rows per second (moving average); empty: none yet
    std::int64_t m_unevenSteps = 0;
    const void* m_zeroedFor = nullptr;  // the optimizer whose gradients the last step left zeroed
};

}  // namespace wb
