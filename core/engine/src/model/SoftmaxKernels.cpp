// Softmax cross-entropy rows (see SoftmaxKernels.h). A row of a language model's logits (4,379 floats for
// poems) fits the L1/L2 cache: its exponentials are written into the gradient row while they are summed,
// and the scaling pass reads them back from cache, so the logits are read from memory once and the gradient
// written once. Compiled for AVX-512, AVX2 and plain x86-64 and chosen by CPU (model/CpuCapability.h); the 16
// partial sums let GCC vectorise the reduction without reassociating anything itself.
#include "model/SoftmaxKernels.h"

#include <cmath>

#include "model/CpuCapability.h"
#include "model/FastMath.h"

namespace wb::softmaxkernels {

namespace {

constexpr std::int64_t kLanes = 16;

// The row's maximum and its first index; a NaN wins, the first of them (torch.argmax's rule).
void rowMax(const float* x, std::int64_t n, float& max, std::int64_t& at) {
    max = x[0];
    at = 0;
    for (std::int64_t j = 1; j < n; ++j) {
        const float v = x[j];
        if (v > max || (v != v && max == max)) {
            max = v;
            at = j;
        }
    }
}

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

using ExpAndSum = float (*)(const float*, float*, std::int64_t, float);
using ScaleRow = void (*)(float*, std::int64_t, float);

#ifdef WB_ISA_BUILDS
#define WB_BUILD(attr, suffix)                                                                   \
    attr float expAndSum##suffix(const float* __restrict x, float* __restrict g, std::int64_t n, \
                                 float max) {                                                    \
        return expAndSumBody(x, g, n, max);                                                      \
    }                                                                                            \
    attr void scaleRow##suffix(float* __restrict g, std::int64_t n, float factor) {              \
        scaleRowBody(g, n, factor);                                                              \
    }
WB_FOR_EACH_ISA_BUILD(WB_BUILD)
#undef WB_BUILD
const ExpAndSum expAndSum = WB_PICK_ISA_BUILD(expAndSum);
const ScaleRow scaleRow = WB_PICK_ISA_BUILD(scaleRow);
#else
const ExpAndSum expAndSum = expAndSumBody;
const ScaleRow scaleRow = scaleRowBody;
#endif

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
