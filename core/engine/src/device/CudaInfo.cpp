// CUDA device names, memory and the per-rank device, where the LibTorch build has CUDA (WORKBENCH_WITH_CUDA
// is set by CMake then); elsewhere the answers a build without CUDA can give.
#include "device/DeviceSetup.h"

#if defined(WORKBENCH_WITH_CUDA) && __has_include(<ATen/cuda/CUDAContext.h>)
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#define WORKBENCH_CUDA_RUNTIME 1
#endif

namespace wb {

std::string cudaDeviceName(int index, std::int64_t* memoryBytes) {
#ifdef WORKBENCH_CUDA_RUNTIME
    const auto* props = at::cuda::getDeviceProperties(index);
    if (memoryBytes) *memoryBytes = static_cast<std::int64_t>(props->totalGlobalMem);
    return props->name;
#else
    if (memoryBytes) *memoryBytes = 0;
    return "CUDA device " + std::to_string(index);
#endif
}

void seedTrainingStep(const torch::Device& device, std::uint64_t stepSeed, std::int64_t step) {
    if (!device.is_cuda()) {
        torch::manual_seed(stepSeed);
        return;
    }
    {
        auto cpu = at::detail::getDefaultCPUGenerator();
        const std::lock_guard<std::mutex> lock(cpu.mutex());
        cpu.set_current_seed(stepSeed);
    }
#ifdef WORKBENCH_CUDA_RUNTIME
    auto gpu = at::cuda::detail::getDefaultCUDAGenerator(device.index());
    const std::lock_guard<std::mutex> lock(gpu.mutex());
    // 2^24 counter values a step: far more than a step's dropout draws take (a multiple of 4, as Philox's
    // offsets must be).
    gpu.get<at::CUDAGeneratorImpl>()->set_philox_offset_per_thread(static_cast<std::uint64_t>(step + 1)
                                                                   << 24);
#endif
}

std::int64_t cudaPeakMemoryBytes(const torch::Device& device) {
#ifdef WORKBENCH_CUDA_RUNTIME
    if (!device.is_cuda()) return 0;
    const auto index = device.has_index() ? device.index() : c10::cuda::current_device();
    // Entry 0 of each statistic is the aggregate over pool kinds (StatType::AGGREGATE), the figure
    // torch.cuda.max_memory_allocated reports; the enum's namespace moved in 2.x, its order did not.
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(index);
    return static_cast<std::int64_t>(stats.allocated_bytes[0].peak);
#else
    return 0;
#endif
}

torch::Device deviceForLocalRank(const torch::Device& configured, int localRank) {
    if (!configured.is_cuda()) return configured;
    const auto count = static_cast<int>(torch::cuda::device_count());
    if (count == 0) return configured;  // the run fails where it first uses the device, with LibTorch's words
    const int first = configured.has_index() ? configured.index() : 0;
    const torch::Device device(torch::kCUDA, static_cast<c10::DeviceIndex>((first + localRank) % count));
#ifdef WORKBENCH_CUDA_RUNTIME
    c10::cuda::set_device(device.index());
#endif
    return device;
}

}  // namespace wb
