// LibTorch-facing bf16 products for CPU training (CPU bf16 scope, device/Autocast.h): fp32 tensors in and
// out, each product computed by model/Bf16Kernels with bf16 operands and fp32 sums. Callers check
// cpuBf16Active() first; the kernels need AVX512_BF16.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

namespace wb {

// b [k, n] (fp32, CPU, any strides) packed for bf16kernels, the panels split over the intra-op threads.
std::vector<std::uint16_t> packBf16(const torch::Tensor& b);

// a [m, k] times b [k, n], fp32 result. a may be a transposed view (no copy is made for it).
torch::Tensor mmBf16(const torch::Tensor& a, const torch::Tensor& b);

// y = x W^T + bias over the last dimension of x, forward and backward (dx = dy W, dW = dy^T x) in bf16.
torch::Tensor linearBf16(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias);

}  // namespace wb
