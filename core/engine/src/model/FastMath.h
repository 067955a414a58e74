// exp for the CPU kernels (no torch here): inlined into each caller so that it is compiled for the caller's
// instruction set, branch-free so that GCC vectorises the loops around it (with -fno-trapping-math).
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__GNUC__)
#define WB_FAST_MATH_INLINE inline __attribute__((always_inline))
#else
#define WB_FAST_MATH_INLINE inline
#endif

namespace wb::fastmath {

// Cephes' expf polynomial after a Cody-Waite reduction: relative error ~2e-7 over the clamped range, which
// keeps the fused LSTM within ~1e-6 of ATen's.
WB_FAST_MATH_INLINE float exp(float x) {
    x = x > 88.0f ? 88.0f : x;
    x = x < -87.0f ? -87.0f : x;
    // Round to nearest with the 1.5*2^23 trick: vectorises without SSE4.1's roundps.
    const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    const float r = x - n * 0.693359375f + n * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const float y = p * r * r + r + 1.0f;
    // 2^n through the exponent bits. A NaN input stays NaN through y; only the scale must not convert NaN
    // to an integer (undefined behaviour, caught by UBSan when the NaN-loss test diverges on purpose).
    const float nScale = n == n ? n : 0.0f;
    const std::uint32_t bits = static_cast<std::uint32_t>(static_cast<std::int32_t>(nScale) + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return y * scale;
}

}  // namespace wb::fastmath
