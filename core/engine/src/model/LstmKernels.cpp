// The fused LSTM's gate kernels (see LstmKernels.h), three ways, the widest the CPU has and
// LSTM_WORKBENCH_CPU_CAPABILITY allows: AVX-512 intrinsics (below), AVX2 and FMA intrinsics
// (GateKernelsAvx2.cpp), or the portable row functions first in this file, whose restrict-qualified arguments
// and branch-free math GCC vectorises for baseline x86-64. (Those were once cloned for AVX-512 and AVX2 by
// target_clones, whose resolver picks by the CPU alone: an AVX2 cap still ran the AVX-512 clone.) The
// generation's half-precision products are in HalfKernels.cpp.
#include "model/LstmKernels.h"

#include "EnvSwitch.h"
#include "model/CpuCapability.h"
#include "model/FastMath.h"
#include "model/GateKernelsAvx2.h"

#include <immintrin.h>

#if defined(__GNUC__)
// Inlined into each ISA build (addRows below), so that the math is compiled for its instruction set.
#define WB_INLINE inline __attribute__((always_inline))
#else
#define WB_INLINE inline
#endif

namespace wb::lstmkernels {

namespace {

WB_INLINE float fastExp(float x) { return fastmath::exp(x); }

WB_INLINE float fastSigmoid(float x) { return 1.0f / (1.0f + fastExp(-x)); }

WB_INLINE float fastTanh(float x) {
    // 2*sigmoid(2x)-1 loses relative precision near 0 (cancellation): the odd series takes over there.
    const float viaExp = 2.0f / (1.0f + fastExp(-2.0f * x)) - 1.0f;
    const float x2 = x * x;
    const float series = x * (1.0f + x2 * (-0.333333333f + x2 * (0.133333333f - x2 * 0.053968254f)));
    const float ax = x < 0.0f ? -x : x;
    return ax < 0.05f ? series : viaExp;
}

void activateRow(float* __restrict g, std::int64_t h) {
    for (std::int64_t j = 0; j < 2 * h; ++j) g[j] = fastSigmoid(g[j]);      // i, f
    for (std::int64_t j = 2 * h; j < 3 * h; ++j) g[j] = fastTanh(g[j]);     // g
    for (std::int64_t j = 3 * h; j < 4 * h; ++j) g[j] = fastSigmoid(g[j]);  // o
}

void cellRow(const float* __restrict i, const float* __restrict f, const float* __restrict g,
             const float* __restrict o, const float* __restrict cp, float* __restrict cn,
             float* __restrict tc, float* __restrict hn, std::int64_t h) {
    for (std::int64_t j = 0; j < h; ++j) {
        const float c = f[j] * cp[j] + i[j] * g[j];
        const float t = fastTanh(c);
        cn[j] = c;
        tc[j] = t;
        hn[j] = o[j] * t;
    }
}

void gradRow(const float* __restrict ai, const float* __restrict af, const float* __restrict ag,
             const float* __restrict ao, const float* __restrict cp, const float* __restrict tc,
             const float* __restrict dOut, const float* __restrict dhRec, float* __restrict dc,
             float* __restrict di, float* __restrict df, float* __restrict dg, float* __restrict dout,
             std::int64_t h) {
    for (std::int64_t j = 0; j < h; ++j) {
        const float dh = dOut[j] + dhRec[j];
        const float i = ai[j], f = af[j], g = ag[j], o = ao[j], t = tc[j];
        const float dcj = dc[j] + dh * o * (1.0f - t * t);
        di[j] = dcj * g * i * (1.0f - i);
        df[j] = dcj * cp[j] * f * (1.0f - f);
        dg[j] = dcj * i * (1.0f - g * g);
        dout[j] = dh * t * o * (1.0f - o);
        dc[j] = dcj * f;
    }
}

// ---- the same kernels in AVX-512 intrinsics ---------------------------------------------------------------
// GCC 12 vectorises the row functions above, but finishes a row whose length is not a multiple of 16 in
// scalar code: at imdb's H = 100, four elements of every hundred, each with its own exp and division, which
// took about 40 % of the kernels' time. These take the tail as a masked vector, fuse the activations with the
// cell update (one pass over a row), and divide by a reciprocal estimate refined by one Newton step (about
// one unit in the last place, as the division's rounding).
#if defined(__GNUC__) && defined(__x86_64__)
#define WB_HAVE_GATES512 1
#define WB_GATES512 __attribute__((target("avx512f,avx512bw,avx512vl,fma")))
#define WB_GATES512_INLINE WB_GATES512 inline __attribute__((always_inline))

// The activations' precision. Exact: fastmath::exp's polynomial and tanh's series near 0, within ~1e-7 of the
// true values (as ATen's fp32 LSTM). Bf16: for a CPU bf16 scope, where every product rounds its operands to
// bf16 (relative 4e-3) and the saved activations are bf16: exp's polynomial of degree 4 (relative error
// 5.4e-6 over the reduced range in fp32: bench/exp_polynomial_error.py) and tanh as 2 sigmoid(2x) - 1
// everywhere (absolute error ~5e-6 near 0): 31 of about 140 instructions fewer per 16 hidden units in the
// forward.
enum class Precision { Exact, Bf16 };

template <Precision P>
WB_GATES512_INLINE __m512 exp512(__m512 x) {
    // fastmath::exp's reduction and polynomial; min and max with the constant first keep a NaN.
    x = _mm512_max_ps(_mm512_set1_ps(-87.0f), _mm512_min_ps(_mm512_set1_ps(88.0f), x));
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512 r = _mm512_fmadd_ps(n, _mm512_set1_ps(2.12194440e-4f),
                                     _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x));
    __m512 p;
    if constexpr (P == Precision::Exact) {
        p = _mm512_set1_ps(1.9875691500e-4f);
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    } else {
        // (e^r - 1 - r) / r^2 fitted for relative error over |r| <= ln(2) / 2.
        p = _mm512_set1_ps(0.041277673f);
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.16753529f));
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.50005120f));
    }
    const __m512 y = _mm512_add_ps(_mm512_fmadd_ps(_mm512_mul_ps(p, r), r, r), _mm512_set1_ps(1.0f));
    // y 2^n in one instruction (vscalefps): n is integral and within the exponent's range after the clamp.
    return _mm512_scalef_ps(y, n);
}

// 1 / d: the 14-bit estimate and one Newton step.
WB_GATES512_INLINE __m512 recip512(__m512 d) {
    const __m512 r = _mm512_rcp14_ps(d);
    return _mm512_mul_ps(r, _mm512_fnmadd_ps(d, r, _mm512_set1_ps(2.0f)));
}

template <Precision P>
WB_GATES512_INLINE __m512 sigmoid512(__m512 x) {
    return recip512(_mm512_add_ps(_mm512_set1_ps(1.0f), exp512<P>(_mm512_sub_ps(_mm512_setzero_ps(), x))));
}

template <Precision P>
WB_GATES512_INLINE __m512 tanh512(__m512 x) {
    // As fastTanh: 2 sigmoid(2x) - 1, and (exact) the odd series near 0.
    const __m512 viaExp = _mm512_fmsub_ps(
        _mm512_set1_ps(2.0f),
        recip512(_mm512_add_ps(_mm512_set1_ps(1.0f), exp512<P>(_mm512_mul_ps(_mm512_set1_ps(-2.0f), x)))),
        _mm512_set1_ps(1.0f));
    if constexpr (P == Precision::Bf16) return viaExp;
    const __m512 x2 = _mm512_mul_ps(x, x);
    __m512 series = _mm512_fnmadd_ps(x2, _mm512_set1_ps(0.053968254f), _mm512_set1_ps(0.133333333f));
    series = _mm512_fmadd_ps(x2, series, _mm512_set1_ps(-0.333333333f));
    series = _mm512_mul_ps(x, _mm512_fmadd_ps(x2, series, _mm512_set1_ps(1.0f)));
    const __mmask16 small = _mm512_cmp_ps_mask(_mm512_abs_ps(x), _mm512_set1_ps(0.05f), _CMP_LT_OQ);
    return _mm512_mask_blend_ps(small, viaExp, series);
}

// Loads and stores of 16 floats from j on: whole vectors plain, the row's tail masked (AMD's masked
// stores are slow, so only the tail pays for one).
struct Lanes {
    __mmask16 mask;
    bool whole;
    WB_GATES512_INLINE __m512 load(const float* p) const {
        return whole ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(mask, p);
    }
    WB_GATES512_INLINE __m512 load(const std::uint16_t* p) const {
        const __m256i halves = whole ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))
                                     : _mm256_maskz_loadu_epi16(mask, p);
        return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(halves), 16));
    }
    WB_GATES512_INLINE void store(float* p, __m512 v) const {
        if (whole)
            _mm512_storeu_ps(p, v);
        else
            _mm512_mask_storeu_ps(p, mask, v);
    }
};

// A row of h floats as whole chunks of 16, then the tail: each loop has its lanes fixed, so that the
// compiler drops the whole-or-masked choice from every load and store of the whole chunks (one loop that
// chose per chunk kept a branch for each of them).
constexpr Lanes kWholeLanes{static_cast<__mmask16>(0xFFFF), true};
WB_GATES512_INLINE Lanes tailLanes(std::int64_t h) {
    return {static_cast<__mmask16>((1u << (h % 16)) - 1), false};
}
WB_GATES512_INLINE std::int64_t wholeChunksEnd(std::int64_t h) { return h - h % 16; }

// One chunk of 16 hidden units of a row: the four gates activated (i, f, g, o), and the cell update.
struct Activated {
    __m512 gate[4];
};
template <Precision P>
WB_GATES512_INLINE Activated activate512(const Lanes& l, const float* g, std::int64_t h, std::int64_t j) {
    return {{sigmoid512<P>(l.load(g + j)), sigmoid512<P>(l.load(g + h + j)),
             tanh512<P>(l.load(g + 2 * h + j)), sigmoid512<P>(l.load(g + 3 * h + j))}};
}
template <Precision P>
WB_GATES512_INLINE void cell512(const Lanes& l, const Activated& a, const float* cp, float* cn, float* tc,
                                float* hn, std::int64_t j) {
    const __m512 c = _mm512_fmadd_ps(a.gate[1], l.load(cp + j), _mm512_mul_ps(a.gate[0], a.gate[2]));
    const __m512 t = tanh512<P>(c);
    l.store(cn + j, c);
    l.store(tc + j, t);
    l.store(hn + j, _mm512_mul_ps(a.gate[3], t));
}

// activateRow and cellRow in one pass: the row's gates are activated in place.
WB_GATES512_INLINE void forwardChunk512(const Lanes& l, float* g, const float* cp, float* cn, float* tc,
                                        float* hn, std::int64_t h, std::int64_t j) {
    const Activated a = activate512<Precision::Exact>(l, g, h, j);
    for (int k = 0; k < 4; ++k) l.store(g + k * h + j, a.gate[k]);
    cell512<Precision::Exact>(l, a, cp, cn, tc, hn, j);
}
WB_GATES512 void forwardRow512(float* g, const float* cp, float* cn, float* tc, float* hn, std::int64_t h) {
    const std::int64_t end = wholeChunksEnd(h);
    for (std::int64_t j = 0; j < end; j += 16) forwardChunk512(kWholeLanes, g, cp, cn, tc, hn, h, j);
    if (end < h) forwardChunk512(tailLanes(h), g, cp, cn, tc, hn, h, end);
}

// The gate gradients of one chunk of 16 hidden units of a row, and the cell's gradient for the step before.
struct GateGrads {
    __m512 d[4];
    __m512 dcPrev;
};
WB_GATES512_INLINE GateGrads gateGrads512(const Lanes& l, const float* a, const float* cp, const float* tc,
                                          const float* dOut, const float* dhRec, const float* dc,
                                          std::int64_t h, std::int64_t j) {
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512 i = l.load(a + j), f = l.load(a + h + j), g = l.load(a + 2 * h + j),
                 o = l.load(a + 3 * h + j);
    const __m512 t = l.load(tc + j);
    const __m512 dh = _mm512_add_ps(l.load(dOut + j), l.load(dhRec + j));
    // dc + dh o (1 - t^2)
    const __m512 dcj = _mm512_fmadd_ps(_mm512_mul_ps(dh, o), _mm512_fnmadd_ps(t, t, one), l.load(dc + j));
    return {{_mm512_mul_ps(_mm512_mul_ps(dcj, g), _mm512_mul_ps(i, _mm512_sub_ps(one, i))),
             _mm512_mul_ps(_mm512_mul_ps(dcj, l.load(cp + j)), _mm512_mul_ps(f, _mm512_sub_ps(one, f))),
             _mm512_mul_ps(_mm512_mul_ps(dcj, i), _mm512_fnmadd_ps(g, g, one)),
             _mm512_mul_ps(_mm512_mul_ps(dh, t), _mm512_mul_ps(o, _mm512_sub_ps(one, o)))},
            _mm512_mul_ps(dcj, f)};
}

// The rows of the step after this one in the backward (stepBack floats before cp and tc, 4x that before a),
// fetched into the cache while this step computes.
template <class Act>
WB_GATES512_INLINE void prefetchStepBack(const Act* a, const float* cp, const float* tc, std::int64_t h,
                                         std::int64_t j, std::int64_t stepBack) {
    const char* ap = reinterpret_cast<const char*>(a + j - 4 * stepBack);
    _mm_prefetch(ap, _MM_HINT_T0);
    _mm_prefetch(ap + h * sizeof(Act), _MM_HINT_T0);
    _mm_prefetch(ap + 2 * h * sizeof(Act), _MM_HINT_T0);
    _mm_prefetch(ap + 3 * h * sizeof(Act), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(cp + j - stepBack), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(tc + j - stepBack), _MM_HINT_T0);
}

WB_GATES512_INLINE void gradChunk512(const Lanes& l, const float* a, const float* cp, const float* tc,
                                     const float* dOut, const float* dhRec, float* dc, float* d,
                                     std::int64_t h, std::int64_t stepBack, std::int64_t j) {
    if (stepBack) prefetchStepBack(a, cp, tc, h, j, stepBack);
    const GateGrads g = gateGrads512(l, a, cp, tc, dOut, dhRec, dc, h, j);
    for (int k = 0; k < 4; ++k) l.store(d + k * h + j, g.d[k]);
    l.store(dc + j, g.dcPrev);
}
WB_GATES512 void gradRow512(const float* a, const float* cp, const float* tc, const float* dOut,
                            const float* dhRec, float* dc, float* d, std::int64_t h, std::int64_t stepBack) {
    const std::int64_t end = wholeChunksEnd(h);
    for (std::int64_t j = 0; j < end; j += 16)
        gradChunk512(kWholeLanes, a, cp, tc, dOut, dhRec, dc, d, h, stepBack, j);
    if (end < h) gradChunk512(tailLanes(h), a, cp, tc, dOut, dhRec, dc, d, h, stepBack, end);
}

// ---- the same, writing bf16 (AVX512_BF16) --------------------------------------------------------------
// vcvtneps2bf16 and vcvtne2ps2bf16 round to nearest even, as the bf16 products' own conversions do.
#define WB_GATES512_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16,fma")))
#define WB_GATES512_BF16_INLINE WB_GATES512_BF16 inline __attribute__((always_inline))

// The activated gates kept for the backward, folded (see LstmKernels.h): a sigmoid gate s = sigmoid(z) as
// v = sigmoid(-|z|), the smaller of s and 1 - s, computed as such (1 - s from an fp32 s would lose it past
// |z| ~ 12), with z's sign bit; the tanh gate g = 2 sigmoid(2z) - 1 as v = sigmoid(-2|z|) with z's sign.
// Each gives its value and its derivative's factor from v: s = v where z < 0, 1 - v where not, and s (1 - s)
// = v (1 - v); |g| = 1 - 2 v and 1 - g^2 = 4 v (1 - v).
struct Folded {
    __m512 value;  // s or g
    __m512 kept;   // v with z's sign bit
};
WB_GATES512_BF16_INLINE __m512i signBits(__m512 z) {
    return _mm512_and_si512(_mm512_castps_si512(z), _mm512_set1_epi32(static_cast<int>(0x80000000u)));
}
// The gate from v and z's sign bit: s = v or 1 - v; g = 1 - 2 v with that sign.
template <bool Tanh>
WB_GATES512_BF16_INLINE __m512 gateOf(__m512 v, __m512i sign) {
    const __m512 one = _mm512_set1_ps(1.0f);
    if constexpr (Tanh) {
        const __m512 magnitude = _mm512_fnmadd_ps(_mm512_set1_ps(2.0f), v, one);
        return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(magnitude), sign));
    } else {
        return _mm512_mask_blend_ps(_mm512_test_epi32_mask(sign, sign), _mm512_sub_ps(one, v), v);
    }
}
template <bool Tanh>
WB_GATES512_BF16_INLINE Folded fold512(__m512 z) {
    const __m512i sign = signBits(z);
    const __m512 e =
        exp512<Precision::Bf16>(Tanh ? _mm512_add_ps(_mm512_abs_ps(z), _mm512_abs_ps(z)) : _mm512_abs_ps(z));
    const __m512 v = recip512(_mm512_add_ps(_mm512_set1_ps(1.0f), e));
    return {gateOf<Tanh>(v, sign), _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(v), sign))};
}

WB_GATES512_BF16_INLINE void forwardChunk512Bf16(const Lanes& l, const float* g, const float* cp, float* cn,
                                                 float* tc, float* hn, std::uint16_t* saved, std::int64_t h,
                                                 std::int64_t j) {
    const Folded folded[4] = {fold512<false>(l.load(g + j)), fold512<false>(l.load(g + h + j)),
                              fold512<true>(l.load(g + 2 * h + j)), fold512<false>(l.load(g + 3 * h + j))};
    Activated a;
    for (int k = 0; k < 4; ++k) {
        a.gate[k] = folded[k].value;
        const __m256i v = (__m256i)_mm512_cvtneps_pbh(folded[k].kept);
        if (l.whole)
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(saved + k * h + j), v);
        else
            _mm256_mask_storeu_epi16(saved + k * h + j, l.mask, v);
    }
    cell512<Precision::Bf16>(l, a, cp, cn, tc, hn, j);
}
WB_GATES512_BF16 void forwardRow512Bf16(float* g, const float* cp, float* cn, float* tc, float* hn,
                                        std::uint16_t* saved, std::int64_t h) {
    const std::int64_t end = wholeChunksEnd(h);
    for (std::int64_t j = 0; j < end; j += 16)
        forwardChunk512Bf16(kWholeLanes, g, cp, cn, tc, hn, saved, h, j);
    if (end < h) forwardChunk512Bf16(tailLanes(h), g, cp, cn, tc, hn, saved, h, end);
}

// A folded gate read back: its value, and s (1 - s) (sigmoid) or 1 - g^2 (tanh).
struct Unfolded {
    __m512 value, slope;
};
template <bool Tanh>
WB_GATES512_BF16_INLINE Unfolded unfold512(const Lanes& l, const std::uint16_t* p) {
    const __m512 w = l.load(p);
    const __m512 v = _mm512_abs_ps(w);
    const __m512 slope = _mm512_fnmadd_ps(v, v, v);  // v (1 - v)
    return {gateOf<Tanh>(v, signBits(w)), Tanh ? _mm512_mul_ps(_mm512_set1_ps(4.0f), slope) : slope};
}

// gateGrads512 from folded gates.
WB_GATES512_BF16_INLINE GateGrads foldedGateGrads512(const Lanes& l, const std::uint16_t* a, const float* cp,
                                                     const float* tc, const float* dOut, const float* dhRec,
                                                     const float* dc, std::int64_t h, std::int64_t j) {
    const Unfolded i = unfold512<false>(l, a + j), f = unfold512<false>(l, a + h + j),
                   g = unfold512<true>(l, a + 2 * h + j), o = unfold512<false>(l, a + 3 * h + j);
    const __m512 t = l.load(tc + j);
    const __m512 dh = _mm512_add_ps(l.load(dOut + j), l.load(dhRec + j));
    // dc + dh o (1 - t^2)
    const __m512 dcj = _mm512_fmadd_ps(_mm512_mul_ps(dh, o.value),
                                       _mm512_fnmadd_ps(t, t, _mm512_set1_ps(1.0f)), l.load(dc + j));
    return {
        {_mm512_mul_ps(_mm512_mul_ps(dcj, g.value), i.slope),
         _mm512_mul_ps(_mm512_mul_ps(dcj, l.load(cp + j)), f.slope),
         _mm512_mul_ps(_mm512_mul_ps(dcj, i.value), g.slope), _mm512_mul_ps(_mm512_mul_ps(dh, t), o.slope)},
        _mm512_mul_ps(dcj, f.value)};
}

// Rows 0 and 1 of the arguments (two rows of a step) at once: their gate gradients go to `rows` (each row
// row-major in bf16) and `pair` (the two interleaved, word j = (bf16 of row 0's j, of row 1's j)), and are
// added to sum in row order.
WB_GATES512_BF16_INLINE void gradPairChunk512Bf16(const Lanes& l, const std::uint16_t* a, const float* cp,
                                                  const float* tc, const float* dOut, std::int64_t dOutStride,
                                                  const float* dhRec, float* dc, std::uint16_t* rows,
                                                  std::uint32_t* pair, float* sum, std::int64_t h,
                                                  std::int64_t stepBack, __m512i interleave, std::int64_t j) {
    const std::int64_t width = 4 * h;
    if (stepBack) {
        prefetchStepBack(a, cp, tc, h, j, stepBack);
        prefetchStepBack(a + width, cp + h, tc + h, h, j, stepBack);
    }
    const GateGrads g0 = foldedGateGrads512(l, a, cp, tc, dOut, dhRec, dc, h, j);
    const GateGrads g1 =
        foldedGateGrads512(l, a + width, cp + h, tc + h, dOut + dOutStride, dhRec + h, dc + h, h, j);
    l.store(dc + j, g0.dcPrev);
    l.store(dc + h + j, g1.dcPrev);
    for (int k = 0; k < 4; ++k) {
        const std::int64_t at = k * h + j;
        l.store(sum + at, _mm512_add_ps(_mm512_add_ps(l.load(sum + at), g0.d[k]), g1.d[k]));
        const __m512i both = (__m512i)_mm512_cvtne2ps_pbh(g1.d[k], g0.d[k]);
        const __m512i words = _mm512_permutexvar_epi16(interleave, both);
        if (l.whole) {
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(rows + at), _mm512_castsi512_si256(both));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(rows + width + at),
                                _mm512_extracti64x4_epi64(both, 1));
            _mm512_storeu_si512(pair + at, words);
        } else {
            _mm256_mask_storeu_epi16(rows + at, l.mask, _mm512_castsi512_si256(both));
            _mm256_mask_storeu_epi16(rows + width + at, l.mask, _mm512_extracti64x4_epi64(both, 1));
            _mm512_mask_storeu_epi32(pair + at, l.mask, words);
        }
    }
}
WB_GATES512_BF16 void gradPair512Bf16(const std::uint16_t* a, const float* cp, const float* tc,
                                      const float* dOut, std::int64_t dOutStride, const float* dhRec,
                                      float* dc, std::uint16_t* rows, std::uint32_t* pair, float* sum,
                                      std::int64_t h, std::int64_t stepBack) {
    alignas(64) std::uint16_t order[32];
    for (int i = 0; i < 32; ++i) order[i] = static_cast<std::uint16_t>(i % 2 ? 16 + i / 2 : i / 2);
    const __m512i interleave = _mm512_load_si512(order);
    const std::int64_t end = wholeChunksEnd(h);
    for (std::int64_t j = 0; j < end; j += 16)
        gradPairChunk512Bf16(kWholeLanes, a, cp, tc, dOut, dOutStride, dhRec, dc, rows, pair, sum, h,
                             stepBack, interleave, j);
    if (end < h)
        gradPairChunk512Bf16(tailLanes(h), a, cp, tc, dOut, dOutStride, dhRec, dc, rows, pair, sum, h,
                             stepBack, interleave, end);
}

// This CPU runs them (AVX-512 F, BW and VL), unless LSTM_WORKBENCH_AVX512_GATES=off keeps the AVX2 ones (or,
// with LSTM_WORKBENCH_AVX2_GATES=off too, the row functions above) for a side-by-side measurement.
bool gates512() {
    static const bool yes = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl") && !switchedOff("LSTM_WORKBENCH_AVX512_GATES") &&
               cpuCapabilityAllows(CpuLevel::Avx512);
    }();
    return yes;
}

// And AVX512_BF16, for the kernels that write bf16.
bool bf16Gates512() {
    static const bool yes = [] {
        __builtin_cpu_init();
        return gates512() && __builtin_cpu_supports("avx512bf16");
    }();
    return yes;
}
#endif

}  // namespace

void forwardRows(float* gates, const float* cPrev, float* cNext, float* hNext, float* tanhC, std::int64_t b0,
                 std::int64_t b1, std::int64_t h) {
#ifdef WB_HAVE_GATES512
    if (gates512()) {
        for (std::int64_t b = b0; b < b1; ++b)
            forwardRow512(gates + b * 4 * h, cPrev + b * h, cNext + b * h, tanhC + b * h, hNext + b * h, h);
        return;
    }
#endif
    if (avx2gates::available()) {
        for (std::int64_t b = b0; b < b1; ++b)
            avx2gates::forwardRow(gates + b * 4 * h, cPrev + b * h, cNext + b * h, tanhC + b * h,
                                  hNext + b * h, h);
        return;
    }
    for (std::int64_t b = b0; b < b1; ++b) {
        float* g = gates + b * 4 * h;
        activateRow(g, h);
        cellRow(g, g + h, g + 2 * h, g + 3 * h, cPrev + b * h, cNext + b * h, tanhC + b * h, hNext + b * h,
                h);
    }
}

void backwardRows(const float* act, const float* cPrev, const float* tanhC, const float* dOut,
                  std::int64_t dOutStride, const float* dhRec, float* dc, float* dGates, std::int64_t b0,
                  std::int64_t b1, std::int64_t h, std::int64_t stepBack) {
#ifdef WB_HAVE_GATES512
    if (gates512()) {
        for (std::int64_t b = b0; b < b1; ++b)
            gradRow512(act + b * 4 * h, cPrev + b * h, tanhC + b * h, dOut + b * dOutStride, dhRec + b * h,
                       dc + b * h, dGates + b * 4 * h, h, stepBack);
        return;
    }
#endif
    if (avx2gates::available()) {
        for (std::int64_t b = b0; b < b1; ++b)
            avx2gates::gradRow(act + b * 4 * h, cPrev + b * h, tanhC + b * h, dOut + b * dOutStride,
                               dhRec + b * h, dc + b * h, dGates + b * 4 * h, h, stepBack);
        return;
    }
    for (std::int64_t b = b0; b < b1; ++b) {
        const float* a = act + b * 4 * h;
        float* d = dGates + b * 4 * h;
        gradRow(a, a + h, a + 2 * h, a + 3 * h, cPrev + b * h, tanhC + b * h, dOut + b * dOutStride,
                dhRec + b * h, dc + b * h, d, d + h, d + 2 * h, d + 3 * h, h);
    }
}

bool bf16GateKernelsAvailable() {
#ifdef WB_HAVE_GATES512
    return bf16Gates512();
#else
    return false;
#endif
}

void forwardRowsBf16(float* gates, const float* cPrev, float* cNext, float* hNext, float* tanhC,
                     std::uint16_t* saved, std::int64_t rows, std::int64_t h) {
#ifdef WB_HAVE_GATES512
    for (std::int64_t b = 0; b < rows; ++b)
        forwardRow512Bf16(gates + b * 4 * h, cPrev + b * h, cNext + b * h, tanhC + b * h, hNext + b * h,
                          saved + b * 4 * h, h);
#else
    (void)gates, (void)cPrev, (void)cNext, (void)hNext, (void)tanhC, (void)saved, (void)rows, (void)h;
#endif
}

void backwardPairsBf16(const std::uint16_t* act, const float* cPrev, const float* tanhC, const float* dOut,
                       std::int64_t dOutStride, const float* dhRec, float* dc, std::uint16_t* dGateRows,
                       std::uint32_t* dGatePairs, float* sum, std::int64_t rows, std::int64_t h,
                       std::int64_t stepBack) {
#ifdef WB_HAVE_GATES512
    for (std::int64_t b = 0; b + 1 < rows; b += 2)
        gradPair512Bf16(act + b * 4 * h, cPrev + b * h, tanhC + b * h, dOut + b * dOutStride, dOutStride,
                        dhRec + b * h, dc + b * h, dGateRows + b * 4 * h, dGatePairs + b / 2 * 4 * h, sum, h,
                        stepBack);
#else
    (void)act, (void)cPrev, (void)tanhC, (void)dOut, (void)dOutStride, (void)dhRec, (void)dc, (void)dGateRows,
        (void)dGatePairs, (void)sum, (void)rows, (void)h, (void)stepBack;
#endif
}

namespace {

WB_INLINE void addRowsBody(const float* __restrict rows, std::int64_t b0, std::int64_t b1, std::int64_t width,
                           float* __restrict sum) {
    for (std::int64_t b = b0; b < b1; ++b) {
        const float* row = rows + b * width;
        for (std::int64_t j = 0; j < width; ++j) sum[j] += row[j];
    }
}

using AddRows = void (*)(const float*, std::int64_t, std::int64_t, std::int64_t, float*);
#ifdef WB_ISA_BUILDS
#define WB_BUILD(attr, suffix)                                                                \
    attr void addRows##suffix(const float* __restrict rows, std::int64_t b0, std::int64_t b1, \
                              std::int64_t width, float* __restrict sum) {                    \
        addRowsBody(rows, b0, b1, width, sum);                                                \
    }
WB_FOR_EACH_ISA_BUILD(WB_BUILD)
#undef WB_BUILD
const AddRows addRowsKernel = WB_PICK_ISA_BUILD(addRows);
#else
const AddRows addRowsKernel = addRowsBody;
#endif

}  // namespace

void addRows(const float* rows, std::int64_t b0, std::int64_t b1, std::int64_t width, float* sum) {
    addRowsKernel(rows, b0, b1, width, sum);
}

}  // namespace wb::lstmkernels
