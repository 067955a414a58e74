// A job's CPU threads do not leak into the process: LibTorch's and OpenBLAS's counts are back to what they
// were when a CpuThreadsScope, a training run or a finder ends (before, a 1-thread run left every later
// generation in the process on 1 thread). run.json records OpenBLAS's count as OpenBLAS reports it, and the
// BLAS named is the one that provides sgemm_.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "device/DeviceSetup.h"
#include "support/TestSupport.h"
#include "support/TinyExperiments.h"
#include "workbench/Devices.h"
#include "workbench/RunFolder.h"
#include "workbench/Training.h"

using namespace wb;

namespace {
bool openBlas() { return blasLibrary().rfind("OpenBLAS", 0) == 0; }

// The process at 2 threads (LibTorch and OpenBLAS) for the test, 1 and whatever OpenBLAS had afterwards.
struct TwoThreads {
    TwoThreads() { applyCpuThreads(2); }
    ~TwoThreads() { applyCpuThreads(1); }
};
}  // namespace

TEST(CpuThreads, AScopeRestoresLibTorchAndOpenBlasThreads) {
    const TwoThreads process;
    {
        const CpuThreadsScope job(1);
        EXPECT_EQ(torch::get_num_threads(), 1);
        if (openBlas()) EXPECT_EQ(blasThreads(), 1);
    }
    EXPECT_EQ(torch::get_num_threads(), 2);
    if (openBlas()) {
        EXPECT_EQ(blasThreads(), 2);
    } else {
        EXPECT_EQ(blasThreads(), -1);
    }
    const CpuThreadsScope nothing(0);  // no thread count: nothing changes
    EXPECT_EQ(torch::get_num_threads(), 2);
}

TEST(CpuThreads, ATrainingRunLeavesTheProcessAsItFoundItAndRecordsBlasThreads) {
    const TwoThreads process;
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(40));
    auto config = wbtest::tinyLanguageModel(dir.file("pattern.txt"));
    config.train.maxSteps = 3;
    config.device.threads = 1;
    TrainingJob(config, dir.file("run")).run();
    EXPECT_EQ(torch::get_num_threads(), 2);
    if (openBlas()) EXPECT_EQ(blasThreads(), 2);
    const auto record = loadRunFolder(dir.file("run"));
    EXPECT_EQ(record.info.threads, 1);
    EXPECT_EQ(record.info.blasThreads, openBlas() ? 1 : -1);
}

TEST(CpuThreads, TheBlasNamedIsTheOneThatProvidesSgemm) {
    const auto blas = blasLibrary();
    EXPECT_FALSE(blas.empty());
    // This project's machines run OpenBLAS (a dependency); its configuration string follows the name.
    if (openBlas()) EXPECT_NE(blas.find("OpenBLAS "), std::string::npos) << blas;
}
