// Adam's update in one pass over a parameter's memory (no torch here). Written out over tensors, Adam is six
// elementwise operations and a temporary per parameter, each a full pass over memory: on the poems model
// (8.6 M parameters, far larger than the caches) that was ~11 ms of a 266 ms step on one thread, and at two
// threads it runs on one of them while the other waits. One pass reads the gradient, the weight and both
// moments once and writes them once.
#pragma once

#include <cstdint>

namespace wb::adamkernel {

struct Scalars {
    float beta1, beta2;  // the moments' decay rates
    // 1 - beta1 and 1 - beta2, rounded from double: 1.0f - 0.999f is 0.0010000467, 5e-5 off
    float oneMinusBeta1, oneMinusBeta2;
    float stepSize;   // lr / (1 - beta1^t)
    float bias2Sqrt;  // sqrt(1 - beta2^t)
    float eps;
    float decay;  // the weight's factor before the update (1 - lr * weight decay; 1 for none)
};

// For i in [0, n): p *= decay; m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g^2;
// p -= stepSize * m / (sqrt(v) / bias2Sqrt + eps), as torch.optim.Adam and Optimizer::hostScalarStep.
void step(float* p, const float* g, float* m, float* v, std::int64_t n, const Scalars& s);

}  // namespace wb::adamkernel
