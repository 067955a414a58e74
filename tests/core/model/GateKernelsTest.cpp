// The gate kernels against the same math in double: the forward's activations and states, the backward's gate
// gradients, over hidden sizes with a masked tail only (1, 5), whole
// vectors (8, 16, 128) and both (13, 100), with pre-activations where the kernels change method (tanh's
// series below 0.05, exp's clamp beyond 87). Nothing is written past a row, and the backward's prefetch of
// the next step changes no value. Twice: the AVX2 kernels themselves (model/GateKernelsAvx2.h; skipped on
// CPUs without AVX2 and FMA), and whichever kernels lstmkernels::forwardRows and backwardRows pick here
// (AVX-512 on this project's machines, AVX2 on a Zen 3 or under LSTM_WORKBENCH_CPU_CAPABILITY=avx2, the
// portable row functions under =default).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "model/GateKernelsAvx2.h"
#include "model/LstmKernels.h"

using namespace wb::lstmkernels;

namespace {

constexpr float kGuard = 12345.0f;  // written past each row: must stay
constexpr std::int64_t kPad = 8;

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// fp32 rounding and the kernels' exp (~2e-7 relative) leave a few 1e-7 relative, and a
// little absolute where a state is a difference of two terms.
void expectNear(float ours, double exact, const std::string& what) {
    EXPECT_LE(std::abs(double(ours) - exact), 1e-6 * std::abs(exact) + 2e-7)
        << what << ": " << ours << " vs " << exact;
}

std::vector<float> uniform(std::size_t n, std::uint32_t seed, float lo, float hi) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n + kPad, kGuard);
    for (std::size_t i = 0; i < n; ++i) v[i] = d(gen);
    return v;
}

void expectGuards(const std::vector<float>& v, std::size_t n, const std::string& what) {
    for (std::size_t i = n; i < v.size(); ++i)
        EXPECT_EQ(v[i], kGuard) << what << " written past its row at " << i;
}

const std::int64_t kHidden[] = {1, 5, 8, 13, 16, 100, 128};

// One row's kernels, as avx2gates has them.
using ForwardRow = std::function<void(float*, const float*, float*, float*, float*, std::int64_t)>;
using GradRow = std::function<void(const float*, const float*, const float*, const float*, const float*,
                                   float*, float*, std::int64_t, std::int64_t)>;

void checkForward(const ForwardRow& forwardRow) {
    for (const std::int64_t h : kHidden) {
        SCOPED_TRACE("h=" + std::to_string(h));
        const auto n = static_cast<std::size_t>(h);
        auto g = uniform(4 * n, 1 + static_cast<std::uint32_t>(h), -8.0f, 8.0f);
        // Where the methods change: tanh's series (|x| < 0.05) and its edge, zero, exp's clamp.
        const float special[] = {0.0f, 1e-3f, -0.049f, 0.051f, 100.0f, -100.0f, 30.0f, -0.2f};
        for (std::size_t k = 0; k < 4 * n; k += 3) g[k] = special[(k / 3) % 8];
        const auto cp = uniform(n, 7, -3.0f, 3.0f);
        const std::vector<float> pre = g;
        std::vector<float> cn(n + kPad, kGuard), tc(n + kPad, kGuard), hn(n + kPad, kGuard);
        forwardRow(g.data(), cp.data(), cn.data(), tc.data(), hn.data(), h);
        for (std::size_t j = 0; j < n; ++j) {
            const double i = sigmoid(pre[j]), f = sigmoid(pre[n + j]), gg = std::tanh(double(pre[2 * n + j])),
                         o = sigmoid(pre[3 * n + j]);
            expectNear(g[j], i, "i " + std::to_string(j));
            expectNear(g[n + j], f, "f " + std::to_string(j));
            expectNear(g[2 * n + j], gg, "g " + std::to_string(j));
            expectNear(g[3 * n + j], o, "o " + std::to_string(j));
            // The states from the kernel's own activations: its tanh and products, not the error above.
            const double c = double(g[n + j]) * cp[j] + double(g[j]) * g[2 * n + j];
            expectNear(cn[j], c, "c " + std::to_string(j));
            expectNear(tc[j], std::tanh(double(cn[j])), "tanh(c) " + std::to_string(j));
            expectNear(hn[j], double(g[3 * n + j]) * tc[j], "h " + std::to_string(j));
        }
        expectGuards(g, 4 * n, "gates");
        expectGuards(cn, n, "c");
        expectGuards(tc, n, "tanh(c)");
        expectGuards(hn, n, "h");
    }
}

void checkBackward(const GradRow& gradRow) {
    for (const std::int64_t h : kHidden) {
        for (const std::int64_t stepBack : {std::int64_t{0}, h}) {
            SCOPED_TRACE("h=" + std::to_string(h) + " stepBack=" + std::to_string(stepBack));
            const auto n = static_cast<std::size_t>(h);
            // Two steps' rows: the kernel reads the second and prefetches the first (stepBack before it).
            auto act = uniform(8 * n, 11, 0.01f, 0.99f);
            for (std::size_t j = 2 * n; j < 3 * n; ++j) act[4 * n + j] = 2.0f * act[4 * n + j] - 1.0f;  // g
            const auto cp = uniform(2 * n, 12, -2.0f, 2.0f), tc = uniform(2 * n, 13, -0.99f, 0.99f);
            const auto dOut = uniform(n, 14, -1.0f, 1.0f), dhRec = uniform(n, 15, -1.0f, 1.0f);
            const auto dcIn = uniform(n, 16, -1.0f, 1.0f);
            auto dc = dcIn;
            std::vector<float> d(4 * n + kPad, kGuard);
            const std::size_t row = 4 * n, state = n;  // the second step's row
            gradRow(act.data() + row, cp.data() + state, tc.data() + state, dOut.data(), dhRec.data(),
                    dc.data(), d.data(), h, stepBack);
            for (std::size_t j = 0; j < n; ++j) {
                const auto a = [&](std::size_t k) { return double(act[row + k * n + j]); };
                const double i = a(0), f = a(1), g = a(2), o = a(3), t = tc[state + j];
                const double dh = double(dOut[j]) + dhRec[j];
                const double dcj = dcIn[j] + dh * o * (1.0 - t * t);
                expectNear(d[j], dcj * g * i * (1.0 - i), "di " + std::to_string(j));
                expectNear(d[n + j], dcj * cp[state + j] * f * (1.0 - f), "df " + std::to_string(j));
                expectNear(d[2 * n + j], dcj * i * (1.0 - g * g), "dg " + std::to_string(j));
                expectNear(d[3 * n + j], dh * t * o * (1.0 - o), "do " + std::to_string(j));
                expectNear(dc[j], dcj * f, "dc " + std::to_string(j));
            }
            expectGuards(d, 4 * n, "gate gradients");
            expectGuards(dc, n, "dc");
        }
    }
}

}  // namespace

TEST(GateKernels, Avx2ForwardRowMatchesDoubleAndWritesNothingPastTheRow) {
    if (!avx2gates::available()) GTEST_SKIP() << "no AVX2 and FMA here (or the capability cap forbids them)";
    checkForward(avx2gates::forwardRow);
}

TEST(GateKernels, Avx2GradRowMatchesDoubleWithOrWithoutPrefetch) {
    if (!avx2gates::available()) GTEST_SKIP() << "no AVX2 and FMA here (or the capability cap forbids them)";
    checkBackward(avx2gates::gradRow);
}

TEST(GateKernels, TheKernelsPickedHereMatchDoubleAndWriteNothingPastTheRow) {
    checkForward([](float* g, const float* cp, float* cn, float* tc, float* hn, std::int64_t h) {
        forwardRows(g, cp, cn, hn, tc, 0, 1, h);
    });
    const auto picked = [](const float* a, const float* cp, const float* tc, const float* dOut,
                           const float* dhRec, float* dc, float* d, std::int64_t h, std::int64_t stepBack) {
        backwardRows(a, cp, tc, dOut, 0, dhRec, dc, d, 0, 1, h, stepBack);
    };
    checkBackward(picked);
}
