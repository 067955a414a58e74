// A CUDA training step as one CUDA graph (issue #48): the step's hundreds of kernel launches (embedding,
// cuDNN's LSTM, head, loss, backward, clipping, the optimizer) are captured once per batch shape and
// replayed as one launch, which takes the host's launch time out of every step of a small model.
//
// How a step runs, per batch shape (inputs' and targets' sizes, lengths or not):
//   first time   op by op (the warm-up: cuDNN's and cuBLAS's lazy set-up happens outside any capture)
//   second time  captured into a graph, then replayed once: that is this step's update
//   after        the batch copied into the graph's static tensors, the optimizer's step count and learning
//                rate into its device scalars (Optimizer::useDeviceScalars), one replay
// Up to kMaxShapes shapes get a graph (a corpus's full batches and its short last one); others run op by
// op. A capture that fails (an operation that needs the host mid-step) turns graphs off for the run and says
// why (describe()); the step it was capturing runs op by op, so no update is lost.
//
// Everything runs on a stream of this object's own (CUDA graphs are captured on a stream other than the
// legacy default one), ordered against the caller's stream with events. Builds without CUDA compile the
// same interface, and available() says why not.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <torch/torch.h>

#include "data/TextDatasets.h"
#include "train/Optimizer.h"

namespace wb {

class CudaGraphStep {
public:
    // One training step on this batch (zero gradients, forward, backward, clip, update); returns its loss.
    using Body = std::function<torch::Tensor(const Batch&)>;
    static constexpr int kMaxShapes = 4;

    CudaGraphStep(const torch::Device& device, Optimizer& optimizer);
    ~CudaGraphStep();
    CudaGraphStep(const CudaGraphStep&) = delete;
    CudaGraphStep& operator=(const CudaGraphStep&) = delete;

    // Empty where this build and device can capture graphs; else why not ("this build has no CUDA").
    static std::string unavailableReason(const torch::Device& device);

    // The step's loss (a tensor of its own, not the graph's static one).
    torch::Tensor run(const Batch& batch, const Body& body);

    // For run.json and the log: "graph (2 shapes captured, 118 replays)" or "op by op: <why>".
    std::string describe() const;
    int capturedShapes() const;
    bool failed() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m;
};

}  // namespace wb
