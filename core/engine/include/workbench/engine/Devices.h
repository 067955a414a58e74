// What this machine can train on: CPU (with a thread count) and each CUDA device the LibTorch build sees.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workbench/domain/Config.h"
#include "workbench/domain/DeviceSpec.h"

namespace wb {

struct DeviceInfo {
    DeviceSpec device;             // the CPU (threads 0: every core) or a CUDA device
    std::string name;              // "CPU (2 cores)", "NVIDIA H100 80GB HBM3"
    int threads = 0;               // cpu: hardware threads available
    std::int64_t memoryBytes = 0;  // cuda: total memory; cpu: physical memory
    bool bf16 = false;             // bf16 autocast usable
    bool fp16 = false;

    std::string id() const { return device.id(); }  // "cpu", "cuda:0"
    const char* kind() const { return device.isCpu() ? "cpu" : "cuda"; }
};

std::vector<DeviceInfo> listDevices();

// What this build and machine say of CUDA: whether LibTorch's CUDA build is linked in (a Debian 13
// libtorch-cuda or PyTorch's own LibTorch), with NCCL for data-parallel GPU runs, and how many devices it
// sees.
struct CudaSupport {
    bool compiled = false;
    bool nccl = false;
    int devices = 0;
    std::string summary() const;  // "compiled in (NCCL), no device found", "not in this build (CPU LibTorch)"
};
CudaSupport cudaSupport();
// Whether this build and machine can train on the device as given: a CUDA device of that index is here, the
// thread count and the processes are within bounds. Throws InputError naming the device and why not. It
// parses nothing: a device string is read by DeviceSpec::parse (workbench/domain/DeviceSpec.h).
void checkDeviceAvailable(const DeviceSpec& spec);
// Processes of one job on this machine share its cores: for a CPU spec and `localProcesses` above one (train
// --nproc N, torchrun's ranks on this host), threads becomes the hardware threads divided between them, at
// least one. Any other spec is returned as it is. For a count nobody asked for: the caller knows.
DeviceSpec shareCoresBetweenProcesses(DeviceSpec spec, std::int64_t localProcesses);

// What a run of this config trains in on its device, as its run.json will say ("bf16", "fp32", or for CPU
// bf16 without the kernels "fp32 (bf16 needs AVX512_BF16)"): auto resolved as the run will resolve it. For
// the app's rows of a run that is starting, before its run.json exists.
std::string precisionRunWillUse(const ExperimentConfig& config);

std::string libtorchVersion();  // "1.13.0"
std::string blasLibrary();      // resolved libblas.so.3 ("openblas-pthread", "reference BLAS", ...)
// "" when the BLAS's thread count can be set (OpenBLAS provides sgemm_); otherwise one sentence saying that
// it cannot and what that means for a thread count, for `devices`, a run's log and run.json's warnings.
std::string blasThreadsCaveat();
int hardwareThreads();
// What "cpu" without a thread count trains on: OMP_NUM_THREADS when set (1 to kMaxThreads), else the CPUs
// this process may run on (its affinity: taskset, a container's cpuset), else hardwareThreads().
int defaultCpuThreads();
// The instruction set our own CPU kernels run on here, whether LSTM_WORKBENCH_CPU_CAPABILITY capped it, the
// largest hidden size whose fp32 recurrence runs on them (above it, BLAS per step), and the bf16 kernels:
// "avx512, fp32 recurrence packed up to H = 512, bf16 kernels on AMX tiles" (an Intel Xeon with AMX-BF16),
// "avx2 (capped by LSTM_WORKBENCH_CPU_CAPABILITY=avx2), fp32 recurrence packed up to H = 256, no bf16
// kernels", and on a CPU whose bf16 kernels lose to fp32 "..., bf16 kernels (slower than fp32 on this CPU:
// auto trains in fp32)".
std::string cpuKernels();

}  // namespace wb
