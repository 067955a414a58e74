// Training-step benchmark on synthetic data of a reference preset's shape (docs/performance.md), with the
// device's measured matrix-product rate for the FLOP floor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workbench/domain/Config.h"

namespace wb {

struct BenchOptions {
    std::string preset = "imdb";
    DeviceSpec device;  // bench's --device, read by DeviceSpec::parse: "cpu:2" is the CPU with 2 threads
    std::string precision = "fp32";
    std::int64_t steps = 20;  // timed steps
    std::int64_t warmup = 3;
    std::int64_t batchSize = 0;      // 0 = preset's
    std::string backend = "auto";    // LSTM: "torch" (torch::nn::LSTM), "fused" (CPU fused LSTM) or "auto"
    std::string threadSplit;         // "batch" or "ops" with several CPU threads; "" = the config's default
    std::string cudaGraph = "auto";  // CUDA: "auto" (steps as CUDA graphs) or "off" (op by op)
    bool tf32 = false;               // CUDA: fp32 matrix products in TF32
    // Also time each phase of an op-by-op step (forward and loss, backward, clipping, optimizer), the
    // device synchronised between them: where a step's time goes.
    bool profile = false;
};

// One phase of a profiled step: its median milliseconds.
struct BenchPhase {
    std::string name;
    double medianMs = 0;
};

struct BenchResult {
    std::string preset, device, deviceName, precision, libtorchVersion, blas;
    std::string backend;      // the LSTM that ran: "torch" or "fused" (auto resolved)
    std::string threadSplit;  // "batch" or "ops" (what ran: "ops" with one thread)
    std::int64_t threads = 0, batchSize = 0, seqLen = 0, steps = 0;
    double medianStepMs = 0;
    double usPerSample = 0;
    double samplesPerSecond = 0;
    double tokensPerSecond = 0;
    double trainFlopsPerSample = 0;
    double gflops = 0;      // achieved
    double peakGflops = 0;  // measured matmul rate of the device, in the precision the step computes in
    double percentOfPeak = 0;
    std::string cudaGraph;  // CUDA: how the steps ran (train/CudaGraphStep.h's describe()); else ""
    std::string cudnnLstm;  // CUDA: the cuDNN algorithms the LSTM's shapes were timed on and chosen, so far
                            // in this process (model/CudnnLstm.h); else ""
    bool tf32 = false;
    // With the batch split over threads (train/ThreadShards.h): how many timed steps gave the workers uneven
    // shares because one ran clearly slower (a core shared with another program); such a step groups the
    // gradients' sums otherwise, so a run with any differs from an even one in the last digits. -1: no split.
    std::int64_t unevenSteps = -1;
    std::vector<BenchPhase> phases;  // with BenchOptions::profile
    std::vector<double> stepMs;      // every timed step
    std::string toJson() const;
};

BenchResult runBenchmark(const BenchOptions& options);
// Median GFLOP/s of an n x n x n matrix product on the device: fp32, or with bf16 on a CPU with AVX512_BF16
// the product the CPU bf16 training step uses (bf16 operands packed from fp32, fp32 sums).
// The device's threads are the measurement's (0: the process's own).
double measureMatmulGflops(const DeviceSpec& device, std::int64_t n = 1024,
                           Precision precision = Precision::Fp32);

}  // namespace wb
