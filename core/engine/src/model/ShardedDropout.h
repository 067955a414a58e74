// Dropout that a data-parallel run draws exactly as one process would: the mask is drawn for the whole
// global batch (same shape, same generator calls as LibTorch 1.13's at::dropout) and cut to this process's
// rows. With no shard set (a run in one process) the mask is the whole batch's, drawn the same way.
#pragma once

#include <cstdint>
#include <optional>

#include <torch/torch.h>

namespace wb {

// Sets, for this thread and the lifetime of the object, the rows of the global batch this process holds.
class ScopedDropoutShard {
public:
    // generator: where this thread draws its masks from (a batch split over threads of one process gives
    // each thread its own, seeded alike, so that each draws the global batch's masks); none: the global one.
    ScopedDropoutShard(std::int64_t globalRows, std::int64_t firstRow,
                       std::optional<at::Generator> generator = std::nullopt);
    ~ScopedDropoutShard();
    ScopedDropoutShard(const ScopedDropoutShard&) = delete;
    ScopedDropoutShard& operator=(const ScopedDropoutShard&) = delete;

private:
    std::int64_t m_previousRows, m_previousFirst;
    std::optional<at::Generator> m_previousGenerator;
};

// batchDim: where the batch is in x (0 for batch-first tensors, 1 for the LSTM's time-major ones).
torch::Tensor shardedDropout(const torch::Tensor& x, double p, bool training, std::int64_t batchDim);

}  // namespace wb
