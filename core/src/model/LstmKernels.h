// The fused LSTM's per-step gate kernels (forward activations + cell update, and the gate gradients), on
// plain float rows of [B, 4H] gates and [B, H] states. No torch here: this file is compiled with
// -fno-trapping-math so that GCC vectorises the branch-free exp/sigmoid/tanh (see core/CMakeLists.txt).
#pragma once

#include <cstdint>

namespace wb::lstmkernels {

// Rows [b0, b1): gates holds the pre-activations (x W_ih^T + b + h W_hh^T), gate order i, f, g, o, and is
// overwritten with the activations, which the backward needs. Writes c_t, tanh(c_t) and h_t = o * tanh(c_t).
void forwardRows(float* gates, const float* cPrev, float* cNext, float* hNext, float* tanhC, std::int64_t b0,
                 std::int64_t b1, std::int64_t h);

// Rows [b0, b1) of one step's backward: dh = dOut + dhRec; dc enters as the gradient from the next step and
// leaves as the one for the previous step; dGates receives (di, df, dg, do) of the pre-activations.
void backwardRows(const float* act, const float* cPrev, const float* tanhC, const float* dOut,
                  const float* dhRec, float* dc, float* dGates, std::int64_t b0, std::int64_t b1,
                  std::int64_t h);

}  // namespace wb::lstmkernels
