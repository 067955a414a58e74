// `lstm-workbench-cli devices`: the devices this build can train on, LibTorch's and the BLAS's versions, and
// what CUDA support the build has.
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "Commands.h"
#include "workbench/engine/Devices.h"

using nlohmann::json;

int runDevices(bool jsonOut) {
    const auto devices = wb::listDevices();
    const auto cuda = wb::cudaSupport();
    const auto blasCaveat = wb::blasThreadsCaveat();
    if (jsonOut) {
        json list = json::array();
        for (const auto& d : devices)
            list.push_back({{"id", d.id()},
                            {"name", d.name},
                            {"kind", d.kind()},
                            {"threads", d.threads},
                            {"memory_bytes", d.memoryBytes},
                            {"bf16", d.bf16},
                            {"fp16", d.fp16}});
        std::cout << json{{"devices", list},
                          {"libtorch", wb::libtorchVersion()},
                          {"cuda",
                           {{"compiled", cuda.compiled}, {"nccl", cuda.nccl}, {"devices", cuda.devices}}},
                          {"blas", wb::blasLibrary()},
                          {"cpu_kernels", wb::cpuKernels()},
                          {"blas_threads_settable", blasCaveat.empty()}}
                         .dump(2)
                  << "\n";
        return 0;
    }
    std::printf("LibTorch %s, BLAS: %s\n", wb::libtorchVersion().c_str(), wb::blasLibrary().c_str());
    std::printf("CUDA: %s\n", cuda.summary().c_str());
    std::printf("CPU kernels: %s\n", wb::cpuKernels().c_str());
    if (!blasCaveat.empty()) std::printf("warning: %s\n", blasCaveat.c_str());
    for (const auto& d : devices) {
        std::printf("%-8s %s", d.id().c_str(), d.name.c_str());
        if (d.memoryBytes > 0) std::printf(", %.1f GiB", static_cast<double>(d.memoryBytes) / (1 << 30));
        std::printf("\n");
    }
    return 0;
}
