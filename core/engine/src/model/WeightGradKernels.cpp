// The fp32 weight gradients' product a few steps at a time (LstmKernels.h: addColumnPartsProduct): C += A B
// with A = [x_t; h_{t-1}]^T read in place (model/ColumnPart.h) and B those steps' gate gradients, as the gate
// kernel just wrote them. An AVX-512 kernel compiled by function attribute, and a portable loop.
//
// Why during the walk: the gate gradients of a few steps (a thread's rows x 4H each) are still in L2 when the
// backward adds their share to the thread's weight-gradient sums, so those of all steps (26 MB a step on
// imdb) are never written out and read back for one product after the walk. (An AVX2 kernel of the same
// shape, 6 rows x 16 columns, ran at 98-104 GFLOP/s on the Intel Xeon capped to AVX2, below OpenBLAS's
// product after the walk on charrnn: AVX2 keeps that, docs/benchmarks.md.)
#include "model/ColumnPart.h"
#include "model/LstmKernels.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace wb::lstmkernels {

namespace {

constexpr std::int64_t kPanel = 16;  // columns of C a kernel call covers per panel
constexpr int kMaxSegments = 16;     // segments the kernels take in one pass over C

std::int64_t panelsOf(std::int64_t n) { return (n + kPanel - 1) / kPanel; }

// Every part's rows in blocks of near-equal size, at most maxRows (25 rows as 9 + 8 + 8, not 12 + 12 + 1, so
// that no block runs the kernel's slow tail): `while (blocks.next())` visits them. (An iterator, not a
// function taking a lambda: the kernels' loops stay inside functions compiled for their instruction set.)
class RowBlocks {
public:
    RowBlocks(const ColumnPart* parts, int count, int maxRows)
        : parts_(parts), count_(count), max_(maxRows) {}
    bool next() {
        if (part >= 0) {
            cRow += size;
            partRow += size;
            ++block_;
        } else if (count_ > 0) {
            start(0);
        }
        while (block_ == blocks_) {  // this part's rows are done (or it has none)
            if (part + 1 >= count_) return false;
            start(part + 1);
        }
        const std::int64_t rows = parts_[part].rows;
        size = static_cast<int>(rows / blocks_ + (block_ < rows % blocks_ ? 1 : 0));
        return true;
    }
    int part = -1, size = 0;             // the block: its part, its rows,
    std::int64_t cRow = 0, partRow = 0;  // its first row in C and in the part

private:
    void start(int i) {
        part = i;
        blocks_ = (parts_[i].rows + max_ - 1) / max_;
        block_ = 0;
        partRow = 0;
    }
    const ColumnPart* parts_;
    int count_, max_;
    std::int64_t blocks_ = 0, block_ = 0;
};

// One row block's A columns in each segment: segment j's part (parts[j * count + blk.part]) from the
// block's first row.
struct Segments {
    Segments(const ColumnPart* parts, int count, int segments, std::int64_t segRows, const RowBlocks& blk)
        : count(segments), rows(segRows) {
        for (int j = 0; j < segments; ++j) a[j] = parts[j * count + blk.part].a + blk.partRow;
    }
    const float* a[kMaxSegments];
    int count;
    std::int64_t rows;
};

// ---- AVX-512: R rows x two panels (32 columns) in 2R zmm accumulators, as the packed product's kernel ----
#define WB_AVX512 __attribute__((target("avx512f,avx512vl,fma")))

__mmask16 columnMask(std::int64_t columns) {
    return columns >= kPanel ? static_cast<__mmask16>(0xFFFF)
                             : static_cast<__mmask16>((1u << std::max<std::int64_t>(columns, 0)) - 1);
}

// C's R rows from `c` += the sum over the segments' k-rows of A's element (r, kk), a_seg[kk * lda + r], times
// B's row kk in one or two panels (b + kk * 16, and b + panelStride + kk * 16 for the second; k counted from
// segment 0's first row), C's columns beyond the masks neither read nor written.
template <int R, bool Two>
WB_AVX512 inline __attribute__((always_inline)) void rowsKernel512(const Segments& as, std::int64_t lda,
                                                                   const float* b, std::int64_t panelStride,
                                                                   float* c, std::int64_t ldc, __mmask16 m0,
                                                                   __mmask16 m1) {
    __m512 acc[R][2];
    _Pragma("GCC unroll 12") for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    for (int seg = 0; seg < as.count; ++seg) {
        const float* a = as.a[seg];
        const float* bs = b + seg * as.rows * kPanel;
        for (std::int64_t kk = 0; kk < as.rows; ++kk) {
            const __m512 b0 = _mm512_loadu_ps(bs + kk * kPanel);
            const __m512 b1 = Two ? _mm512_loadu_ps(bs + panelStride + kk * kPanel) : b0;
            _Pragma("GCC unroll 12") for (int r = 0; r < R; ++r) {
                const __m512 av = _mm512_set1_ps(a[kk * lda + r]);
                acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
                if (Two) acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
            }
        }
    }
    _Pragma("GCC unroll 12") for (int r = 0; r < R; ++r) {
        float* out = c + r * ldc;
        _mm512_mask_storeu_ps(out, m0, _mm512_add_ps(acc[r][0], _mm512_maskz_loadu_ps(m0, out)));
        if (Two)
            _mm512_mask_storeu_ps(out + kPanel, m1,
                                  _mm512_add_ps(acc[r][1], _mm512_maskz_loadu_ps(m1, out + kPanel)));
    }
}

// R (1..12, a run-time count) rows: the kernel compiled for that R, found by recursion (a table of pointers
// would defeat always_inline).
template <bool Two, int R = 12>
WB_AVX512 inline __attribute__((always_inline)) void rows512(int rows, const Segments& as, std::int64_t lda,
                                                             const float* b, std::int64_t panelStride,
                                                             float* c, std::int64_t ldc, __mmask16 m0,
                                                             __mmask16 m1) {
    if (rows == R) {
        rowsKernel512<R, Two>(as, lda, b, panelStride, c, ldc, m0, m1);
    } else if constexpr (R > 1) {
        rows512<Two, R - 1>(rows, as, lda, b, panelStride, c, ldc, m0, m1);
    }
}

WB_AVX512 void addProductAvx512(const ColumnPart* parts, int count, int segments, std::int64_t segRows,
                                const float* panels, std::int64_t n, float* c, std::int64_t ldc) {
    const std::int64_t panelStride = segments * segRows * kPanel;
    for (RowBlocks blk(parts, count, 12); blk.next();) {
        const Segments a(parts, count, segments, segRows, blk);
        const std::int64_t lda = parts[blk.part].ld;
        for (std::int64_t p = 0; p < panelsOf(n); p += 2) {
            const bool two = p + 1 < panelsOf(n);
            const __mmask16 m0 = columnMask(n - p * kPanel), m1 = two ? columnMask(n - (p + 1) * kPanel) : 0;
            float* cp = c + blk.cRow * ldc + p * kPanel;
            if (two)
                rows512<true>(blk.size, a, lda, panels + p * panelStride, panelStride, cp, ldc, m0, m1);
            else
                rows512<false>(blk.size, a, lda, panels + p * panelStride, panelStride, cp, ldc, m0, m1);
        }
    }
}

void addProductPortable(const ColumnPart* parts, int count, int segments, std::int64_t segRows,
                        const float* b, std::int64_t ldb, std::int64_t n, float* c, std::int64_t ldc) {
    for (RowBlocks blk(parts, count, 1); blk.next();) {
        const Segments a(parts, count, segments, segRows, blk);
        float* out = c + blk.cRow * ldc;
        for (int seg = 0; seg < segments; ++seg)
            for (std::int64_t kk = 0; kk < segRows; ++kk)
                for (std::int64_t j = 0; j < n; ++j)
                    out[j] += a.a[seg][kk * parts[blk.part].ld] * b[(seg * segRows + kk) * ldb + j];
    }
}

// B [k, n] (row kk at b + kk * ldb) copied into 16-column panels (panel p's row kk at p * k * 16 + kk * 16,
// the columns beyond n zero), in a buffer of this thread's that stays in cache. Read in place, the rows of a
// 4H = 512 B are 2 KB apart and a panel's rows all fall into two sets of L1; packed, they are contiguous.
// (A vector load and store per piece: std::copy_n of 16 floats was a call to memmove, 2.5 % of imdb's step.)
WB_AVX512 const float* panelsInCache(const float* b, std::int64_t ldb, std::int64_t k, std::int64_t n) {
    thread_local std::vector<float> buffer;
    const std::int64_t count = panelsOf(n);
    // From a 64-byte boundary on, so that no panel row (64 bytes) straddles two cache lines.
    buffer.resize(static_cast<std::size_t>((count * k + 1) * kPanel));
    const auto misalignment = reinterpret_cast<std::uintptr_t>(buffer.data()) % 64;
    float* const panels = buffer.data() + (misalignment ? (64 - misalignment) / sizeof(float) : 0);
    float* to = panels;
    for (std::int64_t p = 0; p < count; ++p) {
        const __mmask16 mask = columnMask(n - p * kPanel);
        for (std::int64_t kk = 0; kk < k; ++kk, to += kPanel)
            _mm512_storeu_ps(to, _mm512_maskz_loadu_ps(mask, b + kk * ldb + p * kPanel));
    }
    return panels;
}

}  // namespace

void addColumnPartsProduct(const ColumnPart* parts, int count, int segments, std::int64_t segRows,
                           const float* b, std::int64_t ldb, std::int64_t n, float* c, std::int64_t ldc,
                           PackedIsa isa) {
    if (segRows <= 0 || n <= 0) return;
    // At most kMaxSegments at a time: more only add C's loads and stores once more.
    for (int first = 0; first < segments; first += kMaxSegments) {
        const int now = std::min(kMaxSegments, segments - first);
        const ColumnPart* ps = parts + first * count;
        const float* bs = b + first * segRows * ldb;
        if (isa != PackedIsa::Avx512) {
            addProductPortable(ps, count, now, segRows, bs, ldb, n, c, ldc);
            continue;
        }
        addProductAvx512(ps, count, now, segRows, panelsInCache(bs, ldb, now * segRows, n), n, c, ldc);
    }
}

void addColumnPartsProduct(const ColumnPart* parts, int count, int segments, std::int64_t segRows,
                           const float* b, std::int64_t ldb, std::int64_t n, float* c, std::int64_t ldc) {
    addColumnPartsProduct(parts, count, segments, segRows, b, ldb, n, c, ldc, packedIsa());
}

}  // namespace wb::lstmkernels
