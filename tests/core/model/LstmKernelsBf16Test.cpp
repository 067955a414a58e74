// The gate kernels that write bf16 (model/LstmKernels.h: forwardRowsBf16, backwardPairsBf16) against the fp32
// kernels they replace in a CPU bf16 scope, followed by the conversions that path did afterwards
// (bf16kernels::toBf16, packRows, addRows): every output must be equal bit for bit, over hidden sizes with
// and without a masked tail (7, 100) and whole vectors (16, 128), and a strided output gradient. Skipped on
// CPUs without AVX-512 and AVX512_BF16.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "model/Bf16Kernels.h"
#include "model/LstmKernels.h"

using namespace wb;

namespace {

std::vector<float> randomValues(std::size_t n, std::uint32_t seed, float scale = 1.0f) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float> v(n);
    for (auto& x : v) x = normal(gen);
    return v;
}

// Bitwise equality of two float arrays (EXPECT_EQ on vectors of floats would also pass -0 == 0).
bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

double worstDifference(const std::vector<float>& a, const std::vector<float>& b) {
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
    return worst;
}

#define SKIP_WITHOUT_BF16_GATES()                 \
    if (!lstmkernels::bf16GateKernelsAvailable()) \
    GTEST_SKIP() << "this CPU has no AVX-512 with AVX512_BF16 (or LSTM_WORKBENCH_AVX512_GATES=off)"

}  // namespace

TEST(LstmKernelsBf16, ForwardWritesActivationsWithinABf16UnitAndStatesWithinTheirError) {
    SKIP_WITHOUT_BF16_GATES();
    // The bf16 forward computes its activations to ~5e-6 (a shorter exp polynomial, no tanh series near 0),
    // not to fp32's ~1e-7: the saved activations may differ from the exact ones converted by one bf16 unit
    // where the exact value lies near a rounding boundary, and the states by a few 1e-6.
    const std::int64_t rows = 5;
    for (std::int64_t h : {7, 16, 100, 128}) {
        SCOPED_TRACE("h=" + std::to_string(h));
        const auto n = static_cast<std::size_t>(rows * h);
        const auto preact = randomValues(4 * n, 1, 3.0f), cPrev = randomValues(n, 2);
        // The exact fp32 kernel, then the conversion of its activations.
        auto gates = preact;
        std::vector<float> cNext(n), hNext(n), tanhC(n);
        lstmkernels::forwardRows(gates.data(), cPrev.data(), cNext.data(), hNext.data(), tanhC.data(), 0,
                                 rows, h);
        std::vector<std::uint16_t> expected(4 * n);
        bf16kernels::toBf16(gates.data(), expected.data(), static_cast<std::int64_t>(4 * n));
        // The bf16 kernel.
        auto gates16 = preact;
        std::vector<float> cNext16(n), hNext16(n), tanhC16(n);
        std::vector<std::uint16_t> saved(4 * n, 0xEEEE);
        lstmkernels::forwardRowsBf16(gates16.data(), cPrev.data(), cNext16.data(), hNext16.data(),
                                     tanhC16.data(), saved.data(), rows, h);
        int moreThanOneUnit = 0, oneUnit = 0;
        for (std::size_t i = 0; i < saved.size(); ++i) {
            const int units = std::abs(static_cast<int>(saved[i]) - static_cast<int>(expected[i]));
            moreThanOneUnit += units > 1;
            oneUnit += units == 1;
        }
        EXPECT_EQ(moreThanOneUnit, 0);
        EXPECT_LT(oneUnit, static_cast<int>(saved.size() / 20)) << "most round to the same bf16";
        EXPECT_LT(worstDifference(cNext16, cNext), 2e-5);
        EXPECT_LT(worstDifference(hNext16, hNext), 2e-5);
        EXPECT_LT(worstDifference(tanhC16, tanhC), 2e-5);
        EXPECT_TRUE(sameBits(gates16, preact)) << "the pre-activations are left as they were";
    }
}

TEST(LstmKernelsBf16, BackwardPairsWriteTheConvertedGradientsTheirPackingAndTheBiasSum) {
    SKIP_WITHOUT_BF16_GATES();
    const std::int64_t rows = 6;
    for (std::int64_t h : {7, 16, 100, 128}) {
        SCOPED_TRACE("h=" + std::to_string(h));
        const auto n = static_cast<std::size_t>(rows * h), width = static_cast<std::size_t>(4 * h);
        // Activations in (0, 1) saved as bf16, states and gradients; dOut's rows h + 3 apart.
        std::vector<std::uint16_t> act(4 * n);
        const auto actValues = randomValues(4 * n, 3);
        for (std::size_t i = 0; i < act.size(); ++i)
            act[i] = bf16kernels::toBf16(1.0f / (1.0f + std::exp(-actValues[i])));
        const auto cPrev = randomValues(n, 4), tanhC = randomValues(n, 5, 0.5f), dhRec = randomValues(n, 6);
        const std::int64_t dOutStride = h + 3;
        const auto dOut = randomValues(static_cast<std::size_t>(rows * dOutStride), 7);
        const auto dcIn = randomValues(n, 8), sumIn = randomValues(width, 9);
        // The fp32 kernel, then the bias sum and the conversions.
        auto dc = dcIn, sum = sumIn;
        std::vector<float> dGates(4 * n);
        lstmkernels::backwardRows(act.data(), cPrev.data(), tanhC.data(), dOut.data(), dOutStride,
                                  dhRec.data(), dc.data(), dGates.data(), 0, rows, h);
        lstmkernels::addRows(dGates.data(), 0, rows, 4 * h, sum.data());
        std::vector<std::uint16_t> rowsExpected(4 * n);
        bf16kernels::toBf16(dGates.data(), rowsExpected.data(), static_cast<std::int64_t>(4 * n));
        // Packed as the weight gradients' operand: rows 2..7 of a 10-row B (an even first row inside it).
        const std::int64_t k = 10, firstRow = 2;
        std::vector<std::uint16_t> packedExpected(static_cast<std::size_t>(bf16kernels::packedSize(k, 4 * h)),
                                                  0);
        auto packed = packedExpected;
        bf16kernels::packRows(dGates.data(), 4 * h, firstRow, rows, k, 4 * h, packedExpected.data());
        // The bf16 kernel.
        auto dc16 = dcIn, sum16 = sumIn;
        std::vector<std::uint16_t> dGateRows(4 * n, 0xEEEE);
        std::vector<std::uint32_t> dGatePairs(2 * n, 0xEEEEEEEEu);
        lstmkernels::backwardPairsBf16(act.data(), cPrev.data(), tanhC.data(), dOut.data(), dOutStride,
                                       dhRec.data(), dc16.data(), dGateRows.data(), dGatePairs.data(),
                                       sum16.data(), rows, h);
        bf16kernels::packPairRows(dGatePairs.data(), 4 * h, firstRow, rows, k, 4 * h, packed.data());
        EXPECT_EQ(dGateRows, rowsExpected);
        EXPECT_EQ(packed, packedExpected);
        EXPECT_TRUE(sameBits(sum16, sum));
        EXPECT_TRUE(sameBits(dc16, dc));
    }
}
