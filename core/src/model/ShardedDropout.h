// Dropout that a data-parallel run draws exactly as one process would: the mask is drawn for the whole
// global batch (same shape, same generator calls as at::dropout) and cut to this process's rows. With no
// shard set (a run in one process) it is at::dropout itself.
#pragma once

#include <cstdint>

#include <torch/torch.h>

namespace wb {

// Sets, for this thread and the lifetime of the object, the rows of the global batch this process holds.
class ScopedDropoutShard {
public:
    ScopedDropoutShard(std::int64_t globalRows, std::int64_t firstRow);
    ~ScopedDropoutShard();
    ScopedDropoutShard(const ScopedDropoutShard&) = delete;
    ScopedDropoutShard& operator=(const ScopedDropoutShard&) = delete;

private:
    std::int64_t m_previousRows, m_previousFirst;
};

// batchDim: where the batch is in x (0 for batch-first tensors, 1 for the LSTM's time-major ones).
torch::Tensor shardedDropout(const torch::Tensor& x, double p, bool training, std::int64_t batchDim);

}  // namespace wb
