// Adam in one pass (see AdamKernel.h). Plain loops that GCC vectorises (sqrt included: this file is compiled
// without errno-setting math), compiled for AVX-512, AVX2 and plain x86-64 and chosen by CPU
// (model/CpuCapability.h) like the LSTM's gate kernels.
#include "train/AdamKernel.h"

#include <cmath>

#include "model/CpuCapability.h"

namespace wb::adamkernel {

namespace {

// Inlined into each ISA's build below.
[[gnu::always_inline]] inline void stepRangeBody(float* __restrict p, const float* __restrict g,
                                                 float* __restrict m, float* __restrict v, std::int64_t n,
                                                 float beta1, float beta2, float a1, float a2, float stepSize,
                                                 float bias2Sqrt, float eps, float decay) {
    for (std::int64_t i = 0; i < n; ++i) {
        const float gi = g[i];
        const float mi = beta1 * m[i] + a1 * gi;
        const float vi = beta2 * v[i] + a2 * gi * gi;
        m[i] = mi;
        v[i] = vi;
        p[i] = decay * p[i] - stepSize * mi / (std::sqrt(vi) / bias2Sqrt + eps);
    }
}

using StepRange = void (*)(float*, const float*, float*, float*, std::int64_t, float, float, float, float,
                           float, float, float, float);

#ifdef WB_ISA_BUILDS
#define WB_BUILD(attr, suffix)                                                                           \
    attr void stepRange##suffix(float* __restrict p, const float* __restrict g, float* __restrict m,     \
                                float* __restrict v, std::int64_t n, float beta1, float beta2, float a1, \
                                float a2, float stepSize, float bias2Sqrt, float eps, float decay) {     \
        stepRangeBody(p, g, m, v, n, beta1, beta2, a1, a2, stepSize, bias2Sqrt, eps, decay);             \
    }
WB_FOR_EACH_ISA_BUILD(WB_BUILD)
#undef WB_BUILD
const StepRange stepRange = WB_PICK_ISA_BUILD(stepRange);
#else
const StepRange stepRange = stepRangeBody;
#endif

}  // namespace

void step(float* p, const float* g, float* m, float* v, std::int64_t n, const Scalars& s) {
    stepRange(p, g, m, v, n, s.beta1, s.beta2, s.oneMinusBeta1, s.oneMinusBeta2, s.stepSize, s.bias2Sqrt,
              s.eps, s.decay);
}

}  // namespace wb::adamkernel
