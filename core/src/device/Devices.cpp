// Device discovery and per-run device set-up: CPU threads (LibTorch's and OpenBLAS's together), CUDA devices.
#include "workbench/Devices.h"

#include <dlfcn.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <thread>

#include <torch/torch.h>

#include "device/DeviceSetup.h"
#include "workbench/Errors.h"

namespace wb {

int hardwareThreads() {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : static_cast<int>(n);
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
    // Debian's LibTorch calls BLAS through libblas.so.3, whose alternative decides the implementation.
    // Whatever the dynamic linker loaded is what we run on; OpenBLAS exports openblas_get_config.
    using ConfigFn = const char* (*)();
    if (auto fn = reinterpret_cast<ConfigFn>(dlsym(RTLD_DEFAULT, "openblas_get_config"))) {
        std::string config = fn();
        return "OpenBLAS (" + config + ")";
    }
    std::error_code ec;
    for (const char* link : {"/etc/alternatives/libblas.so.3-x86_64-linux-gnu",
                             "/etc/alternatives/libblas.so.3-aarch64-linux-gnu"}) {
        auto target = std::filesystem::read_symlink(link, ec);
        if (!ec) return target.string();
    }
    return "bundled with LibTorch";
}

static std::int64_t physicalMemoryBytes() {
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? static_cast<std::int64_t>(pages) * size : 0;
}

std::vector<DeviceInfo> listDevices() {
    std::vector<DeviceInfo> out;
    DeviceInfo cpu;
    cpu.id = "cpu";
    cpu.kind = "cpu";
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
            gpu.id = "cuda:" + std::to_string(i);
            gpu.kind = "cuda";
            gpu.name = cudaDeviceName(static_cast<int>(i), &gpu.memoryBytes);
            gpu.bf16 = true;
            gpu.fp16 = true;
            out.push_back(gpu);
        }
    }
    return out;
}

std::string parseDeviceSpec(const std::string& spec, std::int64_t* threads) {
    static const std::regex cpuRe(R"(cpu(?::(\d{1,4}))?)"), cudaRe(R"(cuda(?::(\d{1,3}))?)");
    std::smatch m;
    if (std::regex_match(spec, m, cpuRe)) {
        if (m[1].matched) {
            const long n = std::stol(m[1].str());
            if (n < 1) throw InputError("device '" + spec + "': the thread count must be at least 1");
            if (threads) *threads = n;
        }
        return "cpu";
    }
    if (std::regex_match(spec, m, cudaRe)) {
        const long index = m[1].matched ? std::stol(m[1].str()) : 0;
        const long count = torch::cuda::is_available() ? static_cast<long>(torch::cuda::device_count()) : 0;
        if (index >= count)
            throw InputError("device '" + spec + "': " +
                             (count == 0 ? std::string("no CUDA device is available in this build/machine")
                                         : "only " + std::to_string(count) + " CUDA device(s) here"));
        return "cuda:" + std::to_string(index);
    }
    throw InputError("device '" + spec + "': expected cpu, cpu:THREADS or cuda:N");
}

// ---- DeviceSetup.h ----

void applyCpuThreads(std::int64_t threads) {
    if (threads <= 0) return;
    torch::set_num_threads(static_cast<int>(threads));
    // OpenBLAS keeps its own pool; leaving it at the core count oversubscribes the CPU (docs/performance.md).
    using SetFn = void (*)(int);
    if (auto fn = reinterpret_cast<SetFn>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
        fn(static_cast<int>(threads));
}

int currentCpuThreads() { return torch::get_num_threads(); }

void applyBlasThreads(int threads) {
    using SetFn = void (*)(int);
    if (auto fn = reinterpret_cast<SetFn>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) fn(threads);
}

void synchronize(const torch::Device& device) {
    if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

std::string hostName() {
    char buf[256] = {0};
    return gethostname(buf, sizeof buf - 1) == 0 ? std::string(buf) : std::string();
}

}  // namespace wb
