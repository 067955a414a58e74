// The per-step products of the fused LSTM's recurrence against a packed right-hand side (see
// LstmKernels.h): a portable kernel, and AVX2 and AVX-512 ones compiled by function attribute and chosen at
// run time, so the binary still runs on any x86-64.
#include "model/LstmKernels.h"

#include "EnvSwitch.h"
#include "model/CpuCapability.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace wb::lstmkernels {

namespace {

constexpr std::int64_t kPanel = 16;  // columns per packed panel: two AVX registers

std::int64_t panelsOf(std::int64_t n) { return (n + kPanel - 1) / kPanel; }

// Every loop over r below is unrolled: an accumulator indexed at run time lives in memory, and its
// stores (12 per step of k) made the kernel store-bound at a third of the FMA rate.
#define WB_UNROLL_ROWS _Pragma("GCC unroll 8")

// R rows of one panel of C (its 16 columns, of which `columns` are real) = bias + the sum over the
// operands of A times the operand's panel (accumulate: C += that). The 2R accumulators stay in registers
// (R = 6: 12 of the 16); each step of k loads the panel's 16 values once for all R rows.
template <int R>
__attribute__((target("avx2,fma"))) inline __attribute__((always_inline)) void panelKernel(
    const PackedOperand* ops, int count, std::int64_t panelIndex, std::int64_t row, const float* bias16,
    float* c, std::int64_t ldc, std::int64_t columns, bool accumulate, bool prefetchNext = false) {
    __m256 acc[R][2];
    const __m256 bias0 = _mm256_load_ps(bias16), bias1 = _mm256_load_ps(bias16 + 8);
    WB_UNROLL_ROWS
    for (int r = 0; r < R; ++r) {
        acc[r][0] = bias0;
        acc[r][1] = bias1;
    }
    for (int o = 0; o < count; ++o) {
        const float* a = ops[o].a + row * ops[o].lda;
        const std::int64_t lda = ops[o].lda, k = ops[o].k;
        const float* panel = ops[o].packed + panelIndex * k * kPanel;
        for (std::int64_t kk = 0; kk < k; ++kk) {
            // The next panel follows this one in the packing: one of its lines into L2 per step of k.
            if (prefetchNext)
                _mm_prefetch(reinterpret_cast<const char*>(panel + (k + kk) * kPanel), _MM_HINT_T1);
            const __m256 b0 = _mm256_loadu_ps(panel + kk * kPanel);
            const __m256 b1 = _mm256_loadu_ps(panel + kk * kPanel + 8);
            WB_UNROLL_ROWS
            for (int r = 0; r < R; ++r) {
                const __m256 av = _mm256_broadcast_ss(a + r * lda + kk);
                acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
                acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
            }
        }
    }
    WB_UNROLL_ROWS
    for (int r = 0; r < R; ++r) {
        float* out = c + (row + r) * ldc + panelIndex * kPanel;
        if (columns == kPanel) {
            if (accumulate) {
                acc[r][0] = _mm256_add_ps(acc[r][0], _mm256_loadu_ps(out));
                acc[r][1] = _mm256_add_ps(acc[r][1], _mm256_loadu_ps(out + 8));
            }
            _mm256_storeu_ps(out, acc[r][0]);
            _mm256_storeu_ps(out + 8, acc[r][1]);
        } else {  // the last panel of a width that is not a multiple of 16
            alignas(32) float part[kPanel];
            _mm256_store_ps(part, acc[r][0]);
            _mm256_store_ps(part + 8, acc[r][1]);
            for (std::int64_t j = 0; j < columns; ++j) out[j] = accumulate ? out[j] + part[j] : part[j];
        }
    }
}

// The bias of one panel, zero-padded to 16 (zeros without a bias).
void panelBias(const float* bias, std::int64_t p, std::int64_t columns, float* bias16) {
    for (std::int64_t j = 0; j < kPanel; ++j) bias16[j] = bias && j < columns ? bias[p * kPanel + j] : 0.0f;
}

__attribute__((target("avx2,fma"))) void gemmPackedAvx2(const PackedOperand* ops, int count,
                                                        const float* bias, float* c, std::int64_t ldc,
                                                        std::int64_t r0, std::int64_t r1, std::int64_t n,
                                                        bool accumulate) {
    for (std::int64_t p = 0; p < panelsOf(n); ++p) {
        const std::int64_t columns = std::min(kPanel, n - p * kPanel);
        alignas(32) float bias16[kPanel];
        panelBias(bias, p, columns, bias16);
        std::int64_t r = r0;
        // The first block of rows fetches the next panel into L2 while it computes: the weights of a step
        // (2 MB at the default experiment's H = 256) come from the last-level cache, and a two-thread share
        // of 16 rows has only three blocks to spread that fetch over. Measured on an AMD Zen 3
        // (docs/benchmarks.md, "A prefetch of the next panel"); LSTM_WORKBENCH_PANEL_PREFETCH=off for an A/B.
        static const bool prefetch = !switchedOff("LSTM_WORKBENCH_PANEL_PREFETCH");
        const bool prefetchNext = prefetch && p + 1 < panelsOf(n);
        for (; r + 6 <= r1; r += 6)
            panelKernel<6>(ops, count, p, r, bias16, c, ldc, columns, accumulate, prefetchNext && r == r0);
        switch (r1 - r) {
            case 5:
                panelKernel<5>(ops, count, p, r, bias16, c, ldc, columns, accumulate);
                break;
            case 4:
                panelKernel<4>(ops, count, p, r, bias16, c, ldc, columns, accumulate);
                break;
            case 3:
                panelKernel<3>(ops, count, p, r, bias16, c, ldc, columns, accumulate);
                break;
            case 2:
                panelKernel<2>(ops, count, p, r, bias16, c, ldc, columns, accumulate);
                break;
            case 1:
                panelKernel<1>(ops, count, p, r, bias16, c, ldc, columns, accumulate);
                break;
            default:
                break;
        }
    }
}

// The AVX-512 kernel works on two panels at once: R rows x 32 columns in 2R zmm accumulators (R = 12: 24
// of the 32 registers), so each broadcast of A feeds two 16-wide FMAs, as the AVX2 kernel's feeds two 8-wide
// ones. The packing stays the same 16-column panels (panel p + 1 is a second stream beside panel p). On a
// CPU with full-width AVX-512 units (AMD Zen 5, Intel server cores) an instruction does twice the AVX2 work.
#define WB_AVX512 __attribute__((target("avx512f,avx512vl,fma")))
#define WB_UNROLL_ROWS12 _Pragma("GCC unroll 12")

// R rows of one or two panels' accumulators into C (from its first row and panel; accumulate: added to what
// C holds), the columns beyond n masked off.
template <int R, bool Two>
WB_AVX512 inline __attribute__((always_inline)) void storeRows(__m512 (&acc)[R][2], float* c,
                                                               std::int64_t ldc, __mmask16 mask0,
                                                               __mmask16 mask1, bool accumulate) {
    WB_UNROLL_ROWS12
    for (int r = 0; r < R; ++r) {
        float* out = c + r * ldc;
        if (accumulate) acc[r][0] = _mm512_add_ps(acc[r][0], _mm512_maskz_loadu_ps(mask0, out));
        _mm512_mask_storeu_ps(out, mask0, acc[r][0]);
        if (Two) {
            if (accumulate) acc[r][1] = _mm512_add_ps(acc[r][1], _mm512_maskz_loadu_ps(mask1, out + kPanel));
            _mm512_mask_storeu_ps(out + kPanel, mask1, acc[r][1]);
        }
    }
}

template <int R, bool Two>
WB_AVX512 inline __attribute__((always_inline)) void panelPairKernel(
    const PackedOperand* ops, int count, std::int64_t panelIndex, std::int64_t row, const float* bias32,
    float* c, std::int64_t ldc, __mmask16 mask0, __mmask16 mask1, bool accumulate) {
    __m512 acc[R][2];
    const __m512 bias0 = _mm512_loadu_ps(bias32), bias1 = _mm512_loadu_ps(bias32 + 16);
    WB_UNROLL_ROWS12
    for (int r = 0; r < R; ++r) {
        acc[r][0] = bias0;
        acc[r][1] = bias1;
    }
    for (int o = 0; o < count; ++o) {
        const float* a = ops[o].a + row * ops[o].lda;
        const std::int64_t lda = ops[o].lda, k = ops[o].k;
        const float* panel0 = ops[o].packed + panelIndex * k * kPanel;
        const float* panel1 = panel0 + k * kPanel;
        for (std::int64_t kk = 0; kk < k; ++kk) {
            const __m512 b0 = _mm512_loadu_ps(panel0 + kk * kPanel);
            const __m512 b1 = Two ? _mm512_loadu_ps(panel1 + kk * kPanel) : b0;
            WB_UNROLL_ROWS12
            for (int r = 0; r < R; ++r) {
                const __m512 av = _mm512_set1_ps(a[r * lda + kk]);
                acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
                if (Two) acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
            }
        }
    }
    storeRows<R, Two>(acc, c + row * ldc + panelIndex * kPanel, ldc, mask0, mask1, accumulate);
}

// R rows (1..12, a run-time count) of one or two panels: the kernel compiled for that R, found by recursion
// (a table of pointers would defeat always_inline).
template <bool Two, int R = 12>
WB_AVX512 inline __attribute__((always_inline)) void panelRowsAvx512(int rows, const PackedOperand* ops,
                                                                     int count, std::int64_t p,
                                                                     std::int64_t row, const float* bias32,
                                                                     float* c, std::int64_t ldc, __mmask16 m0,
                                                                     __mmask16 m1, bool accumulate) {
    if (rows == R) {
        panelPairKernel<R, Two>(ops, count, p, row, bias32, c, ldc, m0, m1, accumulate);
    } else if constexpr (R > 1) {
        panelRowsAvx512<Two, R - 1>(rows, ops, count, p, row, bias32, c, ldc, m0, m1, accumulate);
    }
}

__mmask16 columnMask(std::int64_t columns) {
    return columns >= kPanel ? static_cast<__mmask16>(0xFFFF)
                             : static_cast<__mmask16>((1u << std::max<std::int64_t>(columns, 0)) - 1);
}

WB_AVX512 void gemmPackedAvx512(const PackedOperand* ops, int count, const float* bias, float* c,
                                std::int64_t ldc, std::int64_t r0, std::int64_t r1, std::int64_t n,
                                bool accumulate) {
    constexpr std::int64_t kRows = 12;
    const std::int64_t panels = panelsOf(n), rows = r1 - r0, blocks = (rows + kRows - 1) / kRows;
    if (rows <= 0) return;
    for (std::int64_t p = 0; p < panels; p += 2) {
        const bool two = p + 1 < panels;
        alignas(64) float bias32[2 * kPanel];
        panelBias(bias, p, std::min(kPanel, n - p * kPanel), bias32);
        if (two) panelBias(bias, p + 1, std::min(kPanel, n - (p + 1) * kPanel), bias32 + kPanel);
        const __mmask16 m0 = columnMask(n - p * kPanel), m1 = two ? columnMask(n - (p + 1) * kPanel) : 0;
        // Blocks of nearly equal size (64 rows as 11+11+11+11+10+10, not 12*5+4).
        for (std::int64_t i = 0, row = r0; i < blocks; ++i) {
            const int size = static_cast<int>(rows / blocks + (i < rows % blocks ? 1 : 0));
            if (two)
                panelRowsAvx512<true>(size, ops, count, p, row, bias32, c, ldc, m0, m1, accumulate);
            else
                panelRowsAvx512<false>(size, ops, count, p, row, bias32, c, ldc, m0, m1, accumulate);
            row += size;
        }
    }
}

void gemmPackedPortable(const PackedOperand* ops, int count, const float* bias, float* c, std::int64_t ldc,
                        std::int64_t r0, std::int64_t r1, std::int64_t n, bool accumulate) {
    for (std::int64_t r = r0; r < r1; ++r) {
        for (std::int64_t p = 0; p < panelsOf(n); ++p) {
            const std::int64_t columns = std::min(kPanel, n - p * kPanel);
            float part[kPanel];
            panelBias(bias, p, columns, part);
            for (int o = 0; o < count; ++o) {
                const float* panel = ops[o].packed + p * ops[o].k * kPanel;
                const float* a = ops[o].a + r * ops[o].lda;
                for (std::int64_t kk = 0; kk < ops[o].k; ++kk)
                    for (std::int64_t j = 0; j < kPanel; ++j) part[j] += a[kk] * panel[kk * kPanel + j];
            }
            float* out = c + r * ldc + p * kPanel;
            for (std::int64_t j = 0; j < columns; ++j) out[j] = accumulate ? out[j] + part[j] : part[j];
        }
    }
}

}  // namespace

std::int64_t packedPanelsSize(std::int64_t k, std::int64_t n) { return panelsOf(n) * k * kPanel; }

// With rows contiguous (strideN 1: the backward's W_hh and W_ih) a full panel row is 16 consecutive floats,
// copied in a loop GCC vectorises (workbench_kernel_bench's "pack W_hh (backward)": 0.7x the time of the
// general loop at H = 512). Otherwise (the forward's W^T, a transpose) row by row of the panel: reading each
// of its 16 columns in order instead, written 64 bytes apart, took 1.4x the time. Columns past n are zero.
void packPanels(const float* b, std::int64_t strideK, std::int64_t strideN, std::int64_t k, std::int64_t n,
                float* packed) {
    for (std::int64_t p = 0; p < panelsOf(n); ++p) {
        const std::int64_t columns = std::min(kPanel, n - p * kPanel);
        const float* from = b + p * kPanel * strideN;
        float* to = packed + p * k * kPanel;
        if (strideN == 1 && columns == kPanel) {
            for (std::int64_t kk = 0; kk < k; ++kk)
                for (std::int64_t j = 0; j < kPanel; ++j) to[kk * kPanel + j] = from[kk * strideK + j];
            continue;
        }
        for (std::int64_t kk = 0; kk < k; ++kk)
            for (std::int64_t j = 0; j < kPanel; ++j)
                to[kk * kPanel + j] = j < columns ? from[kk * strideK + j * strideN] : 0.0f;
    }
}

std::vector<PackedIsa> packedIsas() {
    __builtin_cpu_init();
    std::vector<PackedIsa> out{PackedIsa::Portable};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        cpuCapabilityAllows(CpuLevel::Avx2))
        out.push_back(PackedIsa::Avx2);
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("fma") && cpuCapabilityAllows(CpuLevel::Avx512))
        out.push_back(PackedIsa::Avx512);
    return out;
}

PackedIsa packedIsa() {
    static const PackedIsa chosen = [] {
        const auto isas = packedIsas();
        const char* wanted = std::getenv("LSTM_WORKBENCH_FP32_KERNELS");
        if (wanted && std::strcmp(wanted, "avx2") == 0 &&
            std::find(isas.begin(), isas.end(), PackedIsa::Avx2) != isas.end())
            return PackedIsa::Avx2;
        if (wanted && std::strcmp(wanted, "portable") == 0) return PackedIsa::Portable;
        return isas.back();
    }();
    return chosen;
}

const char* packedIsaName(PackedIsa isa) {
    switch (isa) {
        case PackedIsa::Avx512:
            return "avx512";
        case PackedIsa::Avx2:
            return "avx2";
        case PackedIsa::Portable:
            break;
    }
    return "portable";
}

void gemmPackedRows(const PackedOperand* ops, int count, const float* bias, float* c, std::int64_t ldc,
                    std::int64_t r0, std::int64_t r1, std::int64_t n, bool accumulate, PackedIsa isa) {
    switch (isa) {
        case PackedIsa::Avx512:
            gemmPackedAvx512(ops, count, bias, c, ldc, r0, r1, n, accumulate);
            break;
        case PackedIsa::Avx2:
            gemmPackedAvx2(ops, count, bias, c, ldc, r0, r1, n, accumulate);
            break;
        case PackedIsa::Portable:
            gemmPackedPortable(ops, count, bias, c, ldc, r0, r1, n, accumulate);
            break;
    }
}

void gemmPackedRows(const PackedOperand* ops, int count, const float* bias, float* c, std::int64_t ldc,
                    std::int64_t r0, std::int64_t r1, std::int64_t n, bool accumulate) {
    gemmPackedRows(ops, count, bias, c, ldc, r0, r1, n, accumulate, packedIsa());
}

}  // namespace wb::lstmkernels
