// How the processes of a run combine their work: which rows of a global batch this process trains on, the
// hooks around its backward pass, and the few sums every rank must agree on. A run in one process uses
// LocalGradientSync (every call a no-op); a data-parallel run uses the c10d Reducer
// (distributed/ReducerSync). The training loop is the same for both.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <torch/torch.h>

namespace wb {

class GradientSync {
public:
    virtual ~GradientSync() = default;
    virtual int rank() const { return 0; }
    virtual int worldSize() const { return 1; }

    // Rows [first, second) of a global batch of n rows that this rank trains on: contiguous shards whose
    // sizes differ by at most one, so any n >= 0 is split (a rank may get none of a short last batch).
    std::pair<std::int64_t, std::int64_t> shard(std::int64_t n) const {
        const auto r = static_cast<std::int64_t>(rank()), w = static_cast<std::int64_t>(worldSize());
        return {n * r / w, n * (r + 1) / w};
    }
    // The loss weight that makes the averaged gradients those of the global batch's mean loss:
    // rows * worldSize / n (1 in one process).
    double lossWeight(std::int64_t rows, std::int64_t n) const {
        return n > 0 ? static_cast<double>(rows) * worldSize() / static_cast<double>(n) : 0.0;
    }

    // Makes these tensors (weights, optimizer state) equal to rank 0's, in place.
    virtual void broadcastFromRankZero(const std::vector<torch::Tensor>& tensors) {}
    // Around one training step: before its forward pass and before its backward pass (where the Reducer
    // arms the hooks that all-reduce gradient buckets while backward still runs).
    virtual void beforeForward() {}
    virtual void beforeBackward() {}
    // Sums a small CPU tensor over all ranks, in place (metrics, stop votes).
    virtual void sum(torch::Tensor& values) {}
    // The gradient bytes this rank puts into the all-reduces of one step; 0 in one process.
    virtual std::int64_t gradientBytesPerStep() const { return 0; }
};

class LocalGradientSync final : public GradientSync {};

}  // namespace wb
