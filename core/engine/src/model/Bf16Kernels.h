// Matrix products in bf16 with fp32 accumulation, for CPUs with AVX512_BF16 (AMD Zen 4, Intel Cooper Lake
// and Sapphire Rapids). Their vdpbf16ps multiplies 32 bf16 pairs and adds them into 16 fp32 sums per
// instruction: twice the multiply-adds of an fp32 FMA of the same width. Operands are fp32 in memory (the
// model's master weights and activations stay fp32) and are rounded to bf16 (nearest even) when packed; every
// sum is fp32. No torch here; available() says whether this CPU can run them. Where the CPU also has AMX
// tiles (Intel Sapphire Rapids and later), the products run on them instead (model/Bf16Amx.h): the same
// operands, layouts and fp32 sums.
//
// Layouts. A right-hand side B [k, n] is packed once into panels of 32 columns; within a panel, row pair q
// holds, column by column, (B[2q, j], B[2q+1, j]) as two bf16 (an odd k is padded with a zero row). A
// left-hand side is converted per block of rows to bf16 rows with an even length, so that each (A[r, 2q],
// A[r, 2q+1]) pair is one 32-bit word the kernel broadcasts.
#pragma once

#include <cstdint>

#include "model/ColumnPart.h"

namespace wb::bf16kernels {

// This CPU has AVX512F, AVX512BW, AVX512VL and AVX512_BF16.
bool available();

// Number of uint16 elements of B [k, n] packed.
std::int64_t packedSize(std::int64_t k, std::int64_t n);
// Panels [p0, p1) of B packed, where B's element (kk, j) is b[kk * strideK + j * strideN]; a caller packs
// all panels (0, panelCount(n)) or splits them over threads.
std::int64_t panelCount(std::int64_t n);
void packPanels(const float* b, std::int64_t strideK, std::int64_t strideN, std::int64_t k, std::int64_t n,
                std::int64_t p0, std::int64_t p1, std::uint16_t* packed);

// Rows [firstRow, firstRow + count) of a row-major B [k, n] packed, from `rows` (B's row firstRow + i at
// rows + i * ld), into all of B's panels: a caller packs B a few rows at a time while it computes them.
// firstRow is even; count is even unless these rows end B (an odd k's last row is paired with zeros).
void packRows(const float* rows, std::int64_t ld, std::int64_t firstRow, std::int64_t count, std::int64_t k,
              std::int64_t n, std::uint16_t* packed);

// The same from row pairs already converted and interleaved (lstmkernels::backwardPairsBf16): pair i's n
// words (row firstRow + 2i's bf16 and row firstRow + 2i + 1's, column by column) at pairs + i * ld, for an
// even count of rows from an even firstRow. A 64-byte aligned packed is written around the cache (for a B
// read back much later).
void packPairRows(const std::uint32_t* pairs, std::int64_t ld, std::int64_t firstRow, std::int64_t count,
                  std::int64_t k, std::int64_t n, std::uint16_t* packed);

// One term of a sum of products: rows of A (fp32, row-major, leading dimension lda, k columns) times a packed
// B with k rows. With halves, A's rows are already bf16 there (row-major, lda and k even) and a is not read.
struct Operand {
    const float* a;
    std::int64_t lda;
    const std::uint16_t* packed;
    std::int64_t k;
    const std::uint16_t* halves = nullptr;
};

// Rows [r0, r1) of C = bias + sum over the count operands of A_i B_i (bias: n floats or null); with
// accumulate, C += that instead. C is fp32, row-major, leading dimension ldc. The recurrence's per-step
// product, where the k of each operand is small (at most a few thousand).
void gemmPackedRows(const Operand* ops, int count, const float* bias, float* c, std::int64_t ldc,
                    std::int64_t r0, std::int64_t r1, std::int64_t n, bool accumulate);

// Rows [m0, m1) of C = bias + A B for a large k (bias: n floats or null; with accumulate, C += that): A's
// element (r, kk) is a[r * rowStride + kk * colStride] (either stride may be 1: a transposed view needs no
// copy), B packed with k rows. Blocked over k so that, for a B a few hundred columns wide, a block of B stays
// in the core's L2 cache while the rows pass over it.
void gemmRows(const float* a, std::int64_t rowStride, std::int64_t colStride, const std::uint16_t* packed,
              std::int64_t k, std::int64_t n, const float* bias, float* c, std::int64_t ldc, std::int64_t m0,
              std::int64_t m1, bool accumulate);

// The LSTM's weight gradients, [x_t, h_{t-1}]^T dG over all steps: rows [m0, m1) of C = A B, A's rows
// stacked from parts (model/ColumnPart.h, part 0's rows first) and B packed with k rows. Blocked over k with
// the rows of every part per block, so that each block of B is read from memory once, not once per part.
void gemmColumnParts(const ColumnPart* parts, int count, const std::uint16_t* packed, std::int64_t k,
                     std::int64_t n, float* c, std::int64_t ldc, std::int64_t m0, std::int64_t m1);

// Generation's matrix-vector products: rows [r0, r1) of y += W x, W row-major [rows, k] in bf16 and x
// already converted to bf16 (k values). Each vdpbf16ps takes 32 weights of a row: the arithmetic a token
// needs is then small next to reading the weights, where fp16 weights spend most of it converting.
void gemvRows(const std::uint16_t* w, const std::uint16_t* x, float* y, std::int64_t r0, std::int64_t r1,
              std::int64_t k);
// dst[i] = bf16(src[i]) for i < n (nearest even; vectorised where the kernels run).
void toBf16(const float* src, std::uint16_t* dst, std::int64_t n);

// fp32 to bf16, round to nearest even (what the kernels do to every operand); NaN stays NaN.
std::uint16_t toBf16(float x);
float fromBf16(std::uint16_t x);

}  // namespace wb::bf16kernels
