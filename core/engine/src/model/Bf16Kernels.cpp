// bf16 matrix products (see Bf16Kernels.h). The kernel keeps a block of 12 rows x 32 columns of C in 24 of
// the 32 AVX-512 registers; each step of k loads the panel's two registers once for the 12 rows and
// broadcasts one bf16 pair per row. Compiled for AVX-512 by function attribute only, so the binary still
// runs on any x86-64: callers check available() first.
#include "model/Bf16Kernels.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define WB_HAVE_BF16_KERNELS 1
#define WB_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))
#define WB_ALWAYS_INLINE inline __attribute__((always_inline))
#endif

namespace wb::bf16kernels {

namespace {

constexpr std::int64_t kCols = 32;         // columns per packed panel: two registers of 16 fp32 sums
constexpr int kRows = 12;                  // rows per kernel call: 24 accumulators
constexpr std::int64_t kBlockPairs = 192;  // k pairs per block of gemmRows: a 384-deep block of B

std::int64_t pairsOf(std::int64_t k) { return (k + 1) / 2; }

// Rows [r0, r1) in kernel calls of nearly equal size: 64 rows as 11+11+11+11+10+10, not 12*5+4, whose
// 4-row call loads the panel's values for a third of the work.
template <class F>
void forRowBlocks(std::int64_t r0, std::int64_t r1, F&& call) {
    const std::int64_t rows = r1 - r0, blocks = (rows + kRows - 1) / kRows;
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

// R rows [kk0, kk1) of A (row r, column kk at a[r * rowStride + kk * colStride]) to bf16 pairs; the pair
// count is pairsOf(kk1 - kk0) and an odd tail is padded with zero.
void convertRows(const float* a, std::int64_t rowStride, std::int64_t colStride, int rows, std::int64_t kk0,
                 std::int64_t kk1, std::uint32_t* out, std::int64_t outStride);

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
        const std::int64_t columns = std::min(kCols, n - p * kCols);
        const float* bias32 = bias ? bias + p * kCols : nullptr;
        float* out = c + p * kCols;
        switch (rows) {
            case 12:
                runKernel<12, PairMajor>(terms, count, bias32, out, ldc, columns, accumulate);
                break;
            case 11:
                runKernel<11, PairMajor>(terms, count, bias32, out, ldc, columns, accumulate);
                break;
            case 10:
                runKernel<10, PairMajor>(terms, count, bias32, out, ldc, columns, accumulate);
                break;
            case 9:
                runKernel<9, PairMajor>(terms, count, bias32, out, ldc, columns, accumulate);
                break;
            case 8:
                runKernel<8, PairMajor>(terms, count, bias32, out, ldc, columns, accumulate);
                break;
            case 7:
                runKernel<7, PairMajor>(terms, count, bias32, out, ldc, columns, accumulate);
                break;
            case 6:
                runKernel<6, PairMajor>(terms, count, bias32, out, ldc, columns, accumulate);
                break;
            case 5:
                runKernel<5, PairMajor>(terms, count, bias32, out, ldc, columns, accumulate);
                break;
            case 4:
                runKernel<4, PairMajor>(terms, count, bias32, out, ldc, columns, accumulate);
                break;
            case 3:
                runKernel<3, PairMajor>(terms, count, bias32, out, ldc, columns, accumulate);
                break;
            case 2:
                runKernel<2, PairMajor>(terms, count, bias32, out, ldc, columns, accumulate);
                break;
            case 1:
                runKernel<1, PairMajor>(terms, count, bias32, out, ldc, columns, accumulate);
                break;
            default:
                break;
        }
    }
}

WB_BF16 void convertRowsAvx512(const float* a, std::int64_t rowStride, int rows, std::int64_t kk0,
                               std::int64_t kk1, std::uint32_t* out, std::int64_t outStride) {
    const std::int64_t len = kk1 - kk0;
    for (int r = 0; r < rows; ++r) {
        const float* src = a + r * rowStride + kk0;
        auto* dst = reinterpret_cast<std::uint16_t*>(out + r * outStride);
        std::int64_t i = 0;
        for (; i + 16 <= len; i += 16)
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i),
                                (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(src + i)));
        if (i < len) {
            const __mmask16 m = static_cast<__mmask16>((1u << (len - i)) - 1);
            const __m256i v = (__m256i)_mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(m, src + i));
            _mm256_mask_storeu_epi16(dst + i, m, v);
        }
        if (len % 2) dst[len] = 0;
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

// Pairs [firstPair, firstPair + ceil(rows / 2)) of panels [p0, p1) of a row-major B (strideN == 1) whose
// panels hold totalPairs pairs each, from `rows` rows at b (row i at b + i * strideK; an odd last row is
// paired with zeros): a row pair of a panel is two rows of 32 contiguous floats, converted and interleaved in
// registers.
WB_BF16 void packRowMajorAvx512(const float* b, std::int64_t strideK, std::int64_t rows, std::int64_t n,
                                std::int64_t p0, std::int64_t p1, std::int64_t firstPair,
                                std::int64_t totalPairs, std::uint16_t* packed) {
    // Word i of the result takes bf16 i of row 2q (i even) or of row 2q+1 (i odd), for columns 0..15.
    alignas(64) std::uint16_t order[32];
    for (int i = 0; i < 32; ++i) order[i] = static_cast<std::uint16_t>(i % 2 ? 16 + i / 2 : i / 2);
    const __m512i interleave = _mm512_load_si512(order);
    const std::int64_t pairs = pairsOf(rows);
    for (std::int64_t p = p0; p < p1; ++p) {
        const std::int64_t col = p * kCols, columns = std::min(kCols, n - col);
        const __mmask16 m0 = columns >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << columns) - 1);
        const __mmask16 m1 = columns >= 32   ? 0xFFFF
                             : columns <= 16 ? 0
                                             : static_cast<__mmask16>((1u << (columns - 16)) - 1);
        std::uint16_t* panel = packed + (p * totalPairs + firstPair) * 2 * kCols;
        for (std::int64_t q = 0; q < pairs; ++q) {
            const float* even = b + 2 * q * strideK + col;
            const bool hasOdd = 2 * q + 1 < rows;
            for (int half = 0; half < 2; ++half) {
                const __mmask16 m = half ? m1 : m0;
                const __m512 lo = _mm512_maskz_loadu_ps(m, even + 16 * half);
                const __m512 hi =
                    hasOdd ? _mm512_maskz_loadu_ps(m, even + strideK + 16 * half) : _mm512_setzero_ps();
                const __m512i both = (__m512i)_mm512_cvtne2ps_pbh(hi, lo);
                _mm512_storeu_si512(panel + (q * 2 + half) * kCols,
                                    _mm512_permutexvar_epi16(interleave, both));
            }
        }
    }
}

// packPairRows: each panel's 32 words of a pair are two vector copies (the padding beyond n read as zeros).
// Into a 64-byte aligned B (each pair of a panel is 128 bytes) they are non-temporal stores: the LSTM's B
// holds the gate gradients of every step (megabytes), read back only after the whole backward walk, so
// writing it around the cache saves reading each line in before it is overwritten.
WB_BF16 void packPairRowsAvx512(const std::uint32_t* pairs, std::int64_t ld, std::int64_t firstRow,
                                std::int64_t count, std::int64_t k, std::int64_t n, std::uint16_t* packed) {
    const std::int64_t totalPairs = pairsOf(k), firstPair = firstRow / 2, panels = (n + kCols - 1) / kCols;
    const bool aligned = reinterpret_cast<std::uintptr_t>(packed) % 64 == 0;
    for (std::int64_t i = 0; i < count / 2; ++i) {
        const std::uint32_t* from = pairs + i * ld;
        for (std::int64_t p = 0; p < panels; ++p) {
            auto* to = packed + (p * totalPairs + firstPair + i) * 2 * kCols;
            const std::int64_t columns = std::min(kCols, n - p * kCols);
            for (int half = 0; half < 2; ++half) {
                const std::int64_t left = columns - 16 * half;
                const __mmask16 m = left >= 16  ? 0xFFFF
                                    : left <= 0 ? 0
                                                : static_cast<__mmask16>((1u << left) - 1);
                const __m512i words = _mm512_maskz_loadu_epi32(m, from + p * kCols + 16 * half);
                if (aligned)
                    _mm512_stream_si512(reinterpret_cast<__m512i*>(to + 32 * half), words);
                else
                    _mm512_storeu_si512(to + 32 * half, words);
            }
        }
    }
    // Non-temporal stores are weakly ordered: done before whoever reads B next is told so.
    _mm_sfence();
}

// packPanels for the two layouts the model has: B row-major (strideN == 1, packRowMajorAvx512) and B a
// transposed row-major matrix (strideK == 1: a column of B is a contiguous row whose bf16 pairs are 32-bit
// words, transposed into the panel).
WB_BF16 void packPanelsAvx512(const float* b, std::int64_t strideK, std::int64_t strideN, std::int64_t k,
                              std::int64_t n, std::int64_t p0, std::int64_t p1, std::uint16_t* packed) {
    const std::int64_t pairs = pairsOf(k);
    if (strideN == 1) {
        packRowMajorAvx512(b, strideK, k, n, p0, p1, 0, pairs, packed);
        return;
    }
    // strideK == 1: column j of B is b + j * strideN, k contiguous floats.
    std::vector<std::uint32_t> words(static_cast<std::size_t>(kCols * pairs));
    for (std::int64_t p = p0; p < p1; ++p) {
        const std::int64_t col = p * kCols, columns = std::min(kCols, n - col);
        convertRowsAvx512(b + col * strideN, strideN, static_cast<int>(columns), 0, k, words.data(), pairs);
        auto* panel = reinterpret_cast<std::uint32_t*>(packed + p * pairs * 2 * kCols);
        for (std::int64_t q = 0; q < pairs; ++q) {
            std::uint32_t* row = panel + q * kCols;
            for (std::int64_t j = 0; j < columns; ++j)
                row[j] = words[static_cast<std::size_t>(j * pairs + q)];
            for (std::int64_t j = columns; j < kCols; ++j) row[j] = 0;
        }
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

void convertRows(const float* a, std::int64_t rowStride, std::int64_t colStride, int rows, std::int64_t kk0,
                 std::int64_t kk1, std::uint32_t* out, std::int64_t outStride) {
#ifdef WB_HAVE_BF16_KERNELS
    if (colStride == 1) {
        convertRowsAvx512(a, rowStride, rows, kk0, kk1, out, outStride);
        return;
    }
#endif
    // A transposed view: walk k outside so that the rows' elements of one k are read together.
    for (std::int64_t kk = kk0; kk < kk1; ++kk) {
        const float* col = a + kk * colStride;
        for (int r = 0; r < rows; ++r)
            reinterpret_cast<std::uint16_t*>(out + r * outStride)[kk - kk0] = toBf16(col[r * rowStride]);
    }
    if ((kk1 - kk0) % 2)
        for (int r = 0; r < rows; ++r) reinterpret_cast<std::uint16_t*>(out + r * outStride)[kk1 - kk0] = 0;
}

}  // namespace

std::uint16_t toBf16(float x) {
    std::uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);  // quiet NaN
    // vcvtneps2bf16 treats denormal inputs as zero; the scalar path does the same so that both agree.
    if ((u & 0x7F800000u) == 0) return static_cast<std::uint16_t>((u >> 16) & 0x8000u);
    u += 0x7FFFu + ((u >> 16) & 1u);
    return static_cast<std::uint16_t>(u >> 16);
}

float fromBf16(std::uint16_t x) {
    const std::uint32_t u = static_cast<std::uint32_t>(x) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

void gemvRows(const std::uint16_t* w, const std::uint16_t* x, float* y, std::int64_t r0, std::int64_t r1,
              std::int64_t k) {
#ifdef WB_HAVE_BF16_KERNELS
    gemvRowsAvx512(w, x, y, r0, r1, k);
#else
    (void)w, (void)x, (void)y, (void)r0, (void)r1, (void)k;
#endif
}

void toBf16(const float* src, std::uint16_t* dst, std::int64_t n) {
#ifdef WB_HAVE_BF16_KERNELS
    if (available()) {
        // Whole pairs through the row converter (which pads an odd row), the odd last value by hand.
        convertRowsAvx512(src, n, 1, 0, n / 2 * 2, reinterpret_cast<std::uint32_t*>(dst), 0);
        if (n % 2) dst[n - 1] = toBf16(src[n - 1]);
        return;
    }
#endif
    for (std::int64_t i = 0; i < n; ++i) dst[i] = toBf16(src[i]);
}

bool available() {
#ifdef WB_HAVE_BF16_KERNELS
    static const bool yes = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bf16");
    }();
    return yes;
#else
    return false;
#endif
}

std::int64_t panelCount(std::int64_t n) { return (n + kCols - 1) / kCols; }

std::int64_t packedSize(std::int64_t k, std::int64_t n) { return panelCount(n) * pairsOf(k) * 2 * kCols; }

void packPanels(const float* b, std::int64_t strideK, std::int64_t strideN, std::int64_t k, std::int64_t n,
                std::int64_t p0, std::int64_t p1, std::uint16_t* packed) {
    const std::int64_t pairs = pairsOf(k);
#ifdef WB_HAVE_BF16_KERNELS
    if (available() && (strideN == 1 || strideK == 1)) {
        packPanelsAvx512(b, strideK, strideN, k, n, p0, p1, packed);
        return;
    }
#endif
    for (std::int64_t p = p0; p < p1; ++p) {
        std::uint16_t* panel = packed + p * pairs * 2 * kCols;
        for (std::int64_t j = 0; j < kCols; ++j) {
            const std::int64_t col = p * kCols + j;
            for (std::int64_t kk = 0; kk < 2 * pairs; ++kk)
                panel[((kk / 2) * kCols + j) * 2 + kk % 2] =
                    col < n && kk < k ? toBf16(b[kk * strideK + col * strideN]) : 0;
        }
    }
}

void packRows(const float* rows, std::int64_t ld, std::int64_t firstRow, std::int64_t count, std::int64_t k,
              std::int64_t n, std::uint16_t* packed) {
    if (count <= 0) return;
    const std::int64_t pairs = pairsOf(k), firstPair = firstRow / 2;
#ifdef WB_HAVE_BF16_KERNELS
    if (available()) {
        packRowMajorAvx512(rows, ld, count, n, 0, panelCount(n), firstPair, pairs, packed);
        return;
    }
#endif
    for (std::int64_t p = 0; p < panelCount(n); ++p) {
        std::uint16_t* panel = packed + (p * pairs + firstPair) * 2 * kCols;
        for (std::int64_t i = 0; i < 2 * pairsOf(count); ++i)
            for (std::int64_t j = 0; j < kCols; ++j) {
                const std::int64_t col = p * kCols + j;
                panel[((i / 2) * kCols + j) * 2 + i % 2] =
                    col < n && i < count ? toBf16(rows[i * ld + col]) : 0;
            }
    }
}

void packPairRows(const std::uint32_t* pairs, std::int64_t ld, std::int64_t firstRow, std::int64_t count,
                  std::int64_t k, std::int64_t n, std::uint16_t* packed) {
#ifdef WB_HAVE_BF16_KERNELS
    if (available()) {
        packPairRowsAvx512(pairs, ld, firstRow, count, k, n, packed);
        return;
    }
#endif
    const std::int64_t totalPairs = pairsOf(k), firstPair = firstRow / 2;
    for (std::int64_t i = 0; i < count / 2; ++i)
        for (std::int64_t p = 0; p < panelCount(n); ++p) {
            auto* to =
                reinterpret_cast<std::uint32_t*>(packed + (p * totalPairs + firstPair + i) * 2 * kCols);
            for (std::int64_t j = 0; j < kCols; ++j)
                to[j] = p * kCols + j < n ? pairs[i * ld + p * kCols + j] : 0;
        }
}

void gemmPackedRows(const Operand* ops, int count, const float* bias, float* c, std::int64_t ldc,
                    std::int64_t r0, std::int64_t r1, std::int64_t n, bool accumulate) {
#ifdef WB_HAVE_BF16_KERNELS
    if (count < 1 || count > 4 || r1 <= r0) return;
    // The bias padded to whole panels, then each operand's converted rows.
    std::int64_t words = panelCount(n) * kCols;
    std::int64_t offsets[4];
    for (int o = 0; o < count; ++o) {
        offsets[o] = words;
        words += kRows * pairsOf(ops[o].k);
    }
    std::uint32_t* buffer = scratch(static_cast<std::size_t>(words));
    float* padded = nullptr;
    if (bias) {
        padded = reinterpret_cast<float*>(buffer);
        std::copy(bias, bias + n, padded);
        std::fill(padded + n, padded + panelCount(n) * kCols, 0.0f);
    }
    Term terms[4];
    std::int64_t panelStride[4];
    forRowBlocks(r0, r1, [&](std::int64_t row, int rows) {
        for (int o = 0; o < count; ++o) {
            const std::int64_t pairs = pairsOf(ops[o].k);
            if (ops[o].halves) {
                terms[o] = Term{reinterpret_cast<const std::uint32_t*>(ops[o].halves + row * ops[o].lda),
                                ops[o].lda / 2, ops[o].packed, pairs};
            } else {
                convertRows(ops[o].a + row * ops[o].lda, ops[o].lda, 1, rows, 0, ops[o].k,
                            buffer + offsets[o], pairs);
                terms[o] = Term{buffer + offsets[o], pairs, ops[o].packed, pairs};
            }
            panelStride[o] = pairs * 2 * kCols;
        }
        panelsOfRows<false>(terms, panelStride, count, rows, padded, c + row * ldc, ldc, n, accumulate);
    });
#else
    (void)ops, (void)count, (void)bias, (void)c, (void)ldc, (void)r0, (void)r1, (void)n, (void)accumulate;
#endif
}

void gemmColumnParts(const ColumnPart* parts, int count, const std::uint16_t* packed, std::int64_t k,
                     std::int64_t n, float* c, std::int64_t ldc, std::int64_t m0, std::int64_t m1) {
#ifdef WB_HAVE_BF16_KERNELS
    if (m1 <= m0) return;
    const std::int64_t pairs = pairsOf(k), panelStride = pairs * 2 * kCols;
    std::uint32_t* buffer = scratch(static_cast<std::size_t>(kPairMajorStride * kBlockPairs));
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
    // k outside: each block of B is read from memory once for the rows of every part.
    for (std::int64_t q0 = 0; q0 < pairs; q0 += kBlockPairs) {
        const std::int64_t blockPairs = std::min(kBlockPairs, pairs - q0);
        const std::int64_t kk0 = 2 * q0, kk1 = std::min(k, 2 * (q0 + blockPairs));
        const Term term{buffer, blockPairs, packed + q0 * 2 * kCols, blockPairs};
        std::int64_t first = 0;  // the part's first row in C
        for (int i = 0; i < count; ++i) {
            const std::int64_t r0 = std::max(m0, first), r1 = std::min(m1, first + parts[i].rows);
            forRowBlocks(r0, r1, [&](std::int64_t row, int rows) {
                convert(parts[i], row - first, rows, kk0, kk1);
                panelsOfRows<true>(&term, &panelStride, 1, rows, nullptr, c + row * ldc, ldc, n, q0 > 0);
            });
            first += parts[i].rows;
        }
    }
#else
    (void)parts, (void)count, (void)packed, (void)k, (void)n, (void)c, (void)ldc, (void)m0, (void)m1;
#endif
}

void gemmRows(const float* a, std::int64_t rowStride, std::int64_t colStride, const std::uint16_t* packed,
              std::int64_t k, std::int64_t n, float* c, std::int64_t ldc, std::int64_t m0, std::int64_t m1,
              bool accumulate) {
#ifdef WB_HAVE_BF16_KERNELS
    if (m1 <= m0) return;
    const std::int64_t pairs = pairsOf(k), panelStride = pairs * 2 * kCols;
    // A transposed A (rowStride 1) is converted pair-major: contiguous loads instead of a gather.
    const bool pairMajor = rowStride == 1 && colStride != 1;
    std::uint32_t* buffer =
        scratch(static_cast<std::size_t>(std::max<std::int64_t>(kRows, kPairMajorStride) * kBlockPairs));
    for (std::int64_t q0 = 0; q0 < pairs; q0 += kBlockPairs) {
        const std::int64_t blockPairs = std::min(kBlockPairs, pairs - q0);
        const std::int64_t kk0 = 2 * q0, kk1 = std::min(k, 2 * (q0 + blockPairs));
        forRowBlocks(m0, m1, [&](std::int64_t row, int rows) {
            const Term term{buffer, blockPairs, packed + q0 * 2 * kCols, blockPairs};
            float* out = c + row * ldc;
            const bool add = accumulate || q0 > 0;
            if (pairMajor) {
                convertColumnsAvx512(a + row + kk0 * colStride, colStride, rows, kk1 - kk0, buffer);
                panelsOfRows<true>(&term, &panelStride, 1, rows, nullptr, out, ldc, n, add);
            } else {
                convertRows(a + row * rowStride, rowStride, colStride, rows, kk0, kk1, buffer, blockPairs);
                panelsOfRows<false>(&term, &panelStride, 1, rows, nullptr, out, ldc, n, add);
            }
        });
    }
#else
    (void)a, (void)rowStride, (void)colStride, (void)packed, (void)k, (void)n, (void)c, (void)ldc, (void)m0,
        (void)m1, (void)accumulate;
#endif
}

}  // namespace wb::bf16kernels
