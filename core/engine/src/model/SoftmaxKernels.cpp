// Softmax cross-entropy rows (see SoftmaxKernels.h). A row of a language model's logits (4,379 floats for
// poems) fits the L1/L2 cache: its exponentials are written into the gradient row while they are summed,
// and the scaling pass reads them back from cache, so the logits are read from memory once and the gradient
// written once. Compiled for AVX-512, AVX2 and plain x86-64 and chosen by CPU (model/CpuCapability.h); the 16
// partial sums let GCC vectorise the reduction without reassociating anything itself.
#include "model/SoftmaxKernels.h"

#include <cmath>
#include <cstring>

#include "model/CpuCapability.h"
#include "model/FastMath.h"

namespace wb::softmaxkernels {

namespace {

constexpr std::int64_t kLanes = 16;

// The row's maximum, the first index holding it, and whether the row holds a NaN, in one pass of W lanes
// (GCC's vector extensions, W one register of the build: 16 for AVX-512, 8 for AVX2, 4 for SSE; a wider type
// than the build's registers goes through memory). Each lane keeps its largest value and where it first saw
// it (a strict >, so the first of a tie), and the lanes are merged by value and then by index: the first
// index of the row's maximum, as a scan from the left finds it. v > m ? v : m is what vmaxps computes; a NaN
// never compares greater and is only noted.
struct RowMax {
    float max;
    std::int64_t at;
    bool nan;
};
// The lane types of each build (GCC takes no vector size from a template parameter).
template <int W>
struct Lanes;
#define WB_LANES(W)                                                                \
    template <>                                                                    \
    struct Lanes<W> {                                                              \
        typedef float Floats __attribute__((vector_size(W * sizeof(float))));      \
        typedef std::int32_t Ints __attribute__((vector_size(W * sizeof(float)))); \
    };
WB_LANES(16)
WB_LANES(8)
WB_LANES(4)
#undef WB_LANES

template <int W>
[[gnu::always_inline]] inline RowMax rowMaxBody(const float* __restrict x, std::int64_t n) {
    using Floats = typename Lanes<W>::Floats;
    using Ints = typename Lanes<W>::Ints;
    Floats m, v;
    Ints at, index, nan = {};
    for (std::int32_t l = 0; l < W; ++l) {
        m[l] = -INFINITY;
        at[l] = l;
        index[l] = l;
    }
    std::int64_t j = 0;
    for (; j + W <= n; j += W, index += W) {
        std::memcpy(&v, x + j, sizeof v);
        const Ints greater = v > m;
        m = greater ? v : m;
        at = greater ? index : at;
        nan |= v != v;
    }
    RowMax out{-INFINITY, 0, false};
    for (int l = 0; l < W; ++l) {
        out.nan |= nan[l] != 0;
        if (m[l] > out.max || (m[l] == out.max && at[l] < out.at)) {
            out.max = m[l];
            out.at = at[l];
        }
    }
    for (; j < n; ++j) {
        out.nan |= x[j] != x[j];
        if (x[j] > out.max) {
            out.max = x[j];
            out.at = j;
        }
    }
    return out;
}
constexpr int kRowMaxLanesAvx512 = 16, kRowMaxLanesAvx2 = 8, kRowMaxLanesPortable = 4;

// g[j] = exp(x[j] - max); returns their sum. Inlined into each ISA's build below.
[[gnu::always_inline]] inline float expAndSumBody(const float* __restrict x, float* __restrict g,
                                                  std::int64_t n, float max) {
    float partial[kLanes] = {};
    std::int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes)
        for (std::int64_t l = 0; l < kLanes; ++l) {
            const float e = fastmath::exp(x[j + l] - max);
            g[j + l] = e;
            partial[l] += e;
        }
    float sum = 0.0f;
    for (; j < n; ++j) {
        g[j] = fastmath::exp(x[j] - max);
        sum += g[j];
    }
    for (std::int64_t l = 0; l < kLanes; ++l) sum += partial[l];
    return sum;
}

[[gnu::always_inline]] inline void scaleRowBody(float* __restrict g, std::int64_t n, float factor) {
    for (std::int64_t j = 0; j < n; ++j) g[j] *= factor;
}

using RowMaxFn = RowMax (*)(const float*, std::int64_t);
using ExpAndSum = float (*)(const float*, float*, std::int64_t, float);
using ScaleRow = void (*)(float*, std::int64_t, float);

#ifdef WB_ISA_BUILDS
#define WB_BUILD(attr, suffix)                                                                   \
    attr RowMax rowMax##suffix(const float* __restrict x, std::int64_t n) {                      \
        return rowMaxBody<kRowMaxLanes##suffix>(x, n);                                           \
    }                                                                                            \
    attr float expAndSum##suffix(const float* __restrict x, float* __restrict g, std::int64_t n, \
                                 float max) {                                                    \
        return expAndSumBody(x, g, n, max);                                                      \
    }                                                                                            \
    attr void scaleRow##suffix(float* __restrict g, std::int64_t n, float factor) {              \
        scaleRowBody(g, n, factor);                                                              \
    }
WB_FOR_EACH_ISA_BUILD(WB_BUILD)
#undef WB_BUILD
const RowMaxFn rowMaxOf = WB_PICK_ISA_BUILD(rowMax);
const ExpAndSum expAndSum = WB_PICK_ISA_BUILD(expAndSum);
const ScaleRow scaleRow = WB_PICK_ISA_BUILD(scaleRow);
#else
const RowMaxFn rowMaxOf = rowMaxBody<kRowMaxLanesPortable>;
const ExpAndSum expAndSum = expAndSumBody;
const ScaleRow scaleRow = scaleRowBody;
#endif

// The row's maximum and its first index; a NaN wins, the first of them (torch.argmax's rule).
void rowMax(const float* x, std::int64_t n, float& max, std::int64_t& at) {
    const RowMax m = rowMaxOf(x, n);
    at = m.at;
    if (m.nan) {
        at = 0;
        while (x[at] == x[at]) ++at;
    }
    max = x[at];  // of a tie between -0 and +0, the first, as a scan from the left keeps
}

}  // namespace

void rows(const float* logits, const std::int64_t* targets, std::int64_t classes, std::int64_t r0,
          std::int64_t r1, float scale, float* grad, double* loss, std::int64_t* argmax) {
    for (std::int64_t r = r0; r < r1; ++r) {
        const float* x = logits + r * classes;
        float* g = grad + r * classes;
        float max;
        rowMax(x, classes, max, argmax[r]);
        const std::int64_t t = targets[r];
        if (!std::isfinite(max)) {
            // A NaN, or +inf, in the row: the loss is NaN (+inf - +inf), and so is every gradient.
            loss[r] = std::nan("");
            for (std::int64_t j = 0; j < classes; ++j) g[j] = std::nanf("");
            continue;
        }
        const float sum = expAndSum(x, g, classes, max);
        loss[r] = std::log(static_cast<double>(sum)) + static_cast<double>(max) - static_cast<double>(x[t]);
        scaleRow(g, classes, scale / sum);
        g[t] -= scale;
    }
}

}  // namespace wb::softmaxkernels
