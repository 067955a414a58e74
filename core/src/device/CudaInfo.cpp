// CUDA device names and memory, where the LibTorch build has CUDA (WORKBENCH_WITH_CUDA is set by CMake then).
#include "device/DeviceSetup.h"

#if defined(WORKBENCH_WITH_CUDA) && __has_include(<ATen/cuda/CUDAContext.h>)
#include <ATen/cuda/CUDAContext.h>
#define WORKBENCH_CUDA_PROPERTIES 1
#endif

namespace wb {

std::string cudaDeviceName(int index, std::int64_t* memoryBytes) {
#ifdef WORKBENCH_CUDA_PROPERTIES
    const auto* props = at::cuda::getDeviceProperties(index);
    if (memoryBytes) *memoryBytes = static_cast<std::int64_t>(props->totalGlobalMem);
    return props->name;
#else
    if (memoryBytes) *memoryBytes = 0;
    return "CUDA device " + std::to_string(index);
#endif
}

}  // namespace wb
