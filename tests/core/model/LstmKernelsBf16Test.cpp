// The gate kernels that write bf16 (model/LstmKernels.h: forwardRowsBf16, backwardPairsBf16) against the same
// math in double: the forward's folded gates (each a bf16 word) and states, what the backward reads back from
// those words (the gate and its derivative's factor, to bf16's precision even where the gate saturates, which
// plain bf16 and fp32 lose), and the backward's gate gradients in bf16, their packing and the bias sum, over
// hidden sizes with and without a masked tail (7, 100) and whole vectors (16, 128), and a strided output
// gradient. Skipped on CPUs without AVX-512 and AVX512_BF16.
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

// Pre-activations from a normal distribution, every fifth one from the tails, where a gate saturates and its
// derivative is what bf16 and fp32 lose: sigmoid(±16) is 1 - 1.1e-7 away from 0 or 1.
std::vector<float> preActivations(std::size_t n, std::uint32_t seed) {
    auto v = randomValues(n, seed, 3.0f);
    const float tails[] = {6.0f, -6.0f, 9.5f, -12.0f, 16.0f, -16.0f, 0.0f, -0.0f, 100.0f, -100.0f, 0.01f};
    for (std::size_t i = 0; i < n; i += 5) v[i] = tails[(i / 5) % std::size(tails)];
    return v;
}

double worstDifference(const std::vector<float>& a, const std::vector<float>& b) {
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
    return worst;
}

// A folded gate (LstmKernels.h) read back, as the backward reads it: the gate's value and its derivative's
// factor, s (1 - s) for a sigmoid gate, 1 - g^2 for the tanh gate.
struct Gate {
    double value, slope;
};
Gate unfold(std::uint16_t word, bool tanhGate) {
    const double v = std::abs(double(bf16kernels::fromBf16(word)));
    const bool negative = (word & 0x8000u) != 0;
    if (tanhGate) return {(negative ? -1.0 : 1.0) * (1.0 - 2.0 * v), 4.0 * v * (1.0 - v)};
    return {negative ? v : 1.0 - v, v * (1.0 - v)};
}
// The exact gate and factor from its pre-activation.
Gate exactGate(double z, bool tanhGate) {
    if (tanhGate) {
        const double g = std::tanh(z);
        // 1 - tanh(z)^2 = 1 / cosh(z)^2, without the cancellation.
        return {g, 1.0 / (std::cosh(z) * std::cosh(z))};
    }
    const double s = 1.0 / (1.0 + std::exp(-z));
    return {s, std::exp(-std::abs(z)) / ((1.0 + std::exp(-std::abs(z))) * (1.0 + std::exp(-std::abs(z))))};
}

#define SKIP_WITHOUT_BF16_GATES()                 \
    if (!lstmkernels::bf16GateKernelsAvailable()) \
    GTEST_SKIP() << "this CPU has no AVX-512 with AVX512_BF16 (or LSTM_WORKBENCH_AVX512_GATES=off)"

}  // namespace

TEST(LstmKernelsBf16, ForwardKeepsFoldedGatesThatGiveBackEachGateAndItsDerivativeToBf16Precision) {
    SKIP_WITHOUT_BF16_GATES();
    const std::int64_t rows = 5;
    for (std::int64_t h : {7, 16, 100, 128}) {
        SCOPED_TRACE("h=" + std::to_string(h));
        const auto n = static_cast<std::size_t>(rows * h);
        const auto preact = preActivations(4 * n, 1), cPrev = randomValues(n, 2);
        // The exact fp32 kernel for the states.
        auto gates = preact;
        std::vector<float> cNext(n), hNext(n), tanhC(n);
        lstmkernels::forwardRows(gates.data(), cPrev.data(), cNext.data(), hNext.data(), tanhC.data(), 0,
                                 rows, h);
        auto gates16 = preact;
        std::vector<float> cNext16(n), hNext16(n), tanhC16(n);
        std::vector<std::uint16_t> saved(4 * n, 0xEEEE);
        lstmkernels::forwardRowsBf16(gates16.data(), cPrev.data(), cNext16.data(), hNext16.data(),
                                     tanhC16.data(), saved.data(), rows, h);
        double worstSlope = 0.0;
        for (std::size_t i = 0; i < saved.size(); ++i) {
            const bool tanhGate = (i / h) % 4 == 2;
            const double z = preact[i];
            const Gate ours = unfold(saved[i], tanhGate), exact = exactGate(z, tanhGate);
            const std::string where = "gate " + std::to_string(i) + " z=" + std::to_string(z);
            EXPECT_EQ((saved[i] & 0x8000u) != 0, std::signbit(z)) << where;
            // bf16 keeps 8 significant bits: rounding is within 2^-8 relative; the kernel's exp adds ~5e-6,
            // and past fp32's range a gate's v is 0. The tanh gate's value near 0 is 1 - 2 v with v near 1/2,
            // in bf16's steps of 2^-9 there: within an absolute 2^-9.
            const double valueTolerance = tanhGate
                                              ? std::ldexp(1.0, -9) + 1e-5
                                              : std::ldexp(1.0, -8) * 1.01 * std::abs(exact.value) + 1e-37;
            EXPECT_LE(std::abs(ours.value - exact.value), valueTolerance) << where;
            // The derivative's factor to bf16's precision, wherever z is (up to exp's clamp at |z| = 87).
            if (std::abs(z) < 40.0) {
                const double slopeError = std::abs(ours.slope - exact.slope) / exact.slope;
                EXPECT_LT(slopeError, 0.008) << where;
                worstSlope = std::max(worstSlope, slopeError);
            } else {
                EXPECT_LT(ours.slope, 1e-30) << where;
            }
        }
        RecordProperty("worst_slope_error_h" + std::to_string(h), std::to_string(worstSlope));
        EXPECT_LT(worstDifference(cNext16, cNext), 2e-5);
        EXPECT_LT(worstDifference(hNext16, hNext), 2e-5);
        EXPECT_LT(worstDifference(tanhC16, tanhC), 2e-5);
        EXPECT_EQ(std::memcmp(gates16.data(), preact.data(), preact.size() * sizeof(float)), 0)
            << "the pre-activations are left as they were";
    }
}

TEST(LstmKernelsBf16, BackwardPairsFromFoldedGatesWriteTheGradientsTheirPackingAndTheBiasSum) {
    SKIP_WITHOUT_BF16_GATES();
    const std::int64_t rows = 6;
    for (std::int64_t h : {7, 16, 100, 128}) {
        SCOPED_TRACE("h=" + std::to_string(h));
        const auto n = static_cast<std::size_t>(rows * h), width = static_cast<std::size_t>(4 * h);
        // Folded gates as the forward keeps them, states and gradients; dOut's rows h + 3 apart.
        auto preact = preActivations(4 * n, 3);
        const auto cPrev = randomValues(n, 4), tanhC = randomValues(n, 5, 0.5f), dhRec = randomValues(n, 6);
        std::vector<std::uint16_t> act(4 * n);
        {
            std::vector<float> cNext(n), hNext(n), tanhScratch(n);
            lstmkernels::forwardRowsBf16(preact.data(), cPrev.data(), cNext.data(), hNext.data(),
                                         tanhScratch.data(), act.data(), rows, h);
        }
        const std::int64_t dOutStride = h + 3;
        const auto dOut = randomValues(static_cast<std::size_t>(rows * dOutStride), 7);
        const auto dcIn = randomValues(n, 8), sumIn = randomValues(width, 9);
        auto dc16 = dcIn, sum16 = sumIn;
        std::vector<std::uint16_t> dGateRows(4 * n, 0xEEEE);
        std::vector<std::uint32_t> dGatePairs(2 * n, 0xEEEEEEEEu);
        lstmkernels::backwardPairsBf16(act.data(), cPrev.data(), tanhC.data(), dOut.data(), dOutStride,
                                       dhRec.data(), dc16.data(), dGateRows.data(), dGatePairs.data(),
                                       sum16.data(), rows, h);
        // The same in double from the gates read back.
        std::vector<double> sum(sumIn.begin(), sumIn.end());
        int moreThanOneUnit = 0, oneUnit = 0;
        for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r) {
            for (std::size_t j = 0; j < static_cast<std::size_t>(h); ++j) {
                const std::size_t gate = r * width + j, state = r * h + j;
                const Gate i = unfold(act[gate], false), f = unfold(act[gate + h], false),
                           g = unfold(act[gate + 2 * h], true), o = unfold(act[gate + 3 * h], false);
                const double t = tanhC[state], dh = double(dOut[r * dOutStride + j]) + dhRec[state];
                const double dcj = dcIn[state] + dh * o.value * (1.0 - t * t);
                const double d[4] = {dcj * g.value * i.slope, dcj * cPrev[state] * f.slope,
                                     dcj * i.value * g.slope, dh * t * o.slope};
                for (std::size_t k = 0; k < 4; ++k) {
                    const std::size_t at = gate + k * h;
                    const int units = std::abs(int(dGateRows[at]) - int(bf16kernels::toBf16(float(d[k]))));
                    moreThanOneUnit += units > 1;
                    oneUnit += units == 1;
                    sum[j + k * h] += d[k];
                }
                EXPECT_NEAR(dc16[state], dcj * f.value, 1e-6 * std::abs(dcj) + 1e-7) << "dc " << state;
            }
        }
        EXPECT_EQ(moreThanOneUnit, 0);
        EXPECT_LT(oneUnit, static_cast<int>(dGateRows.size() / 20)) << "most round to the same bf16";
        for (std::size_t j = 0; j < width; ++j)
            EXPECT_NEAR(sum16[j], sum[j], 1e-5 * (1.0 + std::abs(sum[j])));
        // The row pairs are the rows' words interleaved: packed as the weight gradients' operand (rows 2..7
        // of a 10-row B, an even first row inside it) they equal the rows packed by packRows.
        const std::int64_t k = 10, firstRow = 2;
        std::vector<float> rowValues(4 * n);
        for (std::size_t i = 0; i < rowValues.size(); ++i) rowValues[i] = bf16kernels::fromBf16(dGateRows[i]);
        std::vector<std::uint16_t> packedExpected(static_cast<std::size_t>(bf16kernels::packedSize(k, 4 * h)),
                                                  0);
        auto packed = packedExpected;
        bf16kernels::packRows(rowValues.data(), 4 * h, firstRow, rows, k, 4 * h, packedExpected.data());
        bf16kernels::packPairRows(dGatePairs.data(), 4 * h, firstRow, rows, k, 4 * h, packed.data());
        EXPECT_EQ(packed, packedExpected);
    }
}
