// Mean softmax cross-entropy for CPU fp32 logits, with each row's argmax, computed together with the
// gradient in one pass over the logits. ATen's cross_entropy is log_softmax and nll_loss: on poems' logits
// ([2336, 4379] fp32, 41 MB a step, far beyond the caches) the forward, the argmax for the accuracy and the
// backward were about eight passes over memory; this is two (read the logits, write the gradient) and a
// scaling pass in the backward when the loss is weighted (a thread's share of the batch).
#pragma once

#include <torch/torch.h>

namespace wb {

struct CrossEntropyResult {
    torch::Tensor loss;    // 0-dim fp32, differentiable with respect to the logits
    torch::Tensor argmax;  // [N] int64: each row's predicted class (not differentiable)
};

// logits [N, C] fp32 on the CPU, targets [N] int64 in [0, C). Other inputs: ATen's cross_entropy and argmax.
CrossEntropyResult crossEntropyWithArgmax(const torch::Tensor& logits, const torch::Tensor& targets);

}  // namespace wb
