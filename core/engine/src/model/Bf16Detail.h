// What the bf16 products (Bf16Kernels.cpp) and their packing (Bf16Packing.cpp) share: the packed layout's
// panel width and the conversion of A's rows. Not part of Bf16Kernels.h's interface.
#pragma once

#include <cstdint>

namespace wb::bf16kernels::detail {

constexpr std::int64_t kCols = 32;  // columns per packed panel: two registers of 16 fp32 sums

inline std::int64_t pairsOf(std::int64_t k) { return (k + 1) / 2; }

// rows rows, columns [kk0, kk1) of A (row r, column kk at a[r * rowStride + kk * colStride]) to bf16 pairs,
// row r's at out + r * outStride; the pair count is pairsOf(kk1 - kk0) and an odd tail is padded with zero.
void convertRows(const float* a, std::int64_t rowStride, std::int64_t colStride, int rows, std::int64_t kk0,
                 std::int64_t kk1, std::uint32_t* out, std::int64_t outStride);

}  // namespace wb::bf16kernels::detail
