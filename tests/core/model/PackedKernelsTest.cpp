// The fp32 packed products of the recurrence (model/LstmKernels.h, gemmPackedRows; at the end the weight
// gradients' step sums, addColumnPartsProduct) on every kernel this CPU
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

// packPanels in the three layouts the recurrence hands it: rows contiguous (the backward's W), rows
// contiguous with a wider stride (a view), and columns contiguous (the forward's W^T, a transpose); every
// element where the panels put it, the columns past n zero.
TEST(PackedKernels, PackingPutsEveryElementInItsPanelInEveryLayout) {
    for (std::int64_t k : {1, 7, 37})
        for (std::int64_t n : {3, 16, 20, 48}) {
            const auto source = randomMatrix(k + 1, n + 5, 9);  // room for every layout below
            struct Layout {
                std::int64_t strideK, strideN;
            };
            for (const Layout l : {Layout{n, 1}, Layout{n + 5, 1}, Layout{1, k + 1}}) {
                SCOPED_TRACE("k=" + std::to_string(k) + " n=" + std::to_string(n) + " strides " +
                             std::to_string(l.strideK) + "," + std::to_string(l.strideN));
                std::vector<float> packed(static_cast<std::size_t>(packedPanelsSize(k, n)), -1.0f);
                packPanels(source.data(), l.strideK, l.strideN, k, n, packed.data());
                for (std::int64_t p = 0; p * 16 < n; ++p)
                    for (std::int64_t kk = 0; kk < k; ++kk)
                        for (std::int64_t j = 0; j < 16; ++j) {
                            const std::int64_t col = p * 16 + j;
                            const float expected = col < n ? source[kk * l.strideK + col * l.strideN] : 0.0f;
                            ASSERT_EQ(packed[(p * k + kk) * 16 + j], expected) << p << " " << kk << " " << j;
                        }
            }
        }
}

TEST(PackedKernels, StepWeightGradientsMatchDoubleOnEveryKernel) {
    // The fp32 weight gradients summed during the walk: C += A B with A = [x^T; h^T] stacked from two parts,
    // a group of parts per step; part rows crossing the 12-row blocks (13 + 20 = 33), n with an odd panel
    // count and a partial last panel (45) or whole panels (64); more steps than one pass takes (17); C wider
    // than n and holding values already (the sums of earlier steps), its extra column untouched.
    for (const PackedIsa isa : packedIsas())
        for (std::int64_t n : {45, 64})
            for (int steps : {1, 3, 17}) {
                SCOPED_TRACE(std::string(packedIsaName(isa)) + " n=" + std::to_string(n) +
                             " steps=" + std::to_string(steps));
                const std::int64_t rows = 5, inRows = 13, hRows = 20, m = inRows + hRows, ldb = n + 3;
                const std::int64_t k = steps * rows, ldc = n + 1;
                const auto x = randomMatrix(k, inRows, 51), h = randomMatrix(k, hRows, 52);
                const auto b = randomMatrix(k, ldb, 53), c0 = randomMatrix(m, ldc, 54);
                std::vector<wb::ColumnPart> parts;
                for (int j = 0; j < steps; ++j) {
                    parts.push_back({x.data() + j * rows * inRows, nullptr, 0, inRows, inRows});
                    parts.push_back({h.data() + j * rows * hRows, nullptr, 0, hRows, hRows});
                }
                std::vector<float> c = c0;
                addColumnPartsProduct(parts.data(), 2, steps, rows, b.data(), ldb, n, c.data(), ldc, isa);
                double worst = 0.0;
                for (std::int64_t r = 0; r < m; ++r) {
                    for (std::int64_t j = 0; j < n; ++j) {
                        double sum = c0[r * ldc + j];
                        for (std::int64_t kk = 0; kk < k; ++kk)
                            sum += double(r < inRows ? x[kk * inRows + r] : h[kk * hRows + r - inRows]) *
                                   double(b[kk * ldb + j]);
                        worst = std::max(worst, std::abs(c[r * ldc + j] - sum));
                    }
                    EXPECT_EQ(c[r * ldc + n], c0[r * ldc + n]);
                }
                EXPECT_LT(worst, 1e-4);
            }
}
