// A job's CPU threads do not leak into the process: LibTorch's and OpenBLAS's counts are back to what they
// were when a CpuThreadsScope, a training run or a finder ends (before, a 1-thread run left every later
// generation in the process on 1 thread). run.json records OpenBLAS's count as OpenBLAS reports it, and the
// BLAS named is the one that provides sgemm_. A job flushes subnormal floats to zero on its threads.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include <dlfcn.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include <ATen/Parallel.h>
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

// Subnormal floats are flushed to zero in a CPU job's arithmetic (DeviceSetup.h: on an Intel core each
// operation on one took a microcode assist, and the imdb preset trained 13 times slower), on the job's
// thread and on every intra-op thread of LibTorch's pool; LSTM_WORKBENCH_FLUSH_DENORMALS=off keeps them.
#if defined(__x86_64__)
namespace {
constexpr unsigned kFlushBits = 0x8040;  // MXCSR's FTZ and DAZ
void keepSubnormalsHere() { _mm_setcsr(_mm_getcsr() & ~kFlushBits); }
// Whether each thread of the intra-op pool flushes (one item per thread, as DeviceSetup.cpp reaches them).
std::vector<int> poolFlushes() {
    std::vector<int> flushed(static_cast<std::size_t>(at::get_num_threads()), -1);
    at::parallel_for(0, at::get_num_threads(), 1, [&](std::int64_t begin, std::int64_t) {
        flushed[static_cast<std::size_t>(begin)] = subnormalsFlushedHere() ? 1 : 0;
    });
    return flushed;
}
float timesOne(float x) {
    volatile float one = 1.0f;  // not folded at compile time
    return x * one;
}
}  // namespace

TEST(CpuThreads, AJobFlushesSubnormalsOnItsThreadAndItsIntraOpThreads) {
    const TwoThreads process;
    keepSubnormalsHere();
    at::parallel_for(0, 2, 1, [](std::int64_t, std::int64_t) { keepSubnormalsHere(); });
    const float subnormal = 1e-39f;
    ASSERT_EQ(timesOne(subnormal), subnormal) << "IEEE 754's gradual underflow before the job";
    { const CpuThreadsScope job(2); }
    EXPECT_TRUE(subnormalsFlushedHere());
    EXPECT_EQ(timesOne(subnormal), 0.0f);
    EXPECT_EQ(poolFlushes(), std::vector<int>(2, 1));
}

TEST(CpuThreads, TheSwitchKeepsSubnormals) {
    const TwoThreads process;
    keepSubnormalsHere();
    ::setenv("LSTM_WORKBENCH_FLUSH_DENORMALS", "off", 1);
    { const CpuThreadsScope job(1); }
    ::unsetenv("LSTM_WORKBENCH_FLUSH_DENORMALS");
    EXPECT_FALSE(subnormalsFlushedHere());
    EXPECT_EQ(timesOne(1e-39f), 1e-39f);
}
#endif
