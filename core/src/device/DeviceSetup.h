// Internal device helpers for the torch-side code: thread set-up, synchronisation before clocks, CUDA names.
#pragma once

#include <cstdint>
#include <string>

#include <torch/torch.h>

namespace wb {

// Sets LibTorch's intra-op threads and OpenBLAS's threads to the same count (0 = leave as is).
void applyCpuThreads(std::int64_t threads);
int currentCpuThreads();
// OpenBLAS's threads alone (a batch split over threads wants one BLAS thread in each).
void applyBlasThreads(int threads);
// Waits for queued work on the device, so a clock read afterwards measures finished work.
void synchronize(const torch::Device& device);
// Name and total memory of a CUDA device; "CUDA device N" where the build has no CUDA runtime API.
std::string cudaDeviceName(int index, std::int64_t* memoryBytes);
// This machine's host name ("" when it cannot be read): run.json's host, each rank's in a distributed run.
std::string hostName();

}  // namespace wb
