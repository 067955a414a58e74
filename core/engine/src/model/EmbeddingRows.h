// The embedding lookup of a CPU fp32 table with a backward of its own. LibTorch's CPU backward
// (embedding_dense_backward, an index_add) took about 6 % of an imdb training step in bf16 for what is a
// zero fill of the table's gradient and one row addition per token; this one adds the rows in the same order
// (the gradient is the same, bit for bit), split over the intra-op threads by columns, so that no two
// threads ever add into the same element.
#pragma once

#include <torch/torch.h>

namespace wb {

// weight [V, E] (fp32, CPU), indices of any shape (int64) -> [indices..., E]; differentiable in weight.
// Other devices and types take torch::embedding.
torch::Tensor embeddingRows(const torch::Tensor& weight, const torch::Tensor& indices);

}  // namespace wb
