// A device as people name it — "cpu", "cpu:THREADS", "cuda", "cuda:N" — parsed here and nowhere else. The
// config, the run folder, the CLI and the app ask a DeviceSpec what a device string means; the engine also
// checks that a CUDA device of that index exists (workbench/Devices.h, parseDeviceSpec) and makes its
// torch::Device from it. A new kind of device (a host, another accelerator) is a Kind here first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace wb {

struct DeviceSpec {
    enum class Kind { Cpu, Cuda };
    Kind kind = Kind::Cpu;
    int index = 0;             // the CUDA device's ordinal
    std::int64_t threads = 0;  // "cpu:THREADS"; 0 when not given

    // Throws InputError "device 'x': expected cpu, cpu:THREADS or cuda:N" (or why the number is wrong).
    static DeviceSpec parse(const std::string& text);
    // The same without the message: nullopt for a malformed string.
    static std::optional<DeviceSpec> tryParse(const std::string& text);

    bool isCpu() const { return kind == Kind::Cpu; }
    bool isCuda() const { return kind == Kind::Cuda; }
    std::string id() const;    // the device without a thread count: "cpu", "cuda:0"
    std::string text() const;  // canonical, threads included: "cpu", "cpu:4", "cuda:0"
};

// Whether a device string names the CPU ("cpu", "cpu:4"); false for anything else, malformed included.
bool isCpuDevice(const std::string& text);

}  // namespace wb
