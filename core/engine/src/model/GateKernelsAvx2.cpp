// See GateKernelsAvx2.h. The math is the AVX-512 kernels' (LstmKernels.cpp) at their exact precision:
// fastmath::exp's reduction and polynomial, tanh's odd series near 0; 2^n from the exponent bits, as AVX2
// has no vscalefps, and the reciprocal from vrcpps's 12-bit estimate refined by Newton's method.
#include "model/GateKernelsAvx2.h"

#include "EnvSwitch.h"
#include "model/CpuCapability.h"

#include <immintrin.h>

namespace wb::lstmkernels::avx2gates {

#if defined(__GNUC__) && defined(__x86_64__)
#define WB_AVX2 __attribute__((target("avx2,fma")))
#define WB_AVX2_INLINE WB_AVX2 inline __attribute__((always_inline))

namespace {

WB_AVX2_INLINE __m256 set1(float v) { return _mm256_set1_ps(v); }

WB_AVX2_INLINE __m256 exp256(__m256 x) {
    // min and max with the constant first keep a NaN (they return their second operand for one).
    x = _mm256_max_ps(set1(-87.0f), _mm256_min_ps(set1(88.0f), x));
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, set1(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256 r = _mm256_fmadd_ps(n, set1(2.12194440e-4f), _mm256_fnmadd_ps(n, set1(0.693359375f), x));
    __m256 p = set1(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, set1(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, set1(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, set1(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, set1(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, set1(5.0000001201e-1f));
    const __m256 y = _mm256_add_ps(_mm256_fmadd_ps(_mm256_mul_ps(p, r), r, r), set1(1.0f));
    // 2^n: n is integral and in [-126, 127] after the clamp (a NaN's n converts to 0x80000000, whose scale
    // is some number: y is NaN already).
    const __m256i bits =
        _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(y, _mm256_castsi256_ps(bits));
}

// 1 / d: the 12-bit estimate and two Newton steps, r + r (1 - d r) (one step leaves ~1.3e-7 relative, which
// tanh's 2 sigmoid(2x) - 1 magnifies twenty times near |x| = 0.05; still cheaper than vdivps).
WB_AVX2_INLINE __m256 recip256(__m256 d) {
    __m256 r = _mm256_rcp_ps(d);
    r = _mm256_fmadd_ps(r, _mm256_fnmadd_ps(d, r, set1(1.0f)), r);
    return _mm256_fmadd_ps(r, _mm256_fnmadd_ps(d, r, set1(1.0f)), r);
}

WB_AVX2_INLINE __m256 sigmoid256(__m256 x) {
    return recip256(_mm256_add_ps(set1(1.0f), exp256(_mm256_sub_ps(_mm256_setzero_ps(), x))));
}

WB_AVX2_INLINE __m256 tanh256(__m256 x) {
    // 2 sigmoid(2x) - 1, and the odd series where |x| < 0.05 (the difference loses relative precision there).
    const __m256 viaExp = _mm256_fmsub_ps(
        set1(2.0f), recip256(_mm256_add_ps(set1(1.0f), exp256(_mm256_mul_ps(set1(-2.0f), x)))), set1(1.0f));
    const __m256 x2 = _mm256_mul_ps(x, x);
    __m256 series = _mm256_fnmadd_ps(x2, set1(0.053968254f), set1(0.133333333f));
    series = _mm256_fmadd_ps(x2, series, set1(-0.333333333f));
    series = _mm256_mul_ps(x, _mm256_fmadd_ps(x2, series, set1(1.0f)));
    const __m256 abs = _mm256_andnot_ps(set1(-0.0f), x);
    return _mm256_blendv_ps(viaExp, series, _mm256_cmp_ps(abs, set1(0.05f), _CMP_LT_OQ));
}

// Loads and stores of 8 floats from j on: whole vectors plain, the row's tail masked.
struct Lanes {
    __m256i mask;
    std::int64_t left;  // 8 or more: a whole vector
    WB_AVX2_INLINE bool whole() const { return left >= 8; }
    WB_AVX2_INLINE __m256 load(const float* p) const {
        return whole() ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, mask);
    }
    WB_AVX2_INLINE void store(float* p, __m256 v) const {
        if (whole())
            _mm256_storeu_ps(p, v);
        else
            _mm256_maskstore_ps(p, mask, v);
    }
};

WB_AVX2_INLINE Lanes lanesAt(std::int64_t j, std::int64_t h) {
    const std::int64_t left = h - j;
    // Lane k is on where k < left: its mask word's sign bit set.
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(left < 8 ? left : 8)), lane);
    return {mask, left};
}

WB_AVX2_INLINE void prefetchStepBack(const float* a, const float* cp, const float* tc, std::int64_t h,
                                     std::int64_t j, std::int64_t stepBack) {
    const char* ap = reinterpret_cast<const char*>(a + j - 4 * stepBack);
    for (int k = 0; k < 4; ++k) _mm_prefetch(ap + k * h * sizeof(float), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(cp + j - stepBack), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(tc + j - stepBack), _MM_HINT_T0);
}

}  // namespace

WB_AVX2 void gradRow(const float* a, const float* cp, const float* tc, const float* dOut, const float* dhRec,
                     float* dc, float* d, std::int64_t h, std::int64_t stepBack) {
    const __m256 one = set1(1.0f);
    for (std::int64_t j = 0; j < h; j += 8) {
        // A 64-byte line holds 16 floats: one prefetch for every second vector.
        if (stepBack && j % 16 == 0) prefetchStepBack(a, cp, tc, h, j, stepBack);
        const Lanes l = lanesAt(j, h);
        const __m256 i = l.load(a + j), f = l.load(a + h + j), g = l.load(a + 2 * h + j),
                     o = l.load(a + 3 * h + j), t = l.load(tc + j);
        const __m256 dh = _mm256_add_ps(l.load(dOut + j), l.load(dhRec + j));
        // dc + dh o (1 - t^2)
        const __m256 dcj = _mm256_fmadd_ps(_mm256_mul_ps(dh, o), _mm256_fnmadd_ps(t, t, one), l.load(dc + j));
        l.store(d + j, _mm256_mul_ps(_mm256_mul_ps(dcj, g), _mm256_mul_ps(i, _mm256_sub_ps(one, i))));
        l.store(d + h + j,
                _mm256_mul_ps(_mm256_mul_ps(dcj, l.load(cp + j)), _mm256_mul_ps(f, _mm256_sub_ps(one, f))));
        l.store(d + 2 * h + j, _mm256_mul_ps(_mm256_mul_ps(dcj, i), _mm256_fnmadd_ps(g, g, one)));
        l.store(d + 3 * h + j, _mm256_mul_ps(_mm256_mul_ps(dh, t), _mm256_mul_ps(o, _mm256_sub_ps(one, o))));
        l.store(dc + j, _mm256_mul_ps(dcj, f));
    }
}

bool available() {
    static const bool yes = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
               cpuCapabilityAllows(CpuLevel::Avx2) && !switchedOff("LSTM_WORKBENCH_AVX2_GATES");
    }();
    return yes;
}

WB_AVX2 void forwardRow(float* g, const float* cp, float* cn, float* tc, float* hn, std::int64_t h) {
    for (std::int64_t j = 0; j < h; j += 8) {
        const Lanes l = lanesAt(j, h);
        const __m256 i = sigmoid256(l.load(g + j)), f = sigmoid256(l.load(g + h + j)),
                     gg = tanh256(l.load(g + 2 * h + j)), o = sigmoid256(l.load(g + 3 * h + j));
        l.store(g + j, i);
        l.store(g + h + j, f);
        l.store(g + 2 * h + j, gg);
        l.store(g + 3 * h + j, o);
        const __m256 c = _mm256_fmadd_ps(f, l.load(cp + j), _mm256_mul_ps(i, gg));
        const __m256 t = tanh256(c);
        l.store(cn + j, c);
        l.store(tc + j, t);
        l.store(hn + j, _mm256_mul_ps(o, t));
    }
}

#else  // not GCC on x86-64: never available, and never called

bool available() { return false; }
void forwardRow(float*, const float*, float*, float*, float*, std::int64_t) {}
void gradRow(const float*, const float*, const float*, const float*, const float*, float*, float*,
             std::int64_t, std::int64_t) {}

#endif

}  // namespace wb::lstmkernels::avx2gates
