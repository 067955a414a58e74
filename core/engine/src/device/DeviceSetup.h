// Internal device helpers for the torch-side code: thread set-up, synchronisation before clocks, CUDA names.
#pragma once

#include <cstdint>
#include <string>

#include <torch/torch.h>

#include "workbench/domain/Config.h"

namespace wb {

// A config's device settings as a run uses them: its DeviceSpec (config.device.spec: "cpu:2" set by code
// becomes "cpu" with 2 threads; "cpu" without a count takes defaultCpuThreads(), shared between a job's
// processes) checked against this machine (checkDeviceAvailable) and an auto precision chosen
// (choosePrecision). Returns why that precision, for the run to say ("" unless it was auto).
std::string settleDeviceSettings(ExperimentConfig& config);
// The torch::Device of a device: the CPU, or the CUDA device of the spec's index.
torch::Device torchDevice(const DeviceSpec& spec);

// Sets LibTorch's intra-op threads and OpenBLAS's threads to the same count (0 = leave as is).
void applyCpuThreads(std::int64_t threads);
int currentCpuThreads();
// OpenBLAS's threads alone (a batch split over threads wants one BLAS thread in each). With another BLAS,
// which has no such call, a warning on stderr (once).
void applyBlasThreads(int threads);
// OpenBLAS's thread count as OpenBLAS reports it; -1 when the BLAS in use is not OpenBLAS.
int blasThreads();

// Subnormal floats (below 2^-126, about 1.2e-38, in magnitude) read as zero, and results that would be
// subnormal written as zero, on this thread and on LibTorch's intra-op threads: x86's DAZ and FTZ bits (no-op
// elsewhere). Why: an Intel core takes a microcode assist, a slow path, for a vector operation
// that meets a subnormal, and a classifier's gradients, flowing back through a few hundred steps, become
// subnormal: the imdb preset trained 13 times slower on an Intel Xeon without this (docs/benchmarks.md,
// "An Intel Xeon"). Values that small change nothing float32 can show in a loss or an update
// (Adam divides by sqrt(v) + 1e-8). PyTorch's torch.set_flush_denormal(True) sets the same bits, off by
// default there; LSTM_WORKBENCH_FLUSH_DENORMALS=off keeps IEEE 754's gradual underflow here too.
// Every CPU job sets it (CpuThreadsScope, ThreadShards' workers) and the threads keep it afterwards: a
// thread of this process computes one way from its first job on.
void flushSubnormals();
// Whether this thread flushes subnormals (both bits set): for the tests.
bool subnormalsFlushedHere();

// One job's CPU threads (applyCpuThreads), and the previous settings back when it ends, so that a job's
// count does not leak into what the process does next (the app's next job, generation after training).
// It also flushes subnormals (flushSubnormals), which stays.
class CpuThreadsScope {
public:
    explicit CpuThreadsScope(std::int64_t threads);  // threads <= 0: the counts stay as they are
    ~CpuThreadsScope();
    CpuThreadsScope(const CpuThreadsScope&) = delete;
    CpuThreadsScope& operator=(const CpuThreadsScope&) = delete;

private:
    bool m_active = false;
    int m_torch = 0;
    int m_blas = -1;
};
// Waits for queued work on the device, so a clock read afterwards measures finished work.
void synchronize(const torch::Device& device);
// Seeds one training step's draws (dropout masks), so that a resumed run draws what the uninterrupted run
// drew. On a CPU the global generators start again from stepSeed. On a CUDA device the CPU generator does,
// while the GPU's keeps the run's seed and moves to an offset of the step's own: a new seed would make
// cuDNN's next LSTM call rebuild its dropout state, reading a number back to the host, which costs a
// synchronisation every step and which no CUDA graph can hold (train/CudaGraphStep.h).
void seedTrainingStep(const torch::Device& device, std::uint64_t stepSeed, std::int64_t step);
// Name and total memory of a CUDA device; "CUDA device N" where the build has no CUDA runtime API.
std::string cudaDeviceName(int index, std::int64_t* memoryBytes);
// The most memory LibTorch's CUDA caching allocator has had allocated at once on the device since the
// process started (torch.cuda.max_memory_allocated); 0 for a CPU or a build without CUDA.
std::int64_t cudaPeakMemoryBytes(const torch::Device& device);
// The device a process of a data-parallel job trains on: on CUDA the configured GPU's index plus its
// LOCAL_RANK (cuda:0 with --nproc 2: cuda:0 and cuda:1, as torchrun's scripts do), modulo the GPUs there are
// (two processes may share one); made the thread's current device, so that NCCL's streams are on it. A CPU
// device is returned as it is.
torch::Device deviceForLocalRank(const torch::Device& configured, int localRank);
// This machine's host name ("" when it cannot be read): run.json's host, each rank's in a distributed run.
std::string hostName();

}  // namespace wb
