// The bf16 product kernels (model/Bf16Kernels.h) against references computed in double: bf16 rounding
// (nearest even, NaN, denormals), the packed layouts of both operand strides, and products whose operands
// are first rounded to bf16 the same way, where the kernels must agree with the double result to fp32
// summation error; a shape grid covers every row remainder of the 12-row kernel, odd k, half panels and
// partial panels, the bias, accumulation and transposed left operands; on CPUs with AMX tiles the same grid
// runs on them (and every remainder of their 16 rows and 16 pairs). Skipped on CPUs without AVX512_BF16.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "model/Bf16Amx.h"
#include "model/Bf16Kernels.h"
#include "model/CpuCapability.h"
#include "support/KernelTestSupport.h"

using namespace wb::bf16kernels;
using wb::ColumnPart;

using wbtest::randomMatrix;

namespace {

float bitsToFloat(std::uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

float rounded(float x) { return fromBf16(toBf16(x)); }

// C[r, j] = bias[j] + sum_kk round(A[r, kk]) round(B[kk, j]) in double.
std::vector<double> reference(const std::vector<float>& a, std::int64_t rowStride, std::int64_t colStride,
                              const std::vector<float>& b, std::int64_t m, std::int64_t k, std::int64_t n,
                              const float* bias) {
    std::vector<double> c(static_cast<std::size_t>(m * n));
    for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t j = 0; j < n; ++j) {
            double sum = bias ? bias[j] : 0.0;
            for (std::int64_t kk = 0; kk < k; ++kk)
                sum += static_cast<double>(rounded(a[r * rowStride + kk * colStride])) *
                       static_cast<double>(rounded(b[kk * n + j]));
            c[r * n + j] = sum;
        }
    return c;
}

// Largest |C - expected| over sqrt(k) * the largest |A| |B| product: fp32 sums of k products of
// bf16-exact values differ from the double sums by a few units of 2^-24 times that.
double worstError(const std::vector<float>& c, std::int64_t ldc, const std::vector<double>& expected,
                  std::int64_t m, std::int64_t n, std::int64_t offsetRow = 0) {
    double worst = 0.0;
    for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t j = 0; j < n; ++j)
            worst = std::max(worst, std::abs(c[(r + offsetRow) * ldc + j] - expected[r * n + j]));
    return worst;
}

#define SKIP_WITHOUT_BF16() \
    if (!available()) GTEST_SKIP() << "this CPU has no AVX512_BF16: the kernels are not used here"

}  // namespace

TEST(Bf16Kernels, RoundsToNearestEvenLikeTheHardware) {
    EXPECT_EQ(toBf16(1.0f), 0x3F80);
    EXPECT_EQ(toBf16(-2.0f), 0xC000);
    // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties go to the even mantissa (1.0).
    EXPECT_EQ(toBf16(bitsToFloat(0x3F808000u)), 0x3F80);
    // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6: up to the even one.
    EXPECT_EQ(toBf16(bitsToFloat(0x3F818000u)), 0x3F82);
    EXPECT_EQ(toBf16(bitsToFloat(0x3F808001u)), 0x3F81);  // just above halfway: up
    EXPECT_EQ(toBf16(bitsToFloat(0x3F807FFFu)), 0x3F80);  // just below: down
    EXPECT_EQ(toBf16(std::numeric_limits<float>::infinity()), 0x7F80);
    EXPECT_EQ(toBf16(bitsToFloat(0x7F7FFFFFu)), 0x7F80);  // the largest float rounds to infinity
    EXPECT_TRUE(std::isnan(fromBf16(toBf16(std::numeric_limits<float>::quiet_NaN()))));
    EXPECT_TRUE(std::isnan(fromBf16(toBf16(bitsToFloat(0x7F800001u)))));  // a NaN whose high half is inf
    EXPECT_EQ(toBf16(bitsToFloat(0x00400000u)), 0x0000);                  // denormals flush to zero
    EXPECT_EQ(toBf16(bitsToFloat(0x80400000u)), 0x8000);
    EXPECT_EQ(fromBf16(0x4049), 3.140625f);
}

TEST(Bf16Kernels, PacksBothStridesIntoPairsOfRowsPerColumn) {
    SKIP_WITHOUT_BF16();
    for (std::int64_t k : {1, 2, 7, 64, 133})
        for (std::int64_t n : {1, 5, 16, 17, 32, 45, 100})
            for (bool transposed : {false, true}) {
                SCOPED_TRACE("k=" + std::to_string(k) + " n=" + std::to_string(n) +
                             (transposed ? " B^T" : " B"));
                const auto b = randomMatrix(k, n, 3);
                const std::int64_t strideK = transposed ? 1 : n, strideN = transposed ? k : 1;
                std::vector<std::uint16_t> packed(static_cast<std::size_t>(packedSize(k, n)), 0xFFFF);
                packPanels(b.data(), strideK, strideN, k, n, 0, panelCount(n), packed.data());
                const std::int64_t pairs = (k + 1) / 2;
                int wrong = 0;
                for (std::int64_t p = 0; p < panelCount(n); ++p)
                    for (std::int64_t q = 0; q < pairs; ++q)
                        for (std::int64_t j = 0; j < 32; ++j)
                            for (std::int64_t e = 0; e < 2; ++e) {
                                const std::int64_t col = p * 32 + j, kk = 2 * q + e;
                                const std::uint16_t want =
                                    col < n && kk < k ? toBf16(b[kk * strideK + col * strideN]) : 0;
                                wrong += packed[((p * pairs + q) * 32 + j) * 2 + e] != want;
                            }
                EXPECT_EQ(wrong, 0);
            }
}

TEST(Bf16Kernels, PackingRowsPieceByPieceGivesTheWholePacking) {
    SKIP_WITHOUT_BF16();
    // The LSTM's backward packs its gate gradients a step's rows at a time (a few rows per thread): any even
    // split of the rows, with an odd k's last piece odd, must leave exactly what packing B at once leaves.
    for (std::int64_t k : {2, 7, 24, 133})
        for (std::int64_t n : {5, 16, 45, 100})
            for (std::int64_t piece : {2, 4, 10}) {
                SCOPED_TRACE("k=" + std::to_string(k) + " n=" + std::to_string(n) +
                             " piece=" + std::to_string(piece));
                const auto b = randomMatrix(k, n, 11);
                std::vector<std::uint16_t> whole(static_cast<std::size_t>(packedSize(k, n)), 0xFFFF);
                std::vector<std::uint16_t> pieces(whole.size(), 0xEEEE);
                packPanels(b.data(), n, 1, k, n, 0, panelCount(n), whole.data());
                // Out of order, as threads finish: the last piece first.
                std::vector<std::int64_t> starts;
                for (std::int64_t r = 0; r < k; r += piece) starts.push_back(r);
                for (auto it = starts.rbegin(); it != starts.rend(); ++it) {
                    const std::int64_t count = std::min(piece, k - *it);
                    packRows(b.data() + *it * n, n, *it, count, k, n, pieces.data());
                }
                EXPECT_EQ(pieces, whole);
            }
}

TEST(Bf16Kernels, PackedRowProductsMatchDoubleOverRoundedOperands) {
    SKIP_WITHOUT_BF16();
    // Rows 1..25 (every remainder of 12 and of the AMX tiles' 16, balanced blocks), and more than one chunk
    // of rows that share a pass over B (64: rows [1, 130) are 64 + 64 + 1); widths with full, half and
    // partial panels. The two terms' depths (k, k2): on AMX tiles, whole tiles of 16 pairs in both (32, 64),
    // a remainder in one (33: 17 pairs), the same remainder in both (8, 7: 4 pairs), and remainders that
    // differ (1, 6 against 7), which the AVX512_BF16 kernel computes instead.
    using Depths = std::pair<std::int64_t, std::int64_t>;
    for (std::int64_t m : {1, 4, 11, 12, 13, 16, 17, 25, 130})
        for (std::int64_t n : {3, 16, 20, 32, 45, 100})
            for (auto [k, k2] :
                 {Depths{1, 7}, Depths{6, 7}, Depths{33, 7}, Depths{32, 64}, Depths{33, 32}, Depths{8, 7}}) {
                SCOPED_TRACE("m=" + std::to_string(m) + " n=" + std::to_string(n) +
                             " k=" + std::to_string(k) + " k2=" + std::to_string(k2));
                const auto a1 = randomMatrix(m, k, 5), b1 = randomMatrix(k, n, 6);
                const auto a2 = randomMatrix(m, k2, 7), b2 = randomMatrix(k2, n, 8);
                const auto bias = randomMatrix(1, n, 9);
                std::vector<std::uint16_t> p1(static_cast<std::size_t>(packedSize(k, n)));
                std::vector<std::uint16_t> p2(static_cast<std::size_t>(packedSize(k2, n)));
                packPanels(b1.data(), n, 1, k, n, 0, panelCount(n), p1.data());
                packPanels(b2.data(), n, 1, k2, n, 0, panelCount(n), p2.data());
                const Operand ops[2] = {{a1.data(), k, p1.data(), k}, {a2.data(), k2, p2.data(), k2}};
                const auto e1 = reference(a1, k, 1, b1, m, k, n, bias.data());
                const auto e2 = reference(a2, k2, 1, b2, m, k2, n, nullptr);
                std::vector<double> expected(e1.size());
                for (std::size_t i = 0; i < e1.size(); ++i) expected[i] = e1[i] + e2[i];
                // Rows [1, m) of C only: row 0 and the column beyond n (ldc = n + 1) must stay untouched.
                const std::int64_t ldc = n + 1;
                std::vector<float> c(static_cast<std::size_t>(m * ldc), 42.0f);
                gemmPackedRows(ops, 2, bias.data(), c.data(), ldc, 1, m, n, /*accumulate=*/false);
                std::vector<double> tail(expected.begin() + n, expected.end());
                EXPECT_LT(worstError(c, ldc, tail, m - 1, n, 1), 1e-4);
                for (std::int64_t j = 0; j <= n; ++j) EXPECT_EQ(c[j], 42.0f);
                for (std::int64_t r = 0; r < m; ++r) EXPECT_EQ(c[r * ldc + n], 42.0f);
                // Accumulate adds onto what C holds.
                std::vector<float> acc(static_cast<std::size_t>(m * n), 1.0f);
                gemmPackedRows(ops, 2, bias.data(), acc.data(), n, 0, m, n, /*accumulate=*/true);
                for (auto& x : expected) x += 1.0;
                EXPECT_LT(worstError(acc, n, expected, m, n), 1e-4);
            }
}

TEST(Bf16Kernels, RowsAlreadyInBf16GiveTheSameProductAsRowsConvertedByTheKernel) {
    SKIP_WITHOUT_BF16();
    // The LSTM's backward hands its gate gradients over already converted (Operand::halves).
    for (std::int64_t m : {2, 13, 25, 130})
        for (std::int64_t k : {2, 8, 400}) {
            SCOPED_TRACE("m=" + std::to_string(m) + " k=" + std::to_string(k));
            const std::int64_t n = 45, lda = k + 2;
            const auto a = randomMatrix(m, lda, 12), b = randomMatrix(k, n, 13);
            std::vector<std::uint16_t> halves(a.size());
            toBf16(a.data(), halves.data(), static_cast<std::int64_t>(a.size()));
            std::vector<std::uint16_t> packed(static_cast<std::size_t>(packedSize(k, n)));
            packPanels(b.data(), n, 1, k, n, 0, panelCount(n), packed.data());
            const Operand fromFloats{a.data(), lda, packed.data(), k};
            const Operand fromHalves{nullptr, lda, packed.data(), k, halves.data()};
            std::vector<float> expected(static_cast<std::size_t>(m * n)), c(expected.size());
            gemmPackedRows(&fromFloats, 1, nullptr, expected.data(), n, 0, m, n, /*accumulate=*/false);
            gemmPackedRows(&fromHalves, 1, nullptr, c.data(), n, 0, m, n, /*accumulate=*/false);
            EXPECT_EQ(c, expected);
        }
}

TEST(Bf16Kernels, LargeProductsMatchDoubleForRowMajorAndTransposedLeftOperands) {
    SKIP_WITHOUT_BF16();
    // k spans several 384-deep blocks and ends odd; m is not a multiple of 12; n ends in a half panel.
    const std::int64_t m = 37, k = 901, n = 77;
    const auto a = randomMatrix(m, k, 11), b = randomMatrix(k, n, 12);
    std::vector<float> aT(a.size());
    for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t kk = 0; kk < k; ++kk) aT[kk * m + r] = a[r * k + kk];
    std::vector<std::uint16_t> packed(static_cast<std::size_t>(packedSize(k, n)));
    packPanels(b.data(), n, 1, k, n, 0, panelCount(n), packed.data());
    // With a bias (the head's): added once, with the first block of k, not once per block.
    const auto bias = randomMatrix(1, n, 13);
    const auto expected = reference(a, k, 1, b, m, k, n, bias.data());
    // Tolerance: fp32 sums of 901 products of magnitude ~1: a few 1e-5 at most.
    for (bool transposed : {false, true}) {
        SCOPED_TRACE(transposed ? "A^T view" : "A row-major");
        std::vector<float> c(static_cast<std::size_t>(m * n), -1.0f);
        // In two row ranges, as two threads would.
        const float* data = transposed ? aT.data() : a.data();
        const std::int64_t rowStride = transposed ? 1 : k, colStride = transposed ? m : 1;
        gemmRows(data, rowStride, colStride, packed.data(), k, n, bias.data(), c.data(), n, 0, 17, false);
        gemmRows(data, rowStride, colStride, packed.data(), k, n, bias.data(), c.data(), n, 17, m, false);
        EXPECT_LT(worstError(c, n, expected, m, n), 2e-3);
        gemmRows(data, rowStride, colStride, packed.data(), k, n, bias.data(), c.data(), n, 0, m,
                 /*accumulate=*/true);
        std::vector<double> twice(expected);
        for (auto& x : twice) x *= 2.0;
        EXPECT_LT(worstError(c, n, twice, m, n), 4e-3);
    }
    // Against the unrounded fp32 product the error is bf16's: ~2^-9 relative per operand, averaged over k.
    double worst = 0.0, scale = 0.0;
    std::vector<float> c(static_cast<std::size_t>(m * n));
    gemmRows(a.data(), k, 1, packed.data(), k, n, nullptr, c.data(), n, 0, m, false);
    for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t j = 0; j < n; ++j) {
            double exact = 0.0;
            for (std::int64_t kk = 0; kk < k; ++kk)
                exact += static_cast<double>(a[r * k + kk]) * b[kk * n + j];
            worst = std::max(worst, std::abs(c[r * n + j] - exact));
            scale = std::max(scale, std::abs(exact));
        }
    EXPECT_GT(worst, 1e-3);  // bf16 really was used: fp32 would be ~1e-5 here
    EXPECT_LT(worst, 0.02 * std::sqrt(static_cast<double>(k)));
}

TEST(Bf16Kernels, StackedColumnPartsMatchTheProductOfTheStackedMatrix) {
    SKIP_WITHOUT_BF16();
    // The LSTM's weight gradients: A = [x^T; h^T] with h's first columns from h0 (the head) and the rest from
    // the steps' outputs. k spans three 384-deep blocks and ends odd; row ranges cross the parts' border.
    const std::int64_t k = 901, n = 45, inRows = 13, hRows = 20, head = 6, m = inRows + hRows;
    const auto x = randomMatrix(k, inRows, 21), h0 = randomMatrix(head, hRows, 22),
               out = randomMatrix(k - head, hRows, 23), b = randomMatrix(k, n, 24);
    // The stacked matrix A [m, k] the parts stand for.
    std::vector<float> a(static_cast<std::size_t>(m * k));
    for (std::int64_t kk = 0; kk < k; ++kk) {
        for (std::int64_t r = 0; r < inRows; ++r) a[r * k + kk] = x[kk * inRows + r];
        for (std::int64_t r = 0; r < hRows; ++r)
            a[(inRows + r) * k + kk] = kk < head ? h0[kk * hRows + r] : out[(kk - head) * hRows + r];
    }
    std::vector<std::uint16_t> packed(static_cast<std::size_t>(packedSize(k, n)));
    packPanels(b.data(), n, 1, k, n, 0, panelCount(n), packed.data());
    const auto expected = reference(a, k, 1, b, m, k, n, nullptr);
    const ColumnPart parts[2] = {{x.data(), nullptr, 0, inRows, inRows},
                                 {out.data(), h0.data(), head, hRows, hRows}};
    std::vector<float> c(static_cast<std::size_t>(m * n), -1.0f);
    for (auto [m0, m1] : {std::pair<std::int64_t, std::int64_t>{0, 9}, {9, 17}, {17, m}})
        gemmColumnParts(parts, 2, packed.data(), k, n, c.data(), n, m0, m1);
    EXPECT_LT(worstError(c, n, expected, m, n), 2e-3);
}

TEST(Bf16Kernels, AmxTilesAreUsedWhereTheCpuHasThem) {
    SKIP_WITHOUT_BF16();
    // The kernel's own check (CPUID, then Linux's permission for the tiles' state) against what the kernel
    // of the operating system lists for this CPU, and the switches that turn the tiles off.
    std::ifstream cpuinfo("/proc/cpuinfo");
    if (!cpuinfo) GTEST_SKIP() << "no /proc/cpuinfo to compare with";
    std::string line, flags;
    while (std::getline(cpuinfo, line))
        if (line.rfind("flags", 0) == 0) {
            flags = " " + line.substr(line.find(':') + 1) + " ";
            break;
        }
    const bool listed =
        flags.find(" amx_tile ") != std::string::npos && flags.find(" amx_bf16 ") != std::string::npos;
    const char* off = std::getenv("LSTM_WORKBENCH_AMX");
    const bool switchedOff = off && std::string(off) == "off";
    EXPECT_EQ(amx::usable(), listed && !switchedOff && wb::cpuCapabilityAllows(wb::CpuLevel::Avx512))
        << "flags:" << flags;
}
