// The widest instruction set our own CPU kernels may use: what the CPU has, capped by
// LSTM_WORKBENCH_CPU_CAPABILITY, as PyTorch's ATEN_CPU_CAPABILITY caps ATen's. With `avx2` an AVX-512
// machine runs the kernels an AVX2-only CPU (AMD Zen 2/3, Intel Core without AVX-512) runs: the fp32 packed
// products, the gate kernels and bf16 (which then computes in fp32), so that a whole test suite or a
// benchmark shows that case without such a machine. `default` caps at the portable code; unset or `avx512`
// leaves the CPU's own. Every kernel switch asks here, so one variable caps them all.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>

// Kernels built once per ISA and picked at run time: GCC on x86-64 (elsewhere one plain build).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define WB_ISA_BUILDS 1
#endif

namespace wb {

enum class CpuLevel { Portable = 0, Avx2 = 1, Avx512 = 2 };

// The cap from the environment, read once. An unknown value is said on stderr once and caps nothing.
inline CpuLevel cpuCapabilityCap() {
    static const CpuLevel cap = [] {
        const char* v = std::getenv("LSTM_WORKBENCH_CPU_CAPABILITY");
        if (!v || !*v || std::strcmp(v, "avx512") == 0) return CpuLevel::Avx512;
        if (std::strcmp(v, "avx2") == 0) return CpuLevel::Avx2;
        if (std::strcmp(v, "default") == 0) return CpuLevel::Portable;
        std::fprintf(stderr,
                     "lstm-workbench: LSTM_WORKBENCH_CPU_CAPABILITY=%s is not avx512, avx2 or default; "
                     "ignored\n",
                     v);
        return CpuLevel::Avx512;
    }();
    return cap;
}

// Whether kernels of `level` may run: the CPU has the instructions (the caller checks those) and the cap
// allows them.
inline bool cpuCapabilityAllows(CpuLevel level) {
    return static_cast<int>(level) <= static_cast<int>(cpuCapabilityCap());
}

// The widest of three builds of one kernel that this CPU runs and the cap allows: compiled by function
// attribute (WB_FOR_EACH_ISA_BUILD below) for "arch=x86-64-v4" (AVX-512 F, BW, CD, DQ, VL), for "avx2" and
// for the default x86-64, as GCC's target_clones would, but chosen here so that the cap applies
// (target_clones' resolver cannot see it). Call once and keep the pointer.
#ifdef WB_ISA_BUILDS
template <class F>
F pickKernel(F avx512, F avx2, F portable) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4") && cpuCapabilityAllows(CpuLevel::Avx512)) return avx512;
    if (__builtin_cpu_supports("avx2") && cpuCapabilityAllows(CpuLevel::Avx2)) return avx2;
    return portable;
}
#endif

}  // namespace wb

// A kernel built once per ISA: DEFINE(ATTRIBUTE, SUFFIX) for each build pickKernel chooses from, the
// attributes beside the CPU checks they must match; WB_PICK_ISA_BUILD(name) picks among nameAvx512,
// nameAvx2 and namePortable.
#ifdef WB_ISA_BUILDS
#define WB_FOR_EACH_ISA_BUILD(DEFINE)                         \
    DEFINE(__attribute__((target("arch=x86-64-v4"))), Avx512) \
    DEFINE(__attribute__((target("avx2"))), Avx2)             \
    DEFINE(, Portable)
#define WB_PICK_ISA_BUILD(name) ::wb::pickKernel(name##Avx512, name##Avx2, name##Portable)
#endif
