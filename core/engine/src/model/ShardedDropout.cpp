// ShardedDropout (see ShardedDropout.h).
#include "model/ShardedDropout.h"

namespace wb {

namespace {
thread_local std::int64_t t_globalRows = 0;  // 0: no shard set
thread_local std::int64_t t_firstRow = 0;
thread_local std::optional<at::Generator> t_generator;
}  // namespace

ScopedDropoutShard::ScopedDropoutShard(std::int64_t globalRows, std::int64_t firstRow,
                                       std::optional<at::Generator> generator)
    : m_previousRows(t_globalRows), m_previousFirst(t_firstRow), m_previousGenerator(t_generator) {
    t_globalRows = globalRows;
    t_firstRow = firstRow;
    t_generator = std::move(generator);
}

ScopedDropoutShard::~ScopedDropoutShard() {
    t_globalRows = m_previousRows;
    t_firstRow = m_previousFirst;
    t_generator = m_previousGenerator;
}

torch::Tensor shardedDropout(const torch::Tensor& x, double p, bool training, std::int64_t batchDim) {
    if (!training || p <= 0) return x;
    // ATen's CPU dropout of LibTorch 1.13 (a contiguous noise tensor, bernoulli_(1 - p), divided by 1 - p),
    // on the global shape; this shard keeps its rows. Written out even for the whole batch, so that one
    // thread and N shards draw the same mask whatever ATen's own dropout does (2.x draws it differently).
    auto shape = x.sizes().vec();
    shape[static_cast<std::size_t>(batchDim)] = t_globalRows > 0 ? t_globalRows : x.size(batchDim);
    auto noise = at::empty(shape, x.options());
    noise.bernoulli_(1 - p, t_generator ? *t_generator : c10::optional<at::Generator>());
    noise.div_(1 - p);
    return x * noise.narrow(batchDim, t_firstRow, x.size(batchDim));
}

}  // namespace wb
