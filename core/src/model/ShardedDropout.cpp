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
    if (!t_generator && (t_globalRows == 0 || t_globalRows == x.size(batchDim)))
        return at::dropout(x, p, /*train=*/true);
    // What ATen's CPU dropout does (a contiguous noise tensor, bernoulli_(1 - p), divided by 1 - p), on the
    // global shape; this process keeps its rows.
    auto shape = x.sizes().vec();
    shape[static_cast<std::size_t>(batchDim)] = t_globalRows > 0 ? t_globalRows : x.size(batchDim);
    auto noise = at::empty(shape, x.options());
    noise.bernoulli_(1 - p, t_generator ? *t_generator : c10::optional<at::Generator>());
    noise.div_(1 - p);
    return x * noise.narrow(batchDim, t_firstRow, x.size(batchDim));
}

}  // namespace wb
