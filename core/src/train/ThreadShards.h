// A CPU training step split by batch over threads of this process: each of N persistent threads runs the
// whole step (forward, loss, backward) on its contiguous share of the batch's rows, with one intra-op thread
// of its own, and the gradients meet in the shared parameters (autograd accumulates into a leaf's .grad under
// a per-parameter lock). Then one gradient clip and one optimizer step on the calling thread.
//
// Why: splitting each operation between threads (LibTorch's intra-op parallelism, OpenBLAS's threads)
// synchronises the threads hundreds of times per step on small matrices; the batch split synchronises them
// once, as two processes do, without the processes. The arithmetic is the global batch's: each shard's mean
// loss is weighted by rows / batch, and dropout masks are drawn for the global batch and cut to the shard's
// rows (ShardedDropout.h), from a generator per thread seeded as the one-thread run seeds the global one.
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
    // The batch's rows are cut into this many contiguous chunks (one per thread, fewer for a batch with
    // fewer rows than threads), which the threads take from a counter. Smaller chunks, two or four per
    // thread, were measured as well, to let a thread that shares its core with another process take fewer:
    // they were slower on an idle machine and no faster with a busy core (docs/benchmarks.md).
    std::int64_t chunks(std::int64_t rows) const {
        return std::max<std::int64_t>(1, std::min<std::int64_t>(threads(), rows));
    }

    // One step on the batch; dropoutSeed seeds each chunk's dropout generator. Returns the batch's mean loss
    // (detached).
    torch::Tensor step(TrainingSetup& setup, const Batch& batch, const ExperimentConfig& config,
                       std::uint64_t dropoutSeed);

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
};

}  // namespace wb
