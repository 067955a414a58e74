// Adam in one pass (see AdamKernel.h). Plain loops that GCC vectorises (sqrt included: this file is compiled
// without errno-setting math), cloned for AVX-512 and AVX2 and chosen by CPU at load time like the LSTM's
// gate kernels.
#include "train/AdamKernel.h"

#include <cmath>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define WB_KERNEL __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define WB_KERNEL
#endif

namespace wb::adamkernel {

namespace {

WB_KERNEL void stepRange(float* __restrict p, const float* __restrict g, float* __restrict m,
                         float* __restrict v, std::int64_t n, float beta1, float beta2, float a1, float a2,
                         float stepSize, float bias2Sqrt, float eps, float decay) {
    for (std::int64_t i = 0; i < n; ++i) {
        const float gi = g[i];
        const float mi = beta1 * m[i] + a1 * gi;
        const float vi = beta2 * v[i] + a2 * gi * gi;
        m[i] = mi;
        v[i] = vi;
        p[i] = decay * p[i] - stepSize * mi / (std::sqrt(vi) / bias2Sqrt + eps);
    }
}

}  // namespace

void step(float* p, const float* g, float* m, float* v, std::int64_t n, const Scalars& s) {
    stepRange(p, g, m, v, n, s.beta1, s.beta2, s.oneMinusBeta1, s.oneMinusBeta2, s.stepSize, s.bias2Sqrt,
              s.eps, s.decay);
}

}  // namespace wb::adamkernel
