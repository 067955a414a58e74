// What this machine can train on: CPU (with a thread count) and each CUDA device the LibTorch build sees.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

struct DeviceInfo {
    std::string id;                // "cpu", "cuda:0"
    std::string name;              // "CPU (2 cores)", "NVIDIA H100 80GB HBM3"
    std::string kind;              // "cpu" | "cuda"
    int threads = 0;               // cpu: hardware threads available
    std::int64_t memoryBytes = 0;  // cuda: total memory; cpu: physical memory
    bool bf16 = false;             // bf16 autocast usable
    bool fp16 = false;
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
// Checks a "cpu" / "cpu:N" / "cuda:N" string; throws InputError if it is malformed or absent here.
// Returns the device id part ("cpu" or "cuda:N") and sets threads from "cpu:N" when given.
std::string parseDeviceSpec(const std::string& spec, std::int64_t* threads);

std::string libtorchVersion();  // "1.13.0"
std::string blasLibrary();      // resolved libblas.so.3 ("openblas-pthread", "reference BLAS", ...)
// "" when the BLAS's thread count can be set (OpenBLAS provides sgemm_); otherwise one sentence saying that
// it cannot and what that means for a thread count, for `devices`, a run's log and run.json's warnings.
std::string blasThreadsCaveat();
int hardwareThreads();

}  // namespace wb
