// The fused LSTM's packed way (model/FusedLstm.cpp): its weights packed once per layer call as the
// right-hand sides of the per-step products, those products, and the input projections of all steps at once
// where the weights outgrow L2. fp32 panels (model/LstmKernels.h) or bf16 ones in a CPU bf16 scope
// (model/Bf16Kernels.h, on AMX tiles where the CPU has them).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace wb {

// A weight as the right-hand side B [k, n] (a view: W^T for the forward, W for the backward) of the packed
// per-step products, packed once per layer call: fp32 panels, or bf16 ones in a CPU bf16 scope.
struct PackedWeight {
    PackedWeight(const torch::Tensor& b, bool bf16);
    // The bytes the packing of a [k, n] B takes.
    static std::int64_t bytes(std::int64_t k, std::int64_t n, bool bf16);
    std::int64_t k, n;
    bool bf16;
    // Not a std::vector: its resize would zero every byte (4 MB for poems' W) before the packing writes them.
    std::unique_ptr<float[]> floats;
    std::vector<std::uint16_t> halves;
};

// Rows [r0, r1) of C (leading dimension n of the weights) = bias + sum over the terms of A_i B_i (with
// accumulate, C += that), where A_i is row-major with leading dimension lda[i] and B_i is weights[i] (all
// fp32 or all bf16; at most two terms).
void packedProduct(const PackedWeight* const* weights, const float* const* a, const std::int64_t* lda,
                   int count, const float* bias, float* c, std::int64_t ldc, std::int64_t r0, std::int64_t r1,
                   bool accumulate = false);

// The largest hidden size the fused LSTM's packed recurrence takes in fp32 (above it, the BLAS way): by
// instruction set and, for AVX2, a core's L2 (PackedWeight.cpp says why).
std::int64_t packedMaxHidden();

// Whether the forward computes the input projections of all steps first, in one product, and each step only
// adds h_{t-1} W_hh^T: where the two packed weights together outgrow a core's L2 (poems' 2 x 4 MB in fp32,
// 2 x 2 MB in bf16), a step's kernel would read both from L3 for a thread's few rows (16 of poems' 32 at two
// threads), while one product over all steps' rows reads W_ih from L3 once. Only when the gates are kept in
// fp32 (training), which gives the projections a place to go. LSTM_WORKBENCH_INPUTS_FIRST=off keeps both
// terms in every step (for a side-by-side measurement).
bool inputsFirst(std::int64_t in, std::int64_t h, bool bf16, bool fp32Gates);

// gates [T * B, 4H] = bias + x W_ih^T for every step's rows, in one product (x: [T * B, in], contiguous): in
// fp32 LibTorch's product (ih may be null: W_ih is not packed then), in bf16 ours on ih.
void projectInputs(const torch::Tensor& x2d, const torch::Tensor& wIh, const PackedWeight* ih,
                   const torch::Tensor& bias, torch::Tensor& gates2d);

}  // namespace wb
