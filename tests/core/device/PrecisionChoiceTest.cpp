// --precision auto, the default (#28): bf16 only where its accuracy is checked, a language model on a CPU
// whose bf16 kernels run faster than fp32 (AMD's, and Intel's with AMX tiles; not an Intel Xeon's AVX512_BF16
// alone); fp32 for classifiers, on
// CPUs without AVX512_BF16 or where bf16 is slower, and on CUDA. A run says what it chose and why, keeps the
// choice in config.json and keeps it when resumed.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "device/Autocast.h"
#include "model/Bf16Amx.h"
#include "support/TestSupport.h"
#include "support/TinyExperiments.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Devices.h"
#include "workbench/engine/Training.h"

using namespace wb;

namespace {
bool startsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The CPU's vendor as the operating system lists it (/proc/cpuinfo's vendor_id), or empty.
std::string cpuVendor() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line))
        if (startsWith(line, "vendor_id")) return line.substr(line.find(':') + 2);
    return {};
}

// Whatever a test sets, the next one starts with the kernels as the machine has them.
struct FallbackGuard {
    ~FallbackGuard() { forceCpuBf16Fallback(false); }
};
}  // namespace

TEST(PrecisionChoice, BothTasksDefaultToAuto) {
    EXPECT_EQ(defaultConfig(Task::LanguageModel).device.precision, Precision::Auto);
    EXPECT_EQ(defaultConfig(Task::Classifier).device.precision, Precision::Auto);
}

TEST(PrecisionChoice, AutoTrainsALanguageModelInBf16WhereTheCpuHasTheKernels) {
    FallbackGuard guard;
    const torch::Device cpu(torch::kCPU);
    const auto choice = choosePrecision(cpu, Precision::Auto, Task::LanguageModel);
    if (cpuBf16FasterThanFp32()) {
        EXPECT_EQ(choice.precision, Precision::Bf16);
        const bool amx = bf16kernels::amx::usable();
        EXPECT_TRUE(startsWith(choice.reason, amx ? "auto: bf16 (this CPU has AMX tiles for bf16"
                                                  : "auto: bf16 (this CPU has AVX512_BF16"))
            << choice.reason;
    } else if (cpuBf16KernelsUsable()) {  // an Intel CPU with AVX512_BF16 and no AMX tiles
        EXPECT_EQ(choice.precision, Precision::Fp32);
        EXPECT_TRUE(startsWith(choice.reason, "auto: fp32 (this CPU has AVX512_BF16, but")) << choice.reason;
    } else {
        EXPECT_EQ(choice.precision, Precision::Fp32);
        EXPECT_TRUE(startsWith(choice.reason, "auto: fp32")) << choice.reason;
    }
    // Without the kernels (another CPU, or switched off) the same request trains in fp32, and says why.
    forceCpuBf16Fallback(true);
    const auto without = choosePrecision(cpu, Precision::Auto, Task::LanguageModel);
    EXPECT_EQ(without.precision, Precision::Fp32);
    EXPECT_TRUE(startsWith(without.reason, "auto: fp32 (")) << without.reason;
}

// bf16 counts as faster where it was measured faster: on AMD's AVX512_BF16 and on Intel's AMX tiles.
TEST(PrecisionChoice, Bf16IsFasterOnAmdCoresAndOnAmxTiles) {
    FallbackGuard guard;
    const std::string vendor = cpuVendor();
    if (vendor.empty()) GTEST_SKIP() << "no vendor_id in /proc/cpuinfo to compare with";
    const bool expected =
        cpuBf16KernelsUsable() &&
        (vendor == "AuthenticAMD" || (vendor == "GenuineIntel" && bf16kernels::amx::usable()));
    EXPECT_EQ(cpuBf16FasterThanFp32(), expected) << vendor;
    forceCpuBf16Fallback(true);
    EXPECT_FALSE(cpuBf16FasterThanFp32());
}

// `devices` says so where the bf16 kernels run but lose to fp32 (an Intel core without AMX), and only there;
// where they run on AMX tiles, it says that.
TEST(PrecisionChoice, TheKernelsLineSaysWhereBf16RunsOnAmxTiles) {
    FallbackGuard guard;
    const bool onTiles = cpuBf16KernelsUsable() && bf16kernels::amx::usable();
    EXPECT_EQ(cpuKernels().find("bf16 kernels on AMX tiles") != std::string::npos, onTiles) << cpuKernels();
}

TEST(PrecisionChoice, TheKernelsLineSaysWhereBf16IsSlower) {
    FallbackGuard guard;
    const bool slower = cpuBf16KernelsUsable() && !cpuBf16FasterThanFp32();
    EXPECT_EQ(cpuKernels().find("slower than fp32") != std::string::npos, slower) << cpuKernels();
    forceCpuBf16Fallback(true);  // kernels switched off: nothing to compare
    EXPECT_EQ(cpuKernels().find("slower than fp32"), std::string::npos) << cpuKernels();
}

TEST(PrecisionChoice, AutoIsFp32ForAClassifierAndOnCuda) {
    const auto classifier = choosePrecision(torch::Device(torch::kCPU), Precision::Auto, Task::Classifier);
    EXPECT_EQ(classifier.precision, Precision::Fp32);
    EXPECT_NE(classifier.reason.find("classifier"), std::string::npos) << classifier.reason;
    const auto cuda = choosePrecision(torch::Device(torch::kCUDA, 0), Precision::Auto, Task::LanguageModel);
    EXPECT_EQ(cuda.precision, Precision::Fp32);
    EXPECT_NE(cuda.reason.find("CUDA"), std::string::npos) << cuda.reason;
}

// The app's row of a run that is starting names what the run will say in run.json, never "auto".
TEST(PrecisionChoice, WhatARunWillUseIsSaidBeforeItStarts) {
    auto lm = defaultConfig(Task::LanguageModel);
    lm.device.spec = DeviceSpec::parse("cpu");
    ASSERT_EQ(lm.device.precision, Precision::Auto);
    EXPECT_EQ(precisionRunWillUse(lm), cpuBf16FasterThanFp32() ? "bf16" : "fp32");
    auto classifier = defaultConfig(Task::Classifier);
    classifier.device.spec = DeviceSpec::parse("cpu");
    EXPECT_EQ(precisionRunWillUse(classifier), "fp32");
    lm.device.precision = Precision::Fp32;
    EXPECT_EQ(precisionRunWillUse(lm), "fp32");
}

TEST(PrecisionChoice, AnExplicitPrecisionIsKeptWithNoReason) {
    for (const auto p : {Precision::Fp32, Precision::Bf16, Precision::Fp16})
        for (const auto task : {Task::LanguageModel, Task::Classifier}) {
            const auto choice = choosePrecision(torch::Device(torch::kCPU), p, task);
            EXPECT_EQ(choice.precision, p);
            EXPECT_EQ(choice.reason, "");
        }
}

TEST(PrecisionChoice, ARunSaysWhatAutoChoseKeepsItInItsConfigAndKeepsItWhenResumed) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(60));
    auto config = wbtest::tinyLanguageModel(dir.file("pattern.txt"));
    config.device.precision = Precision::Auto;
    config.train.maxSteps = 10;
    const bool bf16 = cpuBf16FasterThanFp32();
    const std::string chosen = bf16 ? "bf16" : "fp32";

    std::vector<std::string> lines;
    TrainingCallbacks callbacks;
    callbacks.onLog = [&](const std::string& line) { lines.push_back(line); };
    TrainingJob(config, dir.file("run")).run(callbacks);

    auto run = loadRunFolder(dir.file("run"));
    EXPECT_EQ(run.info.precision, chosen);
    EXPECT_TRUE(startsWith(run.info.precisionChoice, "auto: " + chosen)) << run.info.precisionChoice;
    EXPECT_EQ(run.config.device.precision, bf16 ? Precision::Bf16 : Precision::Fp32);
    bool said = false;
    for (const auto& l : lines)
        said = said || l.find("precision " + run.info.precisionChoice) != std::string::npos;
    EXPECT_TRUE(said) << "the log says which precision auto chose and why";

    // A resume trains on in the precision the run chose, even where auto would now choose otherwise.
    const auto reason = run.info.precisionChoice;
    FallbackGuard guard;
    forceCpuBf16Fallback(true);
    TrainingJob::resume(dir.file("run"), 0, 20)->run();
    run = loadRunFolder(dir.file("run"));
    EXPECT_EQ(run.config.device.precision, bf16 ? Precision::Bf16 : Precision::Fp32);
    EXPECT_EQ(run.info.precisionChoice, reason);
}
