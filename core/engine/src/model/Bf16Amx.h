// The bf16 products on AMX tiles (Intel Sapphire Rapids and later Xeons), for Bf16Kernels.cpp: the same
// operands in the same layouts as its AVX512_BF16 kernel, the same fp32 sums. One TDPBF16PS multiplies a
// 16 x 32 bf16 tile by a 32 x 16 one into 16 x 16 fp32 sums: 8,192 multiply-adds, 16 times what one
// vdpbf16ps does. A B tile is 16 row pairs of 16 columns, the pair-interleaved rows the packing already
// writes (Bf16Kernels.h, "Layouts"), so the packed panels are read as they are; an A tile is 16 rows of 16
// pairs, the converted rows. Not part of Bf16Kernels.h's interface.
#pragma once

#include <cstdint>

namespace wb::bf16kernels::amx {

// This CPU has AMX-TILE and AMX-BF16, Linux let this process use the tiles (arch_prctl, asked once), the
// CPU cap (model/CpuCapability.h) allows AVX-512, and LSTM_WORKBENCH_AMX is not `off` (for side-by-side
// measurements against the AVX512_BF16 kernel).
bool usable();

// Rows of C a tile holds, and the most rows one call of rowBlock takes: two tiles' worth when every term's
// pair count is whole tiles (takesWide), so that each B tile loaded serves 32 rows, not 16 (the tiles compute
// faster than L2 delivers B: loading B is what a product on them waits for).
constexpr int kTileRows = 16;
constexpr int kWideRows = 32;

// One term of a sum of products: A in bf16 pairs, row r's pair q at rows[r * stride + q], times B packed
// (panel 0 at this term's first pair; panels panelStride uint16 apart) over `pairs` pairs.
struct Term {
    const std::uint32_t* rows;
    std::int64_t stride;
    const std::uint16_t* packed;
    std::int64_t panelStride;
    std::int64_t pairs;
};

// Whether rowBlock takes these terms: their pair counts leave at most one distinct non-zero remainder of 16
// (the remainder's tiles are shaped once per call, from the eight tile registers).
bool takes(const Term* terms, int count);
// Whether rowBlock takes these terms for up to kWideRows rows: every pair count a multiple of 16.
bool takesWide(const Term* terms, int count);

// Rows [0, rows) (rows <= kTileRows, or kWideRows where takesWide) and panels [p0, p1) of C = bias + sum over
// the terms of A_t B_t, or C
// += that with accumulate. c and bias (null, or padded to whole panels) are at panel 0; columns at and past
// n are not written. The tiles stay configured for the next call on this thread, until a TileScope ends.
void rowBlock(const Term* terms, int count, int rows, std::int64_t p0, std::int64_t p1, const float* bias,
              float* c, std::int64_t ldc, std::int64_t n, bool accumulate);

// Releases the tiles when a product ends (TILERELEASE), so that a thread that no longer computes on them
// does not carry their 8 KB of state through every context switch.
class TileScope {
public:
    TileScope() = default;
    TileScope(const TileScope&) = delete;
    TileScope& operator=(const TileScope&) = delete;
    ~TileScope();
};

}  // namespace wb::bf16kernels::amx
