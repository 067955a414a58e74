// Mixed precision as a scope: inside it, eligible ops (matrix products, LSTM cells) run in bf16/fp16 on the
// given device. Autocast state is thread-local in LibTorch, so each worker thread opens its own scope.
//
// bf16 on the CPU does not use ATen's autocast: where the CPU has AVX512_BF16 the scope switches on the
// model's own bf16 kernels (model/Bf16Kernels.h: the LSTM's products and the head's, fp32 sums and fp32
// master weights); elsewhere, or when forced off, the model computes in fp32 (ATen's CPU bf16 products
// have no fast kernels in this LibTorch and were slower than fp32).
#pragma once

#include <torch/torch.h>

#include "workbench/domain/Config.h"

namespace wb {

class AutocastScope {
public:
    AutocastScope(const torch::Device& device, Precision precision);
    ~AutocastScope();
    AutocastScope(const AutocastScope&) = delete;
    AutocastScope& operator=(const AutocastScope&) = delete;

private:
    bool m_cpuBf16 = false;
    bool m_previousCpuBf16 = false;
    bool m_active = false;
    bool m_cuda = false;
    bool m_previousEnabled = false;
    at::ScalarType m_previousType = at::kBFloat16;
};

// Inside a CPU bf16 scope on this thread whose products run on the bf16 kernels.
bool cpuBf16Active();
// Whether CPU bf16 runs on the bf16 kernels on this machine: the CPU has AVX512_BF16 and neither
// forceCpuBf16Fallback nor LSTM_WORKBENCH_BF16_KERNELS=off turned them off.
bool cpuBf16KernelsUsable();
// Whether bf16 trains faster than fp32 on this CPU, for auto's choice: on AMD's cores with AVX512_BF16 (Zen 4
// and 5) our bf16 products ran at 1.8 times the fp32 rate and every preset trained faster; on an Intel Xeon
// with AMX tiles the bf16 products run on them and every preset trained 2.5 to 4 times faster than on
// AVX512_BF16 alone, where it is 0.65 times the fp32 rate and slower than fp32 (docs/benchmarks.md, "An
// Intel Xeon", "bf16 on AMX tiles").
bool cpuBf16FasterThanFp32();
// Tests and benchmarks: CPU bf16 computes in fp32 (the fallback of CPUs without AVX512_BF16) while on.
void forceCpuBf16Fallback(bool on);
// What a run asking for `requested` trains in, and why. Auto (the default) chooses bf16 for a language model
// on a CPU whose bf16 kernels run faster than fp32 (cpuBf16FasterThanFp32), where the bf16 accuracy check
// holds (a 500-step loss curve within 2 % of fp32's: docs/benchmarks.md, "bf16 on the CPU"), and fp32
// elsewhere: for classifiers, whose bf16 training no check covers, on CPUs without AVX512_BF16 or where bf16
// is slower, and on CUDA. Any other request is kept, with no reason.
struct PrecisionChoice {
    Precision precision = Precision::Fp32;
    std::string reason;  // "auto: ..." for Auto, else empty
};
PrecisionChoice choosePrecision(const torch::Device& device, Precision requested, Task task);

// What a run in this precision computes in on this device, as run.json records it: "bf16", or for CPU
// bf16 without the kernels "fp32 (bf16 needs AVX512_BF16)".
std::string effectivePrecision(const torch::Device& device, Precision precision);

}  // namespace wb
