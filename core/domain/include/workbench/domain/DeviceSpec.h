// A device as one value: its kind, the CUDA index, the CPU threads of each process and the processes of a
// data-parallel job. A device string as people write it -- "cpu", "cpu:THREADS", "cuda", "cuda:N" -- is
// parsed here and nowhere else: the config table's device row (so config.json, --device and a sweep's
// device= axis), bench's --device and the checks of the app and run folder all come through parse().
// The engine checks that such a device exists here (workbench/engine/Devices.h, checkDeviceAvailable) and
// makes its torch::Device from it. A new kind of device (a host, another accelerator) is a Kind here first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace wb {

inline constexpr std::int64_t kMaxThreads = 4096;    // a sanity bound on a CPU device's threads per process
inline constexpr std::int64_t kMaxProcesses = 1024;  // a sanity bound on the processes of one job

struct DeviceSpec {
    enum class Kind { Cpu, Cuda };
    Kind kind = Kind::Cpu;
    int index = 0;               // the CUDA device's ordinal
    std::int64_t threads = 0;    // CPU threads of each process; 0 = every core (a run settles it: Devices.h)
    std::int64_t processes = 1;  // data-parallel processes on this machine; 1 = this process alone

    // "cpu", "cpu:THREADS" (1 to 9999), "cuda" (cuda:0) and "cuda:N" (0 to 999), nothing else: no spaces,
    // no capitals. A string says nothing of processes, which stays 1. Throws InputError "device 'x':
    // expected cpu, cpu:THREADS or cuda:N", or "device 'cpu:0': the thread count must be at least 1".
    static DeviceSpec parse(const std::string& text);
    // The same without the message: nullopt for a malformed string.
    static std::optional<DeviceSpec> tryParse(const std::string& text);

    bool isCpu() const { return kind == Kind::Cpu; }
    bool isCuda() const { return kind == Kind::Cuda; }
    std::string id() const;    // the device without a thread count: "cpu", "cuda:0"
    std::string text() const;  // canonical, threads included, which parse() reads back: "cpu:4", "cuda:0"
    bool operator==(const DeviceSpec& other) const {
        return kind == other.kind && index == other.index && threads == other.threads &&
               processes == other.processes;
    }
    bool operator!=(const DeviceSpec& other) const { return !(*this == other); }
};

// Whether a device string names the CPU ("cpu", "cpu:4"); false for anything else, malformed included.
bool isCpuDevice(const std::string& text);

}  // namespace wb
