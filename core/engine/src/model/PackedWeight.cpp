// The fused LSTM's packed weights and products (see PackedWeight.h).
#include "model/PackedWeight.h"

#include "EnvSwitch.h"
#include "model/Bf16Kernels.h"
#include "model/Bf16Ops.h"
#include "model/LstmKernels.h"

#include <ATen/Parallel.h>

#include <algorithm>

#include <unistd.h>

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

// The packed recurrence (lstmkernels::gemmPackedRows) up to a hidden size where the simple kernel keeps up
// with BLAS; one sequence (generation) keeps its matrix-vector products. Measured side by side against the
// BLAS way (bench, 2-core machines): with the AVX2 kernel while W_hh^T fits a core's L2 (H <= 256: imdb 0.79x
// the time at 1 and 2 threads, charrnn 0.82x and 0.85x); with the AVX-512 kernel also at poems' H = 512
// (0.89x at 1 thread, 0.84x at 2: no BLAS call and no barrier per step). With the AVX2 kernel at H = 512 too
// where a core's L2 is 1 MiB or more (session 45, docs/benchmarks.md "The packed recurrence at poems' H = 512
// on AVX2"): BLAS packs the 4 MB W_hh again at every step, and on an Intel Xeon (48 KB L1, 2 MB L2 a core)
// the packed kernel held 87-96 % of the floor at that shape, poems 0.93x the time at two threads; on an AMD
// Zen 3 (32 KB L1, 512 KB L2) the kernel held 45-68 % there and projecting first with it was level with BLAS,
// so such a core keeps BLAS. LSTM_WORKBENCH_AVX2_PACKED_512=off keeps BLAS on any, =on takes the kernel on
// any, for an A/B. Larger H is not measured.
namespace {
std::int64_t l2BytesPerCore() {
    const long bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);  // 0 or -1 where the C library cannot tell
    return bytes > 0 ? bytes : 0;
}
}  // namespace

std::int64_t packedMaxHidden() {
    static const std::int64_t limit = [] {
        const auto isa = lstmkernels::packedIsa();
        const bool avx2At512 =
            isa == lstmkernels::PackedIsa::Avx2 && !switchedOff("LSTM_WORKBENCH_AVX2_PACKED_512") &&
            (l2BytesPerCore() >= (1 << 20) || switchedOn("LSTM_WORKBENCH_AVX2_PACKED_512"));
        return isa == lstmkernels::PackedIsa::Avx512 || avx2At512 ? 512 : 256;
    }();
    return limit;
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
