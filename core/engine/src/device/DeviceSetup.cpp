// A run's device set-up on the torch side (see DeviceSetup.h): its settings settled, its torch::Device, the
// CPU threads of LibTorch and OpenBLAS together, clocks after queued work.
#include "device/DeviceSetup.h"

#include <ATen/Parallel.h>

#include <dlfcn.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "EnvSwitch.h"
#include "device/Autocast.h"
#include "workbench/engine/Devices.h"

namespace wb {

torch::Device torchDevice(const DeviceSpec& spec) {
    return spec.isCpu() ? torch::Device(torch::kCPU)
                        : torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(spec.index));
}

std::string settleDeviceSettings(ExperimentConfig& config) {
    DeviceSpec spec = config.device.spec;
    // "cpu" without a count: every core this process may use (LibTorch's own default was 1 thread on some
    // machines), shared between the processes of a job; the run's log and run.json say how many.
    if (spec.isCpu() && spec.threads == 0)
        spec.threads = spec.processes > 1 ? shareCoresBetweenProcesses(spec, spec.processes).threads
                                          : defaultCpuThreads();
    checkDeviceAvailable(spec);
    config.device.spec = spec;
    const auto choice = choosePrecision(torchDevice(spec), config.device.precision, config.task);
    config.device.precision = choice.precision;
    return choice.reason;
}

namespace {
using SetThreadsFn = void (*)(int);
using GetThreadsFn = int (*)();
SetThreadsFn openblasSetThreads() {
    return reinterpret_cast<SetThreadsFn>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
}
}  // namespace

void applyCpuThreads(std::int64_t threads) {
    if (threads <= 0) return;
    torch::set_num_threads(static_cast<int>(threads));
    // OpenBLAS keeps its own pool; leaving it at the core count oversubscribes the CPU (docs/performance.md).
    applyBlasThreads(static_cast<int>(threads));
}

int currentCpuThreads() { return torch::get_num_threads(); }

void applyBlasThreads(int threads) {
    if (auto fn = openblasSetThreads()) {
        fn(threads);
        return;
    }
    // Another BLAS (the reference BLAS is single-threaded; others have their own variables): nothing to
    // set. Whoever asked for the threads says so where its user looks (blasThreadsCaveat): `devices`, the
    // run's log and run.json; run.json's blas_threads is -1.
}

int blasThreads() {
    if (at::hasMKL()) return torch::get_num_threads();
    auto fn = reinterpret_cast<GetThreadsFn>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    return fn && blasLibrary().rfind("OpenBLAS", 0) == 0 ? fn() : -1;
}

namespace {
#if defined(__x86_64__) || defined(__i386__)
constexpr unsigned kFlushBits = 0x8040;  // MXCSR's FTZ (bit 15) and DAZ (bit 6)
void flushHere() { _mm_setcsr(_mm_getcsr() | kFlushBits); }
#else
void flushHere() {}
#endif
}  // namespace

void flushSubnormals() {
    if (switchedOff("LSTM_WORKBENCH_FLUSH_DENORMALS")) return;  // read each time: once a job, and testable
    flushHere();
    // The intra-op pool's threads have MXCSRs of their own. A parallel loop of one item per thread reaches
    // each (ATen gives each thread of the team one chunk); threads the pool starts later copy the starting
    // thread's, as every new thread does.
    const int n = at::get_num_threads();
    if (n > 1 && !at::in_parallel_region())
        at::parallel_for(0, n, 1, [](std::int64_t, std::int64_t) { flushHere(); });
}

bool subnormalsFlushedHere() {
#if defined(__x86_64__) || defined(__i386__)
    return (_mm_getcsr() & kFlushBits) == kFlushBits;
#else
    return false;
#endif
}

CpuThreadsScope::CpuThreadsScope(std::int64_t threads) {
    if (threads <= 0) {
        flushSubnormals();
        return;
    }
    m_active = true;
    m_torch = torch::get_num_threads();
    m_blas = blasThreads();
    applyCpuThreads(threads);
    flushSubnormals();  // after the count: the pool at its new size
}

CpuThreadsScope::~CpuThreadsScope() {
    if (!m_active) return;
    torch::set_num_threads(m_torch);
    if (m_blas > 0)
        if (auto fn = openblasSetThreads()) fn(m_blas);
}

void synchronize(const torch::Device& device) {
    if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

std::string hostName() {
    char buf[256] = {0};
    return gethostname(buf, sizeof buf - 1) == 0 ? std::string(buf) : std::string();
}

}  // namespace wb
