// bf16 matrix products (see Bf16Kernels.h). The kernel keeps a block of 12 rows x 32 columns of C in 24 of
// the 32 AVX-512 registers; each step of k loads the panel's two registers once for the 12 rows and
// broadcasts one bf16 pair per row. Compiled for AVX-512 by function attribute only, so the binary still
// runs on any x86-64: callers check available() first.
#include "model/Bf16Kernels.h"

#include "model/Bf16Amx.h"
#include "model/Bf16Detail.h"
#include "model/CpuCapability.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define WB_HAVE_BF16_KERNELS 1
#define WB_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))
#define WB_ALWAYS_INLINE inline __attribute__((always_inline))
#endif

namespace wb::bf16kernels {

using detail::convertRows;
using detail::kCols;
using detail::pairsOf;

namespace {

constexpr int kRows = 12;                  // rows per kernel call: 24 accumulators
constexpr std::int64_t kBlockPairs = 192;  // k pairs per block of gemmRows: a 384-deep block of B
constexpr std::int64_t kChunkRows = 64;    // rows of gemmPackedRows that share each panel's pass over B

// Rows [r0, r1) in kernel calls of nearly equal size: 64 rows as 11+11+11+11+10+10, not 12*5+4, whose
// 4-row call loads the panel's values for a third of the work. maxRows: the AMX tiles' 16 or 32 instead
// of 12.
template <class F>
void forRowBlocks(std::int64_t r0, std::int64_t r1, F&& call, std::int64_t maxRows = kRows) {
    const std::int64_t rows = r1 - r0, blocks = (rows + maxRows - 1) / maxRows;
    for (std::int64_t i = 0, row = r0; i < blocks; ++i) {
        const std::int64_t size = rows / blocks + (i < rows % blocks ? 1 : 0);
        call(row, static_cast<int>(size));
        row += size;
    }
}

// A block of rows converted to bf16: row r's pair q is the word rows[r * stride + q] (row-major), or, when
// the kernel is instantiated pair-major, rows[q * kPairMajorStride + r] (from a transposed A, where the rows'
// elements of one k are contiguous).
constexpr std::int64_t kPairMajorStride = 16;
struct Term {
    const std::uint32_t* rows;
    std::int64_t stride;
    const std::uint16_t* panel;  // this term's panel, at its first pair
    std::int64_t pairs;
};

// Per-thread scratch for converted rows (the kernels run inside the callers' parallel loops).
std::uint32_t* scratch(std::size_t words) {
    thread_local std::vector<std::uint32_t> buffer;
    if (buffer.size() < words) buffer.resize(words);
    return buffer.data();
}

// The bias (n floats, or null) copied into `into` and padded with zeros to whole panels, since the kernel
// reads a panel's 32 values at once; null when there is no bias.
const float* padBias(const float* bias, std::int64_t n, std::uint32_t* into) {
    if (!bias) return nullptr;
    auto* padded = reinterpret_cast<float*>(into);
    std::copy(bias, bias + n, padded);
    std::fill(padded + n, padded + panelCount(n) * kCols, 0.0f);
    return padded;
}

#ifdef WB_HAVE_BF16_KERNELS

// Half: the panel's last 16 columns are all padding (a width n with n % 32 in 1..16), so only the first
// register of each row is computed.
template <int R, bool PairMajor, bool Half>
WB_BF16 WB_ALWAYS_INLINE void kernel(const Term* terms, int count, const float* bias32, float* c,
                                     std::int64_t ldc, std::int64_t columns, bool accumulate) {
    __m512 acc[R][2];
    const __m512 init0 = bias32 ? _mm512_loadu_ps(bias32) : _mm512_setzero_ps();
    const __m512 init1 = bias32 ? _mm512_loadu_ps(bias32 + 16) : _mm512_setzero_ps();
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
        acc[r][0] = init0;
        acc[r][1] = init1;
    }
    for (int t = 0; t < count; ++t) {
        const std::uint32_t* a = terms[t].rows;
        const std::int64_t stride = terms[t].stride;
        const std::uint16_t* panel = terms[t].panel;
        for (std::int64_t q = 0; q < terms[t].pairs; ++q) {
            const __m512bh b0 = (__m512bh)_mm512_loadu_si512(panel + q * 2 * kCols);
            const __m512bh b1 = Half ? b0 : (__m512bh)_mm512_loadu_si512(panel + q * 2 * kCols + kCols);
#pragma GCC unroll 12
            for (int r = 0; r < R; ++r) {
                const std::uint32_t word = PairMajor ? a[q * kPairMajorStride + r] : a[r * stride + q];
                const __m512bh av = (__m512bh)_mm512_set1_epi32(static_cast<int>(word));
                acc[r][0] = _mm512_dpbf16_ps(acc[r][0], av, b0);
                if (!Half) acc[r][1] = _mm512_dpbf16_ps(acc[r][1], av, b1);
            }
        }
    }
    const __mmask16 m0 = columns >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << columns) - 1);
    const __mmask16 m1 = columns >= 32   ? 0xFFFF
                         : columns <= 16 ? 0
                                         : static_cast<__mmask16>((1u << (columns - 16)) - 1);
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
        float* out = c + r * ldc;
        if (accumulate) {
            acc[r][0] = _mm512_add_ps(acc[r][0], _mm512_maskz_loadu_ps(m0, out));
            acc[r][1] = _mm512_add_ps(acc[r][1], _mm512_maskz_loadu_ps(m1, out + 16));
        }
        _mm512_mask_storeu_ps(out, m0, acc[r][0]);
        _mm512_mask_storeu_ps(out + 16, m1, acc[r][1]);
    }
}

// One panel: the half-width kernel when the panel's second 16 columns are all padding. (A direct call at
// compile time: always_inline through a function pointer fails at -O1, the sanitizer build's level.)
template <int R, bool PairMajor>
WB_BF16 WB_ALWAYS_INLINE void runKernel(const Term* terms, int count, const float* bias32, float* c,
                                        std::int64_t ldc, std::int64_t columns, bool accumulate) {
    if (columns > 16)
        kernel<R, PairMajor, false>(terms, count, bias32, c, ldc, columns, accumulate);
    else
        kernel<R, PairMajor, true>(terms, count, bias32, c, ldc, columns, accumulate);
}

// One panel of C's rows [row, row + rows) (rows <= kRows), for terms at that panel's first pair: the
// kernel instantiated for the row count.
template <bool PairMajor>
WB_BF16 void onePanel(const Term* terms, int count, int rows, const float* bias32, float* c, std::int64_t ldc,
                      std::int64_t columns, bool accumulate) {
    switch (rows) {
        case 12:
            runKernel<12, PairMajor>(terms, count, bias32, c, ldc, columns, accumulate);
            break;
        case 11:
            runKernel<11, PairMajor>(terms, count, bias32, c, ldc, columns, accumulate);
            break;
        case 10:
            runKernel<10, PairMajor>(terms, count, bias32, c, ldc, columns, accumulate);
            break;
        case 9:
            runKernel<9, PairMajor>(terms, count, bias32, c, ldc, columns, accumulate);
            break;
        case 8:
            runKernel<8, PairMajor>(terms, count, bias32, c, ldc, columns, accumulate);
            break;
        case 7:
            runKernel<7, PairMajor>(terms, count, bias32, c, ldc, columns, accumulate);
            break;
        case 6:
            runKernel<6, PairMajor>(terms, count, bias32, c, ldc, columns, accumulate);
            break;
        case 5:
            runKernel<5, PairMajor>(terms, count, bias32, c, ldc, columns, accumulate);
            break;
        case 4:
            runKernel<4, PairMajor>(terms, count, bias32, c, ldc, columns, accumulate);
            break;
        case 3:
            runKernel<3, PairMajor>(terms, count, bias32, c, ldc, columns, accumulate);
            break;
        case 2:
            runKernel<2, PairMajor>(terms, count, bias32, c, ldc, columns, accumulate);
            break;
        case 1:
            runKernel<1, PairMajor>(terms, count, bias32, c, ldc, columns, accumulate);
            break;
        default:
            break;
    }
}

// Every panel of C's rows [row, row + rows) (rows <= kRows), for terms whose panel pointers are at panel 0;
// panelStride[t] is how far apart term t's panels are.
template <bool PairMajor>
WB_BF16 void panelsOfRows(const Term* terms0, const std::int64_t* panelStride, int count, int rows,
                          const float* bias, float* c, std::int64_t ldc, std::int64_t n, bool accumulate) {
    Term terms[4];
    for (std::int64_t p = 0; p * kCols < n; ++p) {
        for (int t = 0; t < count; ++t) {
            terms[t] = terms0[t];
            terms[t].panel += p * panelStride[t];
        }
        onePanel<PairMajor>(terms, count, rows, bias ? bias + p * kCols : nullptr, c + p * kCols, ldc,
                            std::min(kCols, n - p * kCols), accumulate);
    }
}

// Rows [0, rows) (rows <= 16) of a transposed A (row r, column kk at first[r + kk * colStride], from the
// first column converted), `columns` columns, to pair-major words: two columns are two contiguous loads,
// converted and interleaved.
WB_BF16 void convertColumnsAvx512(const float* first, std::int64_t colStride, int rows, std::int64_t columns,
                                  std::uint32_t* out) {
    alignas(64) std::uint16_t order[32];
    for (int i = 0; i < 32; ++i) order[i] = static_cast<std::uint16_t>(i % 2 ? 16 + i / 2 : i / 2);
    const __m512i interleave = _mm512_load_si512(order);
    const __mmask16 m = static_cast<__mmask16>(rows >= 16 ? 0xFFFFu : (1u << rows) - 1);
    for (std::int64_t kk = 0, q = 0; kk < columns; kk += 2, ++q) {
        const __m512 lo = _mm512_maskz_loadu_ps(m, first + kk * colStride);
        const __m512 hi =
            kk + 1 < columns ? _mm512_maskz_loadu_ps(m, first + (kk + 1) * colStride) : _mm512_setzero_ps();
        const __m512i both = _mm512_permutexvar_epi16(interleave, (__m512i)_mm512_cvtne2ps_pbh(hi, lo));
        _mm512_storeu_si512(out + q * kPairMajorStride, both);
    }
}

WB_BF16 void gemvRowsAvx512(const std::uint16_t* w, const std::uint16_t* x, float* y, std::int64_t r0,
                            std::int64_t r1, std::int64_t k) {
    const std::int64_t full = k / 32 * 32;
    const __mmask32 tail = static_cast<__mmask32>(k - full == 0 ? 0u : (1u << (k - full)) - 1u);
    const __m512bh xTail = (__m512bh)_mm512_maskz_loadu_epi16(tail, x + full);
    std::int64_t r = r0;
    // Four rows at a time: each 32 values of x are loaded once for four rows.
    for (; r + 4 <= r1; r += 4) {
        const std::uint16_t* w0 = w + r * k;
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        for (std::int64_t j = 0; j < full; j += 32) {
            const __m512bh xv = (__m512bh)_mm512_loadu_si512(x + j);
            a0 = _mm512_dpbf16_ps(a0, (__m512bh)_mm512_loadu_si512(w0 + j), xv);
            a1 = _mm512_dpbf16_ps(a1, (__m512bh)_mm512_loadu_si512(w0 + k + j), xv);
            a2 = _mm512_dpbf16_ps(a2, (__m512bh)_mm512_loadu_si512(w0 + 2 * k + j), xv);
            a3 = _mm512_dpbf16_ps(a3, (__m512bh)_mm512_loadu_si512(w0 + 3 * k + j), xv);
        }
        if (tail) {
            a0 = _mm512_dpbf16_ps(a0, (__m512bh)_mm512_maskz_loadu_epi16(tail, w0 + full), xTail);
            a1 = _mm512_dpbf16_ps(a1, (__m512bh)_mm512_maskz_loadu_epi16(tail, w0 + k + full), xTail);
            a2 = _mm512_dpbf16_ps(a2, (__m512bh)_mm512_maskz_loadu_epi16(tail, w0 + 2 * k + full), xTail);
            a3 = _mm512_dpbf16_ps(a3, (__m512bh)_mm512_maskz_loadu_epi16(tail, w0 + 3 * k + full), xTail);
        }
        y[r] += _mm512_reduce_add_ps(a0);
        y[r + 1] += _mm512_reduce_add_ps(a1);
        y[r + 2] += _mm512_reduce_add_ps(a2);
        y[r + 3] += _mm512_reduce_add_ps(a3);
    }
    for (; r < r1; ++r) {
        const std::uint16_t* wr = w + r * k;
        __m512 a = _mm512_setzero_ps();
        for (std::int64_t j = 0; j < full; j += 32)
            a = _mm512_dpbf16_ps(a, (__m512bh)_mm512_loadu_si512(wr + j),
                                 (__m512bh)_mm512_loadu_si512(x + j));
        if (tail) a = _mm512_dpbf16_ps(a, (__m512bh)_mm512_maskz_loadu_epi16(tail, wr + full), xTail);
        y[r] += _mm512_reduce_add_ps(a);
    }
}

#endif  // WB_HAVE_BF16_KERNELS

// gemmPackedRows' chunk of rows [chunk, chunkEnd) on the AMX tiles, panels outside the row blocks as there;
// false (nothing computed) when the tiles take not these terms.
bool amxChunk(const Term* first, const std::int64_t* panelStride, int count, std::int64_t chunk,
              std::int64_t chunkEnd, const float* bias, float* c, std::int64_t ldc, std::int64_t n,
              bool accumulate) {
    amx::Term terms[4];
    for (int o = 0; o < count; ++o)
        terms[o] = {first[o].rows, first[o].stride, first[o].panel, panelStride[o], first[o].pairs};
    if (!amx::takes(terms, count)) return false;
    const std::int64_t maxRows = amx::takesWide(terms, count) ? amx::kWideRows : amx::kTileRows;
    for (std::int64_t p = 0; p * kCols < n; ++p)
        forRowBlocks(
            chunk, chunkEnd,
            [&](std::int64_t row, int rows) {
                amx::Term block[4];
                for (int o = 0; o < count; ++o) {
                    block[o] = terms[o];
                    block[o].rows += (row - chunk) * terms[o].stride;
                }
                amx::rowBlock(block, count, rows, p, p + 1, bias, c + row * ldc, ldc, n, accumulate);
            },
            maxRows);
    return true;
}

// Panels of a 384-deep block of B that the AMX tiles take at a time in the large products: the tiles compute
// a block of B faster than L3 delivers it, so a block that stays in L2 (2 MB a core on the Xeons that have
// them) while every row passes over it must be narrower than the AVX512_BF16 kernel's whole width (the head's
// 4,379 columns of poems are 3.4 MB a block). Half of L2, leaving room for the rows, the sums and C.
std::int64_t amxPanelGroup() {
    constexpr std::int64_t kGroupBytes = 1 << 20, kPanelBlockBytes = kBlockPairs * 2 * kCols * 2;
    return std::max<std::int64_t>(1, kGroupBytes / kPanelBlockBytes);
}

// Pair-major words (row r's pair q at words[q * kPairMajorStride + r]) of `rows` rows to row-major ones (at
// out + r * pairs): the AMX tiles read A by rows.
void pairMajorToRows(const std::uint32_t* words, int rows, std::int64_t pairs, std::uint32_t* out) {
    for (std::int64_t q = 0; q < pairs; ++q)
        for (int r = 0; r < rows; ++r) out[r * pairs + q] = words[q * kPairMajorStride + r];
}

}  // namespace

void gemvRows(const std::uint16_t* w, const std::uint16_t* x, float* y, std::int64_t r0, std::int64_t r1,
              std::int64_t k) {
#ifdef WB_HAVE_BF16_KERNELS
    gemvRowsAvx512(w, x, y, r0, r1, k);
#else
    (void)w, (void)x, (void)y, (void)r0, (void)r1, (void)k;
#endif
}

bool available() {
#ifdef WB_HAVE_BF16_KERNELS
    static const bool yes = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bf16") &&
               cpuCapabilityAllows(CpuLevel::Avx512);
    }();
    return yes;
#else
    return false;
#endif
}

void gemmPackedRows(const Operand* ops, int count, const float* bias, float* c, std::int64_t ldc,
                    std::int64_t r0, std::int64_t r1, std::int64_t n, bool accumulate) {
#ifdef WB_HAVE_BF16_KERNELS
    if (count < 1 || count > 4 || r1 <= r0) return;
    // The bias padded to whole panels, then each operand's converted rows for a chunk of up to kChunkRows.
    const std::int64_t chunkRows = std::min(r1 - r0, kChunkRows);
    std::int64_t words = panelCount(n) * kCols;
    std::int64_t offsets[4];
    for (int o = 0; o < count; ++o) {
        offsets[o] = words;
        if (!ops[o].halves) words += chunkRows * pairsOf(ops[o].k);
    }
    std::uint32_t* buffer = scratch(static_cast<std::size_t>(words));
    const float* padded = padBias(bias, n, buffer);
    const bool useAmx = amx::usable();
    const amx::TileScope tiles;
    // Panels outside the row blocks: each panel of B is read from memory once per chunk of rows and stays in
    // cache for the chunk's other blocks (poems' recurrent weights, 2 to 4 MB in bf16, do not fit L2).
    for (std::int64_t chunk = r0; chunk < r1; chunk += kChunkRows) {
        const std::int64_t chunkEnd = std::min(r1, chunk + kChunkRows);
        Term first[4];
        std::int64_t panelStride[4];
        for (int o = 0; o < count; ++o) {
            const std::int64_t pairs = pairsOf(ops[o].k);
            panelStride[o] = pairs * 2 * kCols;
            if (ops[o].halves) {
                first[o] = Term{reinterpret_cast<const std::uint32_t*>(ops[o].halves + chunk * ops[o].lda),
                                ops[o].lda / 2, ops[o].packed, pairs};
                continue;
            }
            convertRows(ops[o].a + chunk * ops[o].lda, ops[o].lda, 1, static_cast<int>(chunkEnd - chunk), 0,
                        ops[o].k, buffer + offsets[o], pairs);
            first[o] = Term{buffer + offsets[o], pairs, ops[o].packed, pairs};
        }
        if (useAmx && amxChunk(first, panelStride, count, chunk, chunkEnd, padded, c, ldc, n, accumulate))
            continue;
        for (std::int64_t p = 0; p * kCols < n; ++p) {
            const std::int64_t columns = std::min(kCols, n - p * kCols);
            forRowBlocks(chunk, chunkEnd, [&](std::int64_t row, int rows) {
                Term terms[4];
                for (int o = 0; o < count; ++o) {
                    terms[o] = first[o];
                    terms[o].rows += (row - chunk) * first[o].stride;
                    terms[o].panel += p * panelStride[o];
                }
                onePanel<false>(terms, count, rows, padded ? padded + p * kCols : nullptr,
                                c + row * ldc + p * kCols, ldc, columns, accumulate);
            });
        }
    }
#else
    (void)ops, (void)count, (void)bias, (void)c, (void)ldc, (void)r0, (void)r1, (void)n, (void)accumulate;
#endif
}

void gemmColumnParts(const ColumnPart* parts, int count, const std::uint16_t* packed, std::int64_t k,
                     std::int64_t n, float* c, std::int64_t ldc, std::int64_t m0, std::int64_t m1) {
#ifdef WB_HAVE_BF16_KERNELS
    if (m1 <= m0) return;
    const std::int64_t pairs = pairsOf(k), panelStride = pairs * 2 * kCols;
    const bool useAmx = amx::usable();
    const amx::TileScope tiles;
    // The converted block, pair-major, then (for the AMX tiles) by rows.
    std::uint32_t* buffer =
        scratch(static_cast<std::size_t>((kPairMajorStride + amx::kWideRows) * kBlockPairs));
    std::uint32_t* byRows = buffer + kPairMajorStride * kBlockPairs;
    // This part's columns [kk0, kk1) of rows [row, row + rows): the head's, then the rest's.
    const auto convert = [&](const ColumnPart& part, std::int64_t row, int rows, std::int64_t kk0,
                             std::int64_t kk1) {
        const std::int64_t split = std::clamp(part.headColumns, kk0, kk1);
        if (split > kk0)
            convertColumnsAvx512(part.head + row + kk0 * part.ld, part.ld, rows, split - kk0, buffer);
        if (kk1 > split)
            convertColumnsAvx512(part.a + row + (split - part.headColumns) * part.ld, part.ld, rows,
                                 kk1 - split, buffer + (split - kk0) / 2 * kPairMajorStride);
    };
    // k outside: each block of B is read from memory once for the rows of every part (on the AMX tiles, a
    // block of panels at a time: see amxPanelGroup).
    const std::int64_t panels = panelCount(n), group = useAmx ? amxPanelGroup() : panels;
    for (std::int64_t g0 = 0; g0 < panels; g0 += group)
        for (std::int64_t q0 = 0; q0 < pairs; q0 += kBlockPairs) {
            const std::int64_t blockPairs = std::min(kBlockPairs, pairs - q0);
            const std::int64_t kk0 = 2 * q0, kk1 = std::min(k, 2 * (q0 + blockPairs));
            const Term term{buffer, blockPairs, packed + q0 * 2 * kCols, blockPairs};
            std::int64_t first = 0;  // the part's first row in C
            for (int i = 0; i < count; ++i) {
                const std::int64_t r0 = std::max(m0, first), r1 = std::min(m1, first + parts[i].rows);
                forRowBlocks(
                    r0, r1,
                    [&](std::int64_t row, int rows) {
                        if (!useAmx) {
                            convert(parts[i], row - first, rows, kk0, kk1);
                            panelsOfRows<true>(&term, &panelStride, 1, rows, nullptr, c + row * ldc, ldc, n,
                                               q0 > 0);
                            return;
                        }
                        // Pair-major 16 rows at a time (the conversion's width), then by rows for the tiles.
                        for (int r = 0; r < rows; r += amx::kTileRows) {
                            const int piece = std::min(amx::kTileRows, rows - r);
                            convert(parts[i], row - first + r, piece, kk0, kk1);
                            pairMajorToRows(buffer, piece, blockPairs, byRows + r * blockPairs);
                        }
                        const amx::Term tile{byRows, blockPairs, term.panel, panelStride, blockPairs};
                        amx::rowBlock(&tile, 1, rows, g0, std::min(panels, g0 + group), nullptr,
                                      c + row * ldc, ldc, n, q0 > 0);
                    },
                    !useAmx                ? kRows
                    : blockPairs % 16 == 0 ? amx::kWideRows
                                           : amx::kTileRows);
                first += parts[i].rows;
            }
        }
#else
    (void)parts, (void)count, (void)packed, (void)k, (void)n, (void)c, (void)ldc, (void)m0, (void)m1;
#endif
}

void gemmRows(const float* a, std::int64_t rowStride, std::int64_t colStride, const std::uint16_t* packed,
              std::int64_t k, std::int64_t n, const float* bias, float* c, std::int64_t ldc, std::int64_t m0,
              std::int64_t m1, bool accumulate) {
#ifdef WB_HAVE_BF16_KERNELS
    if (m1 <= m0) return;
    const std::int64_t pairs = pairsOf(k), panelStride = pairs * 2 * kCols;
    // A transposed A (rowStride 1) is converted pair-major: contiguous loads instead of a gather.
    const bool pairMajor = rowStride == 1 && colStride != 1;
    // The bias padded to whole panels (the kernel reads a panel's 32 at once), then the converted rows.
    const std::int64_t biasWords = bias ? panelCount(n) * kCols : 0;
    // Room for a block converted and (a transposed A on the AMX tiles) the same block by rows.
    const std::int64_t blockWords =
        std::max<std::int64_t>({kRows, kPairMajorStride, amx::kWideRows}) * kBlockPairs;
    std::uint32_t* words = scratch(static_cast<std::size_t>(biasWords + 2 * blockWords));
    std::uint32_t* buffer = words + biasWords;
    std::uint32_t* byRows = buffer + blockWords;
    const float* padded = padBias(bias, n, words);
    const bool useAmx = amx::usable();
    const amx::TileScope tiles;
    const std::int64_t panels = panelCount(n), group = useAmx ? amxPanelGroup() : panels;
    for (std::int64_t g0 = 0; g0 < panels; g0 += group)
        for (std::int64_t q0 = 0; q0 < pairs; q0 += kBlockPairs) {
            const std::int64_t blockPairs = std::min(kBlockPairs, pairs - q0);
            const std::int64_t kk0 = 2 * q0, kk1 = std::min(k, 2 * (q0 + blockPairs));
            // The first block of k starts from the bias, each later one adds to what C holds.
            const float* blockBias = q0 == 0 ? padded : nullptr;
            const bool add = accumulate || q0 > 0;
            forRowBlocks(
                m0, m1,
                [&](std::int64_t row, int rows) {
                    const Term term{buffer, blockPairs, packed + q0 * 2 * kCols, blockPairs};
                    float* out = c + row * ldc;
                    if (useAmx) {
                        const std::uint32_t* converted = buffer;
                        if (pairMajor) {
                            for (int r = 0; r < rows; r += amx::kTileRows) {  // the conversion's 16 rows
                                const int piece = std::min(amx::kTileRows, rows - r);
                                convertColumnsAvx512(a + row + r + kk0 * colStride, colStride, piece,
                                                     kk1 - kk0, buffer);
                                pairMajorToRows(buffer, piece, blockPairs, byRows + r * blockPairs);
                            }
                            converted = byRows;
                        } else {
                            convertRows(a + row * rowStride, rowStride, colStride, rows, kk0, kk1, buffer,
                                        blockPairs);
                        }
                        const amx::Term tile{converted, blockPairs, term.panel, panelStride, blockPairs};
                        amx::rowBlock(&tile, 1, rows, g0, std::min(panels, g0 + group), blockBias, out, ldc,
                                      n, add);
                        return;
                    }
                    if (pairMajor) {
                        convertColumnsAvx512(a + row + kk0 * colStride, colStride, rows, kk1 - kk0, buffer);
                        panelsOfRows<true>(&term, &panelStride, 1, rows, blockBias, out, ldc, n, add);
                    } else {
                        convertRows(a + row * rowStride, rowStride, colStride, rows, kk0, kk1, buffer,
                                    blockPairs);
                        panelsOfRows<false>(&term, &panelStride, 1, rows, blockBias, out, ldc, n, add);
                    }
                },
                !useAmx                ? kRows
                : blockPairs % 16 == 0 ? amx::kWideRows
                                       : amx::kTileRows);
        }
#else
    (void)a, (void)rowStride, (void)colStride, (void)packed, (void)k, (void)n, (void)bias, (void)c, (void)ldc,
        (void)m0, (void)m1, (void)accumulate;
#endif
}

}  // namespace wb::bf16kernels
