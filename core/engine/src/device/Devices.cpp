// Device discovery (workbench/engine/Devices.h): the CPU and CUDA devices, the BLAS, what a run will use.
#include "workbench/engine/Devices.h"

#include <dlfcn.h>
#include <sched.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <torch/torch.h>

#include "TorchCompat.h"
#include "device/Autocast.h"
#include "device/DeviceSetup.h"
#include "model/Bf16Amx.h"
#include "model/Bf16Kernels.h"
#include "model/CpuCapability.h"
#include "model/LstmKernels.h"
#include "model/PackedWeight.h"
#include "workbench/domain/DeviceSpec.h"
#include "workbench/domain/Errors.h"

namespace wb {

int hardwareThreads() {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : static_cast<int>(n);
}

int defaultCpuThreads() {
    // OMP_NUM_THREADS, as PyTorch and every OpenMP program read it, when someone set it.
    if (const char* env = std::getenv("OMP_NUM_THREADS")) {
        char* end = nullptr;
        const long n = std::strtol(env, &end, 10);
        if (end != env && *end == '\0' && n >= 1 && n <= kMaxThreads) return static_cast<int>(n);
    }
    // The CPUs this process may run on (taskset, a container's cpuset), not the machine's.
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    return hardwareThreads();
}

std::string cpuKernels() {
    std::string out = lstmkernels::packedIsaName(lstmkernels::packedIsa());
    if (cpuCapabilityCap() != CpuLevel::Avx512)
        out += std::string(" (capped by LSTM_WORKBENCH_CPU_CAPABILITY=") +
               std::getenv("LSTM_WORKBENCH_CPU_CAPABILITY") + ")";
    // Whether an fp32 LSTM of a given size runs its steps on these kernels or through BLAS
    // (model/PackedWeight.h).
    out += ", fp32 recurrence packed up to H = " + std::to_string(packedMaxHidden());
    if (!bf16kernels::available()) return out + ", no bf16 kernels";
    // Where they run but lose to fp32 (an Intel core without AMX: Autocast.h), what auto does about it.
    const bool slower = cpuBf16KernelsUsable() && !cpuBf16FasterThanFp32();
    if (slower) return out + ", bf16 kernels (slower than fp32 on this CPU: auto trains in fp32)";
    return out + (bf16kernels::amx::usable() ? ", bf16 kernels on AMX tiles" : ", bf16 kernels");
}

std::string libtorchVersion() {
#ifdef TORCH_VERSION
    return TORCH_VERSION;
#else
    return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
           std::to_string(TORCH_VERSION_PATCH);
#endif
}

std::string blasLibrary() {
    // PyTorch's own builds link MKL in, and LibTorch's set_num_threads sets MKL's thread count with its own.
    if (at::hasMKL()) return "MKL (linked into LibTorch, on LibTorch's threads)";
    // Debian's LibTorch calls BLAS through libblas.so.3, whose alternative decides the implementation, and
    // LD_LIBRARY_PATH can put another libblas.so.3 first. What runs is the library that provides sgemm_ to
    // the process; OpenBLAS also exports openblas_get_config, which is only its version when its own sgemm_
    // is the one in use.
    // The provider is named by the path it was loaded from, usually the alternatives' link
    // (/lib/x86_64-linux-gnu/libblas.so.3): only the resolved path says which implementation it is.
    Dl_info where{};
    void* sgemm = dlsym(RTLD_DEFAULT, "sgemm_");
    std::string provider = sgemm && dladdr(sgemm, &where) && where.dli_fname ? where.dli_fname : "";
    if (!provider.empty()) {
        std::error_code ec;
        const auto resolved = std::filesystem::canonical(provider, ec);
        if (!ec) provider = resolved.string();
    }
    using ConfigFn = const char* (*)();
    auto config = reinterpret_cast<ConfigFn>(dlsym(RTLD_DEFAULT, "openblas_get_config"));
    if (config && (provider.empty() || provider.find("openblas") != std::string::npos))
        return "OpenBLAS (" + std::string(config()) + ")";
    return provider.empty() ? "bundled with LibTorch" : provider;
}

static std::int64_t physicalMemoryBytes() {
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? static_cast<std::int64_t>(pages) * size : 0;
}

std::vector<DeviceInfo> listDevices() {
    std::vector<DeviceInfo> out;
    DeviceInfo cpu;
    cpu.threads = hardwareThreads();
    cpu.memoryBytes = physicalMemoryBytes();
    std::string model;
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);) {
        if (line.rfind("model name", 0) == 0) {
            model = line.substr(line.find(':') + 2);
            break;
        }
    }
    cpu.name =
        (model.empty() ? std::string("CPU") : model) + " (" + std::to_string(cpu.threads) + " threads)";
    cpu.bf16 = true;  // CPU autocast to bf16 exists since LibTorch 1.10 (slow without AVX512-BF16)
    out.push_back(cpu);
    if (torch::cuda::is_available()) {
        for (std::int64_t i = 0; i < static_cast<std::int64_t>(torch::cuda::device_count()); ++i) {
            DeviceInfo gpu;
            gpu.device.kind = DeviceSpec::Kind::Cuda;
            gpu.device.index = i;
            gpu.name = cudaDeviceName(static_cast<int>(i), &gpu.memoryBytes);
            gpu.bf16 = true;
            gpu.fp16 = true;
            out.push_back(gpu);
        }
    }
    return out;
}

CudaSupport cudaSupport() {
    CudaSupport s;
#ifdef WORKBENCH_WITH_CUDA
    s.compiled = true;
#endif
#if defined(USE_C10D_NCCL) && defined(WORKBENCH_C10D_BACKENDS)
    s.nccl = true;  // DistributedContext makes a ProcessGroupNCCL for data-parallel CUDA runs
#endif
    s.devices = torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0;
    return s;
}

std::string CudaSupport::summary() const {
#ifdef WORKBENCH_TORCH_CPU_HALF
    if (!compiled)
        return "not in this build (a CUDA LibTorch built without its CUDA toolkit: its CPU half only)";
#else
    if (!compiled) return "not in this build (CPU LibTorch)";
#endif
    return std::string("compiled in") + (nccl ? " (NCCL)" : " (no NCCL: data-parallel GPU runs use Gloo)") +
           ", " + (devices == 0 ? std::string("no device found") : std::to_string(devices) + " device(s)");
}

void checkDeviceAvailable(const DeviceSpec& spec) {
    const auto refuse = [&](const std::string& why) {
        throw InputError("device '" + spec.text() + "': " + why);
    };
    if (spec.threads < 0 || spec.threads > kMaxThreads)
        refuse("the thread count must be 0 (the library's default) to " + std::to_string(kMaxThreads));
    if (spec.processes < 1 || spec.processes > kMaxProcesses)
        refuse("the processes must be 1 to " + std::to_string(kMaxProcesses));
    if (spec.isCpu()) return;
    const int count = torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0;
    if (spec.index >= count)
        refuse(count == 0 ? std::string("no CUDA device is available in this build/machine")
                          : "only " + std::to_string(count) + " CUDA device(s) here");
}

DeviceSpec shareCoresBetweenProcesses(DeviceSpec spec, std::int64_t localProcesses) {
    if (spec.isCpu() && localProcesses > 1)
        spec.threads = std::max<std::int64_t>(1, hardwareThreads() / localProcesses);
    return spec;
}

std::string precisionRunWillUse(const ExperimentConfig& config) {
    const torch::Device device = torchDevice(config.device.spec);
    return effectivePrecision(device,
                              choosePrecision(device, config.device.precision, config.task).precision);
}

std::string blasThreadsCaveat() {
    if (blasThreads() >= 0) return "";
    return "the BLAS in use (" + blasLibrary() +
           ") has no openblas_set_num_threads, so its thread count cannot be set: a thread count applies to "
           "LibTorch only, and matrix products run on that BLAS's own threads (one with the reference BLAS); "
           "OpenBLAS is the BLAS this program is tuned for";
}

}  // namespace wb
