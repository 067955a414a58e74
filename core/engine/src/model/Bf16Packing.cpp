// Packing and conversion for the bf16 products (see Bf16Kernels.h; the products are in Bf16Kernels.cpp):
// B's panels of row pairs, packed at once, a few rows at a time or from pairs a gate kernel interleaved, and
// rows of A rounded to bf16 pairs. Compiled for AVX-512 by function attribute only, like the products.
#include "model/Bf16Kernels.h"

#include "model/Bf16Detail.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define WB_HAVE_BF16_KERNELS 1
#define WB_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))
#endif

namespace wb::bf16kernels {

using detail::kCols;
using detail::pairsOf;

namespace {

#ifdef WB_HAVE_BF16_KERNELS

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

#endif  // WB_HAVE_BF16_KERNELS

}  // namespace

namespace detail {

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

}  // namespace detail

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
}  // namespace wb::bf16kernels
