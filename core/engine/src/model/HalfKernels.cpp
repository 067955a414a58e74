// The half-precision matrix-vector products of token-by-token generation (model/LstmKernels.h: toHalf,
// gemvHalfRows): fp16 weights, fp32 sums, AVX2 + FMA + F16C. Apart from the training kernels in
// LstmKernels.cpp, whose file they once shared: one idea a file.
#include "model/CpuCapability.h"
#include "model/LstmKernels.h"

#include <immintrin.h>

namespace wb::lstmkernels {

bool halfKernelsAvailable() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
           __builtin_cpu_supports("f16c") && cpuCapabilityAllows(CpuLevel::Avx2);
}

__attribute__((target("avx2,fma,f16c"))) void toHalf(const float* src, std::uint16_t* dst, std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; ++i) dst[i] = _cvtss_sh(src[i], _MM_FROUND_TO_NEAREST_INT);
}

__attribute__((target("avx2,fma,f16c"))) void gemvHalfRows(const std::uint16_t* w, const float* x, float* y,
                                                           std::int64_t r0, std::int64_t r1, std::int64_t k) {
    std::int64_t r = r0;
    // Four rows at a time: x is loaded once for four rows' worth of weights.
    for (; r + 4 <= r1; r += 4) {
        const std::uint16_t* w0 = w + r * k;
        const std::uint16_t* w1 = w0 + k;
        const std::uint16_t* w2 = w1 + k;
        const std::uint16_t* w3 = w2 + k;
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(),
               a3 = _mm256_setzero_ps();
        std::int64_t j = 0;
        for (; j + 8 <= k; j += 8) {
            const __m256 xv = _mm256_loadu_ps(x + j);
            a0 = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w0 + j))),
                                 xv, a0);
            a1 = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w1 + j))),
                                 xv, a1);
            a2 = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w2 + j))),
                                 xv, a2);
            a3 = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w3 + j))),
                                 xv, a3);
        }
        // Horizontal sums of the four accumulators at once.
        const __m256 s01 = _mm256_hadd_ps(a0, a1), s23 = _mm256_hadd_ps(a2, a3);
        const __m256 s = _mm256_hadd_ps(s01, s23);
        const __m128 sum = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
        float part[4];
        _mm_storeu_ps(part, sum);
        for (; j < k; ++j) {
            const float xj = x[j];
            part[0] += _cvtsh_ss(w0[j]) * xj;
            part[1] += _cvtsh_ss(w1[j]) * xj;
            part[2] += _cvtsh_ss(w2[j]) * xj;
            part[3] += _cvtsh_ss(w3[j]) * xj;
        }
        for (int q = 0; q < 4; ++q) y[r + q] += part[q];
    }
    for (; r < r1; ++r) {
        const std::uint16_t* wr = w + r * k;
        __m256 a = _mm256_setzero_ps();
        std::int64_t j = 0;
        for (; j + 8 <= k; j += 8)
            a = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(wr + j))),
                                _mm256_loadu_ps(x + j), a);
        float part[8];
        _mm256_storeu_ps(part, a);
        float sum = part[0] + part[1] + part[2] + part[3] + part[4] + part[5] + part[6] + part[7];
        for (; j < k; ++j) sum += _cvtsh_ss(wr[j]) * x[j];
        y[r] += sum;
    }
}

}  // namespace wb::lstmkernels
