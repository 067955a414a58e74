// Autocast scope across LibTorch versions (TorchCompat.h: WORKBENCH_AUTOCAST_DEVICE_API).
#include "device/Autocast.h"

#include "TorchCompat.h"

#include "model/Bf16Amx.h"
#include "model/Bf16Kernels.h"

#include <ATen/autocast_mode.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace wb {

namespace {
bool enabled(bool cuda) {
#ifdef WORKBENCH_AUTOCAST_DEVICE_API
    return at::autocast::is_autocast_enabled(cuda ? at::kCUDA : at::kCPU);
#else
    return cuda ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
#endif
}
void setEnabled(bool cuda, bool on) {
#ifdef WORKBENCH_AUTOCAST_DEVICE_API
    at::autocast::set_autocast_enabled(cuda ? at::kCUDA : at::kCPU, on);
#else
    if (cuda)
        at::autocast::set_enabled(on);
    else
        at::autocast::set_cpu_enabled(on);
#endif
}
at::ScalarType dtype(bool cuda) {
#ifdef WORKBENCH_AUTOCAST_DEVICE_API
    return at::autocast::get_autocast_dtype(cuda ? at::kCUDA : at::kCPU);
#else
    return cuda ? at::autocast::get_autocast_gpu_dtype() : at::autocast::get_autocast_cpu_dtype();
#endif
}
void setDtype(bool cuda, at::ScalarType type) {
#ifdef WORKBENCH_AUTOCAST_DEVICE_API
    at::autocast::set_autocast_dtype(cuda ? at::kCUDA : at::kCPU, type);
#else
    if (cuda)
        at::autocast::set_autocast_gpu_dtype(type);
    else
        at::autocast::set_autocast_cpu_dtype(type);
#endif
}
}  // namespace

namespace {
thread_local bool t_cpuBf16 = false;
std::atomic<bool> g_forcedFallback{false};
}  // namespace

bool cpuBf16Active() { return t_cpuBf16; }

bool cpuBf16KernelsUsable() {
    static const bool offByEnvironment = [] {
        const char* v = std::getenv("LSTM_WORKBENCH_BF16_KERNELS");
        return v && (std::strcmp(v, "off") == 0 || std::strcmp(v, "0") == 0);
    }();
    return bf16kernels::available() && !offByEnvironment && !g_forcedFallback.load();
}

bool cpuBf16FasterThanFp32() {
#if defined(__x86_64__)
    // The two vendors measured (Autocast.h): AMD's AVX512_BF16, Intel's AMX tiles.
    return cpuBf16KernelsUsable() && (__builtin_cpu_is("amd") || bf16kernels::amx::usable());
#else
    return false;
#endif
}

void forceCpuBf16Fallback(bool on) { g_forcedFallback = on; }

std::string effectivePrecision(const torch::Device& device, Precision precision) {
    if (precision == Precision::Bf16 && device.is_cpu() && !cpuBf16KernelsUsable())
        return "fp32 (bf16 needs AVX512_BF16)";
    return toString(precision);
}

PrecisionChoice choosePrecision(const torch::Device& device, Precision requested, Task task) {
    if (requested != Precision::Auto) return {requested, {}};
    if (!device.is_cpu())
        return {Precision::Fp32, "auto: fp32 on CUDA (no bf16 accuracy check ran on a GPU)"};
    if (task != Task::LanguageModel)
        return {Precision::Fp32,
                "auto: fp32 for a classifier (bf16's accuracy is checked for language models)"};
    if (!cpuBf16KernelsUsable())
        return {Precision::Fp32, bf16kernels::available() ? "auto: fp32 (the bf16 kernels are switched off)"
                                                          : "auto: fp32 (this CPU has no AVX512_BF16)"};
    if (!cpuBf16FasterThanFp32())
        return {
            Precision::Fp32,
            "auto: fp32 (this CPU has AVX512_BF16, but no AMX tiles for bf16, and bf16 trained slower than "
            "fp32 on the Intel Xeon measured without them)"};
    if (bf16kernels::amx::usable())
        return {Precision::Bf16,
                "auto: bf16 (this CPU has AMX tiles for bf16; a language model's bf16 loss stays "
                "within 2 % of fp32's)"};
    return {Precision::Bf16,
            "auto: bf16 (this CPU has AVX512_BF16; a language model's bf16 loss stays within 2 % of fp32's)"};
}

AutocastScope::AutocastScope(const torch::Device& device, Precision precision) {
    // Auto is chosen before a run starts (choosePrecision); one that was not trains in fp32.
    if (precision == Precision::Fp32 || precision == Precision::Auto) return;
    if (precision == Precision::Bf16 && device.is_cpu()) {
        m_cpuBf16 = true;
        m_previousCpuBf16 = t_cpuBf16;
        t_cpuBf16 = cpuBf16KernelsUsable();
        return;
    }
    m_active = true;
    m_cuda = device.is_cuda();
    m_previousEnabled = enabled(m_cuda);
    m_previousType = dtype(m_cuda);
    setDtype(m_cuda, precision == Precision::Bf16 ? at::kBFloat16 : at::kHalf);
    setEnabled(m_cuda, true);
}

AutocastScope::~AutocastScope() {
    if (m_cpuBf16) t_cpuBf16 = m_previousCpuBf16;
    if (!m_active) return;
    setEnabled(m_cuda, m_previousEnabled);
    setDtype(m_cuda, m_previousType);
    at::autocast::clear_cache();
}

}  // namespace wb
