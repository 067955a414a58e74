// The engine's side of a device (workbench/engine/Devices.h): it checks a DeviceSpec against this machine and
// divides the cores between local processes, and parses no strings.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>

#include "support/TestSupport.h"
#include "workbench/domain/DeviceSpec.h"
#include "workbench/domain/Errors.h"
#include "workbench/engine/Devices.h"

namespace {

wb::DeviceSpec cpu(std::int64_t threads, std::int64_t processes = 1) {
    wb::DeviceSpec spec;
    spec.threads = threads;
    spec.processes = processes;
    return spec;
}

}  // namespace

TEST(DeviceAvailability, TheCpuIsAlwaysThereWithSaneThreadsAndProcesses) {
    EXPECT_NO_THROW(wb::checkDeviceAvailable(cpu(0)));
    EXPECT_NO_THROW(wb::checkDeviceAvailable(cpu(wb::kMaxThreads, wb::kMaxProcesses)));
    EXPECT_NE(wbtest::inputErrorOf([] {
                  wb::checkDeviceAvailable(cpu(wb::kMaxThreads + 1));
              }).find("device 'cpu:4097': "),
              std::string::npos);
    EXPECT_NE(wbtest::inputErrorOf([] { wb::checkDeviceAvailable(cpu(-1)); }).find("thread count"),
              std::string::npos);
    EXPECT_NE(
        wbtest::inputErrorOf([] { wb::checkDeviceAvailable(cpu(1, 0)); }).find("processes must be 1 to"),
        std::string::npos);
}

TEST(DeviceAvailability, ACudaDeviceMustBeHere) {
    const int here = wb::cudaSupport().devices;
    const auto beyond = wb::DeviceSpec::parse("cuda:" + std::to_string(here));
    const auto message = wbtest::inputErrorOf([&] { wb::checkDeviceAvailable(beyond); });
    EXPECT_NE(message.find("device 'cuda:" + std::to_string(here) + "': "), std::string::npos) << message;
    EXPECT_NE(message.find(here == 0 ? "no CUDA device is available" : "CUDA device(s) here"),
              std::string::npos)
        << message;
    if (here > 0) EXPECT_NO_THROW(wb::checkDeviceAvailable(wb::DeviceSpec::parse("cuda:0")));
}

TEST(DeviceAvailability, LocalProcessesShareTheCores) {
    const std::int64_t cores = wb::hardwareThreads();
    EXPECT_EQ(wb::shareCoresBetweenProcesses(cpu(0), 2).threads, std::max<std::int64_t>(1, cores / 2));
    EXPECT_EQ(wb::shareCoresBetweenProcesses(cpu(0), cores * 4).threads, 1);  // at least one each
    EXPECT_EQ(wb::shareCoresBetweenProcesses(cpu(3), 1).threads, 3);          // alone: as it was
    const auto gpu = wb::DeviceSpec::parse("cuda:1");
    EXPECT_EQ(wb::shareCoresBetweenProcesses(gpu, 4), gpu);  // a GPU's processes share no cores
}
