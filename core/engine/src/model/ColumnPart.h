// A left-hand side stacked from transposed parts, for the LSTM's weight gradients [x_t, h_{t-1}]^T dG over
// all steps (bf16kernels::gemmColumnParts) or a few steps at a time (lstmkernels::addColumnPartsProduct). No
// torch here.
#pragma once

#include <cstdint>

namespace wb {

// `rows` rows of A, each a column of a row-major matrix: element (r, kk) at head[r + kk * ld] for
// kk < headColumns (h0, for the first step), else at a[r + (kk - headColumns) * ld] (x, or the steps'
// outputs); headColumns is even.
struct ColumnPart {
    const float* a;
    const float* head;
    std::int64_t headColumns, ld, rows;
};

}  // namespace wb
