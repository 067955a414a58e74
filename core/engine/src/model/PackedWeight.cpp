// The fused LSTM's packed weights and products (see PackedWeight.h).
#include "model/PackedWeight.h"

#include "EnvSwitch.h"
#include "model/Bf16Kernels.h"
#include "model/Bf16Ops.h"
#include "model/LstmKernels.h"

#include <ATen/Parallel.h>

#include <algorithm>

namespace wb {

PackedWeight::PackedWeight(const torch::Tensor& b, bool bf16) : k(b.size(0)), n(b.size(1)), bf16(bf16) {
    if (bf16) {
        halves = packBf16(b);
        return;
    }
    floats.reset(new float[static_cast<std::size_t>(lstmkernels::packedPanelsSize(k, n))]);
    lstmkernels::packPanels(b.data_ptr<float>(), b.stride(0), b.stride(1), k, n, floats.get());
}

std::int64_t PackedWeight::bytes(std::int64_t k, std::int64_t n, bool bf16) {
    return bf16 ? bf16kernels::packedSize(k, n) * 2 : lstmkernels::packedPanelsSize(k, n) * 4;
}

void packedProduct(const PackedWeight* const* weights, const float* const* a, const std::int64_t* lda,
                   int count, const float* bias, float* c, std::int64_t ldc, std::int64_t r0, std::int64_t r1,
                   bool accumulate) {
    const std::int64_t n = weights[0]->n;
    if (weights[0]->bf16) {
        bf16kernels::Operand ops[2];
        for (int i = 0; i < count; ++i) ops[i] = {a[i], lda[i], weights[i]->halves.data(), weights[i]->k};
        bf16kernels::gemmPackedRows(ops, count, bias, c, ldc, r0, r1, n, accumulate);
    } else {
        lstmkernels::PackedOperand ops[2];
        for (int i = 0; i < count; ++i) ops[i] = {a[i], lda[i], weights[i]->floats.get(), weights[i]->k};
        lstmkernels::gemmPackedRows(ops, count, bias, c, ldc, r0, r1, n, accumulate);
    }
}

bool inputsFirst(std::int64_t in, std::int64_t h, bool bf16, bool fp32Gates) {
    static const bool off = switchedOff("LSTM_WORKBENCH_INPUTS_FIRST");
    constexpr std::int64_t kL2Bytes = 2 << 20;
    return fp32Gates && !off &&
           PackedWeight::bytes(in, 4 * h, bf16) + PackedWeight::bytes(h, 4 * h, bf16) > kL2Bytes;
}

void projectInputs(const torch::Tensor& x2d, const torch::Tensor& wIh, const PackedWeight* packed,
                   const torch::Tensor& bias, torch::Tensor& gates2d) {
    if (!packed || !packed->bf16) {
        torch::addmm_out(gates2d, bias, x2d, wIh.t());
        return;
    }
    const PackedWeight& ih = *packed;
    const std::int64_t rows = x2d.size(0), in = x2d.size(1), n = ih.n;
    const float* xPtr = x2d.data_ptr<float>();
    const float* biasPtr = bias.data_ptr<float>();
    float* out = gates2d.data_ptr<float>();
    // Rows per parallel chunk: the AMX tiles' wide block (the AVX512_BF16 kernel takes it as 11 + 11 + 10).
    constexpr std::int64_t kBlock = 32;
    at::parallel_for(0, (rows + kBlock - 1) / kBlock, 1, [&](std::int64_t b0, std::int64_t b1) {
        bf16kernels::gemmRows(xPtr, in, 1, ih.halves.data(), in, n, biasPtr, out, n, b0 * kBlock,
                              std::min(rows, b1 * kBlock), /*accumulate=*/false);
    });
}

}  // namespace wb
