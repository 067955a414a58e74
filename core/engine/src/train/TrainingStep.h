// The pieces every training loop here shares (the trainer, the finders, the benchmark): building the
// model on a device, the loss of a batch, and one optimisation step.
#pragma once

#include <cstdint>
#include <memory>

#include <torch/torch.h>

#include "data/TextDatasets.h"
#include "model/SequenceModel.h"
#include "train/CudaGraphStep.h"
#include "train/GradientSync.h"
#include "train/Optimizer.h"
#include "workbench/domain/Config.h"

namespace wb {

struct LossOutput {
    torch::Tensor loss;       // mean over predicted tokens (LM) or examples (classifier)
    torch::Tensor correct;    // number of correct predictions (int64, on the device)
    std::int64_t count = 0;   // predictions in the batch
    torch::Tensor predicted;  // classifier: each example's predicted class (undefined for an LM)
};

LossOutput computeLoss(SequenceModel& model, const Batch& batch);

// A model (seeded from config.train.seed) and its optimizer on a device.
struct TrainingSetup {
    torch::Device device{torch::kCPU};
    SequenceModel model{nullptr};
    std::unique_ptr<Optimizer> optimizer;
    // A CUDA device's steps as CUDA graphs (config.device.cuda_graph auto, one process); null elsewhere.
    std::unique_ptr<CudaGraphStep> graph;
};
// run.json's "cuda_graph": how this setup's steps ran ("graph (...)", "op by op: why"); empty on a CPU.
std::string describeCudaGraph(const TrainingSetup& setup, const ExperimentConfig& config);
TrainingSetup makeTrainingSetup(const ExperimentConfig& config, std::int64_t vocabSize, std::int64_t outputs,
                                const torch::Device& device);

// forward, backward, clip, step; returns the (device-side, detached) loss times lossWeight. With a sync,
// batch is this rank's shard of a global batch: the sync's hooks run around the backward pass, and the loss
// is weighted (GradientSync::lossWeight) so that the averaged gradients are the global batch's. An empty
// shard still takes part with zero gradients. In one process on a CUDA device the step runs as a CUDA graph
// where setup.graph is (CudaGraphStep.h).
torch::Tensor trainStep(TrainingSetup& setup, const Batch& batch, const ExperimentConfig& config,
                        GradientSync* sync = nullptr, double lossWeight = 1.0);

// "out of memory" errors from any allocator, recognised so they can be reported as such.
bool isOutOfMemory(const std::exception& e);

NamedTensors namedParameters(const SequenceModel& model);

}  // namespace wb
