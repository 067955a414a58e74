// The fp32 packed products of the recurrence (model/LstmKernels.h, gemmPackedRows) on every kernel this CPU
// can run (portable, AVX2, AVX-512) against a product computed in double: every row count up to two of the
// AVX-512 kernel's 12-row blocks and past, widths with an odd panel count and a partial last panel, two
// operands with their own leading dimensions, the bias, accumulation, and rows outside [r0, r1) and columns
// beyond n left untouched.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "model/LstmKernels.h"
#include "support/KernelTestSupport.h"

using namespace wb::lstmkernels;

using wbtest::randomMatrix;

TEST(PackedKernels, EveryKernelMatchesDoubleOnEveryShapePart) {
    const auto isas = packedIsas();
    ASSERT_FALSE(isas.empty());
    EXPECT_EQ(isas.front(), PackedIsa::Portable);
    EXPECT_NE(std::find(isas.begin(), isas.end(), packedIsa()), isas.end());
    for (const PackedIsa isa : isas)
        for (std::int64_t m : {1, 5, 12, 13, 24, 25, 33})
            for (std::int64_t n : {3, 16, 20, 32, 48, 100, 148})
                for (std::int64_t k1 : {1, 37}) {
                    SCOPED_TRACE(std::string(packedIsaName(isa)) + " m=" + std::to_string(m) +
                                 " n=" + std::to_string(n) + " k=" + std::to_string(k1));
                    const std::int64_t k2 = 9, lda1 = k1 + 3;  // A's rows wider than k: a view's stride
                    const auto a1 = randomMatrix(m, lda1, 1), b1 = randomMatrix(k1, n, 2);
                    const auto a2 = randomMatrix(m, k2, 3), b2 = randomMatrix(k2, n, 4);
                    const auto bias = randomMatrix(1, n, 5);
                    std::vector<float> p1(static_cast<std::size_t>(packedPanelsSize(k1, n)));
                    std::vector<float> p2(static_cast<std::size_t>(packedPanelsSize(k2, n)));
                    packPanels(b1.data(), n, 1, k1, n, p1.data());
                    packPanels(b2.data(), n, 1, k2, n, p2.data());
                    const PackedOperand ops[2] = {{a1.data(), lda1, p1.data(), k1},
                                                  {a2.data(), k2, p2.data(), k2}};
                    std::vector<double> expected(static_cast<std::size_t>(m * n));
                    for (std::int64_t r = 0; r < m; ++r)
                        for (std::int64_t j = 0; j < n; ++j) {
                            double sum = bias[j];
                            for (std::int64_t kk = 0; kk < k1; ++kk)
                                sum += double(a1[r * lda1 + kk]) * double(b1[kk * n + j]);
                            for (std::int64_t kk = 0; kk < k2; ++kk)
                                sum += double(a2[r * k2 + kk]) * double(b2[kk * n + j]);
                            expected[r * n + j] = sum;
                        }
                    // Rows [1, m) only, C one column wider than n: row 0 and that column stay 42.
                    const std::int64_t ldc = n + 1;
                    std::vector<float> c(static_cast<std::size_t>(m * ldc), 42.0f);
                    gemmPackedRows(ops, 2, bias.data(), c.data(), ldc, 1, m, n, false, isa);
                    double worst = 0;
                    for (std::int64_t r = 1; r < m; ++r)
                        for (std::int64_t j = 0; j < n; ++j)
                            worst = std::max(worst, std::abs(c[r * ldc + j] - expected[r * n + j]));
                    EXPECT_LT(worst, 1e-4);
                    for (std::int64_t j = 0; j <= n && j < ldc; ++j) EXPECT_EQ(c[j], 42.0f);
                    for (std::int64_t r = 0; r < m; ++r) EXPECT_EQ(c[r * ldc + n], 42.0f);
                    // Accumulate adds onto what C holds; without a bias, the bias is not added.
                    std::vector<float> acc(static_cast<std::size_t>(m * n), 1.0f);
                    gemmPackedRows(ops, 2, nullptr, acc.data(), n, 0, m, n, true, isa);
                    worst = 0;
                    for (std::int64_t r = 0; r < m; ++r)
                        for (std::int64_t j = 0; j < n; ++j)
                            worst = std::max(
                                worst, std::abs(acc[r * n + j] - (expected[r * n + j] - bias[j] + 1.0)));
                    EXPECT_LT(worst, 1e-4);
                }
}

TEST(PackedKernels, StepRowsPackedPieceByPieceGiveTheWholePacking) {
    // The LSTM's fp32 backward packs its gate gradients a step's rows at a time, in any order.
    for (std::int64_t n : {5, 16, 45, 400}) {
        SCOPED_TRACE("n=" + std::to_string(n));
        const std::int64_t k = 30;
        const auto b = randomMatrix(k, n, 31);
        std::vector<float> whole(static_cast<std::size_t>(packedPanelsSize(k, n)), -1.0f);
        std::vector<float> pieces(whole.size(), -2.0f);
        packPanels(b.data(), n, 1, k, n, whole.data());
        for (std::int64_t r = k; r > 0; r -= 7) {
            const std::int64_t first = std::max<std::int64_t>(0, r - 7);
            packRowsInto(b.data() + first * n, n, first, r - first, k, n, pieces.data());
        }
        EXPECT_EQ(pieces, whole);
    }
}

TEST(PackedKernels, StackedColumnPartsMatchDouble) {
    // The fp32 weight gradients: A = [x^T; h^T] with h's first columns from h0 (the head); k spans several
    // 256-deep blocks with the head inside the first; row ranges cross the parts' border; n ends in a partial
    // panel and has an odd panel count.
    const std::int64_t k = 601, n = 45, inRows = 13, hRows = 20, head = 6, m = inRows + hRows;
    const auto x = randomMatrix(k, inRows, 41), h0 = randomMatrix(head, hRows, 42),
               out = randomMatrix(k - head, hRows, 43), b = randomMatrix(k, n, 44);
    std::vector<float> packed(static_cast<std::size_t>(packedPanelsSize(k, n)));
    packPanels(b.data(), n, 1, k, n, packed.data());
    const wb::ColumnPart parts[2] = {{x.data(), nullptr, 0, inRows, inRows},
                                     {out.data(), h0.data(), head, hRows, hRows}};
    std::vector<float> c(static_cast<std::size_t>(m * n), -1.0f);
    for (auto [m0, m1] : {std::pair<std::int64_t, std::int64_t>{0, 9}, {9, 17}, {17, m}})
        gemmColumnParts(parts, 2, packed.data(), k, n, c.data(), n, m0, m1);
    double worst = 0.0;
    for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t j = 0; j < n; ++j) {
            double sum = 0.0;
            for (std::int64_t kk = 0; kk < k; ++kk) {
                const double a = r < inRows  ? x[kk * inRows + r]
                                 : kk < head ? h0[kk * hRows + r - inRows]
                                             : out[(kk - head) * hRows + r - inRows];
                sum += a * b[kk * n + j];
            }
            worst = std::max(worst, std::abs(c[r * n + j] - sum));
        }
    EXPECT_LT(worst, 1e-3);  // fp32 sums of 601 products of magnitude ~1
}
