// A job's CPU threads do not leak into the process: LibTorch's and OpenBLAS's counts are back to what they
// were when a CpuThreadsScope, a training run or a finder ends (before, a 1-thread run left every later
// generation in the process on 1 thread). run.json records OpenBLAS's count as OpenBLAS reports it, and the
// BLAS named is the one that provides sgemm_.
#include <gtest/gtest.h>

#include <filesystem>

#include <dlfcn.h>

#include <torch/torch.h>

#include "device/DeviceSetup.h"
#include "support/TestSupport.h"
#include "support/TinyExperiments.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Benchmark.h"
#include "workbench/engine/Devices.h"
#include "workbench/engine/Training.h"

using namespace wb;

namespace {
bool openBlas() { return blasLibrary().rfind("OpenBLAS", 0) == 0; }
// PyTorch's own LibTorch: MKL linked in, on LibTorch's thread count.
bool mkl() { return blasLibrary().rfind("MKL", 0) == 0; }
// Whether the BLAS's threads follow the ones a run asks for (otherwise blasThreads() is -1).
bool blasThreadsFollow() { return openBlas() || mkl(); }

// Whether OpenBLAS provides sgemm_ here, found without blasLibrary(): the resolved file that holds sgemm_.
bool sgemmFromOpenBlas() {
    Dl_info where{};
    void* sgemm = dlsym(RTLD_DEFAULT, "sgemm_");
    if (!sgemm || !dladdr(sgemm, &where) || !where.dli_fname) return false;
    std::error_code ec;
    const auto path = std::filesystem::canonical(where.dli_fname, ec).string();
    return !ec && path.find("openblas") != std::string::npos;
}

// The process at 2 threads (LibTorch and OpenBLAS) for the test, 1 and whatever OpenBLAS had afterwards.
struct TwoThreads {
    TwoThreads() { applyCpuThreads(2); }
    ~TwoThreads() { applyCpuThreads(1); }
};
}  // namespace

// The thread tests below check OpenBLAS's count only where blasLibrary() names OpenBLAS; so blasLibrary()
// must name it wherever OpenBLAS is the BLAS in use (it once named the alternatives' link instead, every
// OpenBLAS check was skipped and every CPU run warned that its BLAS threads could not be set).
TEST(CpuThreads, OpenBlasIsRecognisedWhereItProvidesSgemm) {
    if (!sgemmFromOpenBlas()) GTEST_SKIP() << "sgemm_ does not come from OpenBLAS here: " << blasLibrary();
    EXPECT_TRUE(openBlas()) << blasLibrary();
    EXPECT_GE(blasThreads(), 1);
    EXPECT_EQ(blasThreadsCaveat(), "");
}

// MKL is named exactly where LibTorch was built with it (PyTorch's builds; never Debian's).
TEST(CpuThreads, MklIsNamedWhereLibTorchHasIt) {
    EXPECT_EQ(mkl(), at::hasMKL()) << blasLibrary();
    if (mkl()) EXPECT_EQ(blasThreadsCaveat(), "");
}

TEST(CpuThreads, AScopeRestoresLibTorchAndOpenBlasThreads) {
    const TwoThreads process;
    {
        const CpuThreadsScope job(1);
        EXPECT_EQ(torch::get_num_threads(), 1);
        if (blasThreadsFollow()) EXPECT_EQ(blasThreads(), 1);
    }
    EXPECT_EQ(torch::get_num_threads(), 2);
    if (blasThreadsFollow()) {
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
    config.device.spec.threads = 1;
    TrainingJob(config, dir.file("run")).run();
    EXPECT_EQ(torch::get_num_threads(), 2);
    if (blasThreadsFollow()) EXPECT_EQ(blasThreads(), 2);
    const auto record = loadRunFolder(dir.file("run"));
    EXPECT_EQ(record.info.threads, 1);
    EXPECT_EQ(record.info.blasThreads, blasThreadsFollow() ? 1 : -1);
}

// The finders run on the experiment's thread count (seen from their cancel callback, which they call between
// steps) and put the process's back when they return.
TEST(CpuThreads, TheFindersLeaveTheProcessAsTheyFoundIt) {
    const TwoThreads process;
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(40));
    auto config = wbtest::tinyLanguageModel(dir.file("pattern.txt"));
    config.device.spec.threads = 1;
    const auto corpus = loadCorpus(config.data.corpus, config.data.format);
    int torchDuring = 0, blasDuring = 0;
    const auto observe = [&] {
        torchDuring = torch::get_num_threads();
        blasDuring = blasThreads();
        return false;
    };

    LrFinderOptions lrOptions;
    lrOptions.minLr = 1e-4;
    lrOptions.maxLr = 1e-1;
    lrOptions.steps = 5;
    lrOptions.cancelled = observe;
    const auto lr = findLearningRate(config, corpus, lrOptions);
    EXPECT_FALSE(lr.rates.empty());
    EXPECT_EQ(torchDuring, 1);
    if (openBlas()) EXPECT_EQ(blasDuring, 1);
    EXPECT_EQ(torch::get_num_threads(), 2) << "after the LR finder";
    if (openBlas()) EXPECT_EQ(blasThreads(), 2) << "after the LR finder";

    torchDuring = blasDuring = 0;
    BatchSizeOptions sizeOptions;
    sizeOptions.limit = 16;
    sizeOptions.minStepsPerEpoch = 1;
    sizeOptions.cancelled = observe;
    const auto sizes = findBatchSize(config, corpus, sizeOptions);
    EXPECT_FALSE(sizes.sizes.empty());
    EXPECT_EQ(torchDuring, 1);
    if (openBlas()) EXPECT_EQ(blasDuring, 1);
    EXPECT_EQ(torch::get_num_threads(), 2) << "after the batch-size finder";
    if (openBlas()) EXPECT_EQ(blasThreads(), 2) << "after the batch-size finder";
}

// The benchmark's peak measurement sets its own thread count (the bench command calls it after a run of the
// same threads); a small matrix keeps this a test of the threads, not a benchmark.
TEST(CpuThreads, ThePeakMeasurementLeavesTheProcessAsItFoundIt) {
    const TwoThreads process;
    EXPECT_GT(measureMatmulGflops(DeviceSpec::parse("cpu:1"), 64), 0);
    EXPECT_EQ(torch::get_num_threads(), 2);
    if (openBlas()) EXPECT_EQ(blasThreads(), 2);
}

TEST(CpuThreads, TheBlasNamedIsTheOneThatProvidesSgemm) {
    const auto blas = blasLibrary();
    EXPECT_FALSE(blas.empty());
    // This project's machines run OpenBLAS (a dependency); its configuration string follows the name.
    if (openBlas()) EXPECT_NE(blas.find("OpenBLAS "), std::string::npos) << blas;
}
