// The fused LSTM's per-step gate kernels (forward activations + cell update, and the gate gradients), on
// plain float rows of [B, 4H] gates and [B, H] states. No torch here: this file is compiled with
// -fno-trapping-math so that GCC vectorises the branch-free exp/sigmoid/tanh (see core/CMakeLists.txt).
#pragma once

#include <cstdint>
#include <vector>

#include "model/ColumnPart.h"

namespace wb::lstmkernels {

// Rows [b0, b1): gates holds the pre-activations (x W_ih^T + b + h W_hh^T), gate order i, f, g, o, and is
// overwritten with the activations, which the backward needs. Writes c_t, tanh(c_t) and h_t = o * tanh(c_t).
void forwardRows(float* gates, const float* cPrev, float* cNext, float* hNext, float* tanhC, std::int64_t b0,
                 std::int64_t b1, std::int64_t h);

// Rows [b0, b1) of one step's backward: dh = dOut + dhRec; dc enters as the gradient from the next step and
// leaves as the one for the previous step; dGates receives (di, df, dg, do) of the pre-activations. Row b of
// dOut is at dOut + b * dOutStride (0: every row reads the same one); the other arrays are contiguous rows.
// stepBack, when not 0, is how many floats before cPrev and tanhC (and 4x that before act) the step after
// this one in the backward starts: its rows are fetched into the cache while this step computes (the
// backward walks time in reverse over tens of megabytes, and each step's rows cross many pages, where the
// hardware's prefetcher starts over).
void backwardRows(const float* act, const float* cPrev, const float* tanhC, const float* dOut,
                  std::int64_t dOutStride, const float* dhRec, float* dc, float* dGates, std::int64_t b0,
                  std::int64_t b1, std::int64_t h, std::int64_t stepBack = 0);
// The same two steps for a CPU bf16 scope, on CPUs with AVX-512 and AVX512_BF16 (bf16GateKernelsAvailable;
// LSTM_WORKBENCH_AVX512_GATES=off turns them off with the other AVX-512 gate kernels). Both take rows from
// row 0 of every pointer:
// - forwardRowsBf16 is forwardRows, but the activated gates go to `saved` folded into bf16 (below) and gates
//   is left as it was;
// - backwardPairsBf16 is backwardRows for an even number of rows, from gates saved so, and writes no fp32
//   gate gradients: dGateRows gets each row in bf16 (row-major [rows, 4H]: the left-hand side of the step's
//   products), dGatePairs each row pair interleaved (pair q's word j = (row 2q's j, row 2q + 1's j): a row
//   pair of the weight gradients' packed operand, bf16kernels::packPairRows), and sum[j] += the rows' fp32
//   gradients in row order (the bias gradient). The bf16 words are rounded to nearest even, as the bf16
//   products' own conversions round.
// Folded: the backward needs a sigmoid gate's derivative s (1 - s) and the tanh gate's 1 - g^2, and a gate
// near saturation rounded to bf16 loses them (sigmoid(6) = 0.9975 becomes 0.9961 or 1 in bf16's steps of
// 2^-8 there: 1 - s is 0.0039 or 0, not 0.0025). So a sigmoid gate is kept as v = sigmoid(-|z|), the smaller
// of s and 1 - s, in bf16 with the pre-activation z's sign bit (s = v where z < 0, else 1 - v; s (1 - s) =
// v (1 - v)), and the tanh gate, the sigmoid g = 2 sigmoid(2z) - 1, as v = sigmoid(-2|z|) with z's sign
// (|g| = 1 - 2 v, 1 - g^2 = 4 v (1 - v)). Over |z| <= 16 both derivatives come back within 0.4 % of the exact
// ones, better than from fp32 gates in the tails, and s within bf16's 0.38 %; g near 0 within an absolute
// 2^-9, bf16's step at v = 1/2 (bench/folded_gate_error.py, docs/benchmarks.md, "Folded bf16 gates").
bool bf16GateKernelsAvailable();
void forwardRowsBf16(float* gates, const float* cPrev, float* cNext, float* hNext, float* tanhC,
                     std::uint16_t* saved, std::int64_t rows, std::int64_t h);
void backwardPairsBf16(const std::uint16_t* act, const float* cPrev, const float* tanhC, const float* dOut,
                       std::int64_t dOutStride, const float* dhRec, float* dc, std::uint16_t* dGateRows,
                       std::uint32_t* dGatePairs, float* sum, std::int64_t rows, std::int64_t h,
                       std::int64_t stepBack = 0);

// sum[j] += rows[b * width + j] for the rows [b0, b1), in row order.
void addRows(const float* rows, std::int64_t b0, std::int64_t b1, std::int64_t width, float* sum);

}  // namespace wb::lstmkernels

namespace wb::lstmkernels {

// Half-precision weights for token-by-token generation, which is memory-bound: each token reads every weight
// once, so storing them as IEEE fp16 halves the bytes moved. Needs AVX2, FMA and F16C (every x86-64 CPU since
// 2013); halfKernelsAvailable() says whether this CPU has them. In model/HalfKernels.cpp.
bool halfKernelsAvailable();
// dst[i] = fp16(src[i]), rounded to nearest.
void toHalf(const float* src, std::uint16_t* dst, std::int64_t n);
// Rows [r0, r1) of y += W x, W row-major [rows, k] in fp16, x and y in fp32.
void gemvHalfRows(const std::uint16_t* w, const float* x, float* y, std::int64_t r0, std::int64_t r1,
                  std::int64_t k);

}  // namespace wb::lstmkernels

namespace wb::lstmkernels {

// The per-step products of the recurrence, C[B, n] = bias + A[B, k] B[k, n] (+ a second such product), with
// B packed once per layer call instead of once per step as BLAS's gemm does (for imdb's [64,100] x
// [100,400] that packing was ~10 % of a training step), and called on a block of rows so that each thread
// can run the whole recurrence of its own sequences without a barrier per step.
//
// Size in floats of B packed; B's element (kk, j) is b[kk * strideK + j * strideN].
std::int64_t packedPanelsSize(std::int64_t k, std::int64_t n);
void packPanels(const float* b, std::int64_t strideK, std::int64_t strideN, std::int64_t k, std::int64_t n,
                float* packed);
// One term of a sum of products: rows of A (row-major, leading dimension lda, k columns) times B packed by
// packPanels (k rows).
struct PackedOperand {
    const float* a;
    std::int64_t lda;
    const float* packed;
    std::int64_t k;
};
// Rows [r0, r1) of C = bias + sum over the count operands of A_i B_i, where bias (n floats, or null) is added
// to every row; with accumulate C += that instead. C is row-major with leading dimension ldc.
void gemmPackedRows(const PackedOperand* ops, int count, const float* bias, float* c, std::int64_t ldc,
                    std::int64_t r0, std::int64_t r1, std::int64_t n, bool accumulate);

// The instruction sets the packed product has a kernel for. It runs on the widest this CPU has (AVX-512 with
// full-width units does twice AVX2's work per instruction), or on the one LSTM_WORKBENCH_FP32_KERNELS names
// (avx2, portable), read once, for side-by-side measurements.
enum class PackedIsa { Portable, Avx2, Avx512 };
std::vector<PackedIsa> packedIsas();  // those this CPU can run, narrowest first
PackedIsa packedIsa();                // the one gemmPackedRows uses
const char* packedIsaName(PackedIsa isa);
void gemmPackedRows(const PackedOperand* ops, int count, const float* bias, float* c, std::int64_t ldc,
                    std::int64_t r0, std::int64_t r1, std::int64_t n, bool accumulate, PackedIsa isa);

// The fp32 weight gradients' share of a few steps (model/WeightGradKernels.cpp): C[m, n] += A B, where A is
// `segments` groups of segRows columns each (one group a step), each group's m rows stacked from its `count`
// parts (parts[j * count + i]: model/ColumnPart.h, each part's `a` only, no head; part i's rows and ld the
// same in every group), and B [segments * segRows, n] is row-major with leading dimension ldb, group j's rows
// from row j * segRows. C is row-major with leading dimension ldc. The kernel is AVX-512's (the backward
// calls this only there: GradSink in FusedLstm.cpp); any other isa runs a plain loop, for tests.
void addColumnPartsProduct(const ColumnPart* parts, int count, int segments, std::int64_t segRows,
                           const float* b, std::int64_t ldb, std::int64_t n, float* c, std::int64_t ldc,
                           PackedIsa isa);
void addColumnPartsProduct(const ColumnPart* parts, int count, int segments, std::int64_t segRows,
                           const float* b, std::int64_t ldb, std::int64_t n, float* c,
                           std::int64_t ldc);  // on packedIsa()

}  // namespace wb::lstmkernels
