// Device strings, parsed in one place (workbench/domain/DeviceSpec.h).
#include <gtest/gtest.h>

#include "workbench/domain/DeviceSpec.h"
#include "workbench/domain/Errors.h"

TEST(DeviceSpec, ReadsTheFourShapes) {
    const auto cpu = wb::DeviceSpec::parse("cpu");
    EXPECT_TRUE(cpu.isCpu());
    EXPECT_EQ(cpu.threads, 0);
    EXPECT_EQ(cpu.id(), "cpu");
    EXPECT_EQ(cpu.text(), "cpu");
    const auto threads = wb::DeviceSpec::parse("cpu:4");
    EXPECT_TRUE(threads.isCpu());
    EXPECT_EQ(threads.threads, 4);
    EXPECT_EQ(threads.id(), "cpu");
    EXPECT_EQ(threads.text(), "cpu:4");
    const auto gpu = wb::DeviceSpec::parse("cuda");
    EXPECT_TRUE(gpu.isCuda());
    EXPECT_EQ(gpu.index, 0);
    EXPECT_EQ(gpu.id(), "cuda:0");
    const auto second = wb::DeviceSpec::parse("cuda:1");
    EXPECT_EQ(second.index, 1);
    EXPECT_EQ(second.text(), "cuda:1");
}

TEST(DeviceSpec, RefusesWhatIsNotADeviceAndSaysWhy) {
    for (const char* bad : {"", "gpu", "CPU", "cpu:", "cpu:x", "cpu:12345", "cuda:-1", "cuda:1:2", " cpu"}) {
        EXPECT_FALSE(wb::DeviceSpec::tryParse(bad)) << bad;
        try {
            wb::DeviceSpec::parse(bad);
            ADD_FAILURE() << bad;
        } catch (const wb::InputError& e) {
            EXPECT_NE(std::string(e.what()).find("expected cpu, cpu:THREADS or cuda:N"), std::string::npos)
                << bad;
        }
    }
    try {
        wb::DeviceSpec::parse("cpu:0");
        ADD_FAILURE();
    } catch (const wb::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("at least 1"), std::string::npos) << e.what();
    }
}

TEST(DeviceSpec, IsCpuDeviceIsFalseForAnythingElse) {
    EXPECT_TRUE(wb::isCpuDevice("cpu"));
    EXPECT_TRUE(wb::isCpuDevice("cpu:2"));
    EXPECT_FALSE(wb::isCpuDevice("cuda:0"));
    EXPECT_FALSE(wb::isCpuDevice("cpux"));  // a prefix is not a device
    EXPECT_FALSE(wb::isCpuDevice(""));
}
