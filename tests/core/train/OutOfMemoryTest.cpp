// An allocation failure during training: an experiment whose first batch needs far more memory than the
// process may use (the LSTM's input projection for every window of the corpus in one batch, ~430 MB). The
// run must fail with a message that says what to change, keep a consistent run folder, and leave the process
// able to train again.
//
// The test sets the limit itself, so that the failure does not depend on the machine: it sets the memory
// budget (WORKBENCH_MEMORY_LIMIT_BYTES, io/MemoryBudget.h) to 64 MiB and puts LibTorch's CPU allocator behind
// one that refuses any allocation above the budget, the way c10's DefaultCPUAllocator fails when malloc
// returns nothing. Relying on the kernel to refuse a huge allocation does not work: with overcommit and
// enough memory it is granted and the machine thrashes. RLIMIT_AS is no option either: AddressSanitizer
// reserves terabytes of shadow memory up front, so under scripts/test-sanitized.sh every later mapping would
// fail. The allocator wrapper refuses before malloc is called, so both builds see the same failure and
// nothing large is ever allocated.
#include <gtest/gtest.h>

#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "TorchCompat.h"
#include "support/BadInputs.h"
#include "support/TestSupport.h"
#include "support/TinyExperiments.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/MemoryBudget.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Training.h"

using namespace wb;

namespace {

// LibTorch's CPU allocator for the lifetime of the object: allocations up to `limit` bytes go to the
// allocator in place before; a larger one throws what DefaultCPUAllocator throws when memory runs out.
class LimitedCpuAllocator final : public c10::Allocator {
public:
    explicit LimitedCpuAllocator(std::uint64_t limit) : m_limit(limit), m_previous(c10::GetCPUAllocator()) {
        c10::SetCPUAllocator(this, kPriority);
    }
    ~LimitedCpuAllocator() override { c10::SetCPUAllocator(m_previous, kPriority); }
    LimitedCpuAllocator(const LimitedCpuAllocator&) = delete;
    LimitedCpuAllocator& operator=(const LimitedCpuAllocator&) = delete;

#ifdef WORKBENCH_ALLOCATOR_COPY_DATA
    c10::DataPtr allocate(std::size_t n) override { return allocateWithinLimit(n); }
    void copy_data(void* dest, const void* src, std::size_t count) const override {
        default_copy_data(dest, src, count);
    }
#else
    c10::DataPtr allocate(std::size_t n) const override { return allocateWithinLimit(n); }
#endif
    c10::DeleterFnPtr raw_deleter() const override { return m_previous->raw_deleter(); }
    int refused() const { return m_refused; }

private:
    c10::DataPtr allocateWithinLimit(std::size_t n) const {
        if (n > m_limit) {
            ++m_refused;
            TORCH_CHECK_WITH(OutOfMemoryError, false,
                             "DefaultCPUAllocator: not enough memory: you tried to allocate ", n,
                             " bytes (the test's limit is ", m_limit, " bytes).");
        }
        return m_previous->allocate(n);
    }

    // Above c10's own registrations (0), so that this one is the CPU allocator while it lives.
    static constexpr std::uint8_t kPriority = 100;
    std::uint64_t m_limit;
    c10::Allocator* m_previous;
    mutable std::atomic<int> m_refused{0};
};

}  // namespace

// The guard before training (issue #30): what training would hold, counted from the model, one batch and the
// corpus's index, is refused with the parts and the setting that shrinks the largest; nothing is created.
TEST(OutOfMemory, TrainingThatCannotFitIsRefusedBeforeItStartsNamingTheSetting) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "big.txt", wbtest::patternText(4200));
    auto config = wbtest::tinyLanguageModel(dir.file("big.txt"));
    config.model.hidden = 256;
    config.train.batchSize = 4096;  // ~4 x 4096 x 16 x (6 x 256) bytes of activations: ~400 MB
    const wbtest::ScopedEnv limit({{"WORKBENCH_MEMORY_LIMIT_BYTES", std::to_string(64u << 20)}});
    try {
        TrainingJob(config, dir.file("refused"));
        FAIL() << "a batch four times the memory budget was let start";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("training needs about"), std::string::npos) << what;
        EXPECT_NE(what.find("one batch's activations"), std::string::npos) << what;
        EXPECT_NE(what.find("64.0 MiB available"), std::string::npos) << what;
        EXPECT_NE(what.find("lower the batch size (--batch-size)"), std::string::npos) << what;
    }
    EXPECT_FALSE(std::filesystem::exists(dir.file("refused")));
    config.train.batchSize = 8;
    config.model.hidden = 2048;  // ~17 M parameters, 16 bytes each with Adam: ~270 MB
    try {
        TrainingJob(config, dir.file("refused"));
        FAIL() << "a model ten times the memory budget was let start";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("make the model smaller"), std::string::npos) << e.what();
    }
    config.model.hidden = 16;
    EXPECT_NO_THROW(TrainingJob(config, dir.file("fits")));
}

TEST(OutOfMemory, AnImpossibleBatchFailsTheRunWithAdviceAndTheProcessTrainsOn) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "big.txt", wbtest::patternText(4200));  // ~100 KB: ~6,500 windows of 16
    auto config = wbtest::tinyLanguageModel(dir.file("big.txt"));
    config.model.embedding = 8;
    config.model.hidden = 256;  // the input projection of one window: 16 x 1,024 floats
    config.data.valFraction = 0;
    config.train.batchSize = 1 << 20;  // every window of the corpus in one batch: ~430 MB for the projection
    config.train.maxSteps = 1;
    {
        // The up-front guard (TrainingJob) is told there is room, so that the batch reaches the allocator,
        // which then has 64 MiB: what happens when the estimate is wrong, or another process takes memory.
        const wbtest::ScopedEnv limit({{"WORKBENCH_MEMORY_LIMIT_BYTES", std::to_string(8ull << 30)}});
        LimitedCpuAllocator allocator(64u << 20);
        try {
            TrainingJob(config, dir.file("huge")).run();
            FAIL() << "a batch larger than the memory budget trained";
        } catch (const TrainingError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("out of memory on cpu"), std::string::npos) << what;
            EXPECT_NE(what.find("lower the batch size"), std::string::npos) << what;
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        }
        // The failure came from the limit, not from something else that happened to throw.
        EXPECT_GT(allocator.refused(), 0);
    }
    const auto record = loadRunFolder(dir.file("huge"));
    EXPECT_EQ(record.info.status, RunStatus::Failed);
    EXPECT_NE(record.info.error.find("out of memory"), std::string::npos);

    // The process is fine: a normal run trains.
    wbtest::writeText(dir.path() / "small.txt", wbtest::patternText(60));
    auto small = wbtest::tinyLanguageModel(dir.file("small.txt"));
    small.train.maxSteps = 5;
    EXPECT_EQ(TrainingJob(small, dir.file("small")).run().steps, 5);
}

// A corpus larger than the memory budget trains (issue #30): it is tokenized into its store in the run's
// corpus cache and read from there, never loaded whole. The budget is a quarter of the file: loading it
// (loadCorpus's guard: 3.5 bytes a byte) is refused, training is not. A second run reuses the store and,
// with the same seed, scores the same numbers at each of its validations (a fixed sample, not a fresh draw).
TEST(OutOfMemory, ACorpusLargerThanTheMemoryBudgetTrainsFromItsStore) {
    wbtest::TempDir dir;
    const wbtest::ScopedEnv cache({{"LSTM_WORKBENCH_DATA", dir.file("cache")},
                                   {"LSTM_WORKBENCH_BASELINE_CACHE", dir.file("baselines")}});
    wbtest::writeText(dir.path() / "big.txt", wbtest::patternText(320000));  // ~8 MB
    const auto bytes = std::filesystem::file_size(dir.path() / "big.txt");
    auto config = wbtest::tinyLanguageModel(dir.file("big.txt"));
    config.data.valSize = 64;
    config.train.maxSteps = 6;
    config.train.validateEvery = 2;
    {
        const wbtest::ScopedEnv limit({{"WORKBENCH_MEMORY_LIMIT_BYTES", std::to_string(bytes / 4)}});
        EXPECT_THROW(loadCorpus(dir.file("big.txt")), InputError) << "the budget must be below the corpus";
        EXPECT_EQ(TrainingJob(config, dir.file("first")).run().steps, 6);
        EXPECT_EQ(TrainingJob(config, dir.file("second")).run().steps, 6);
    }
    const auto first = loadRunFolder(dir.file("first")), second = loadRunFolder(dir.file("second"));
    EXPECT_FALSE(first.info.tokenStoreReused);
    EXPECT_TRUE(second.info.tokenStoreReused);
    EXPECT_EQ(first.info.tokenStore, second.info.tokenStore);
    EXPECT_EQ(first.info.corpusBytes, static_cast<std::int64_t>(bytes));
    EXPECT_GT(first.info.summary.startupSeconds, 0);
    EXPECT_GT(first.info.summary.validationSeconds, 0);
    // Both runs score the same numbers at each validation.
    std::vector<double> a, b;
    for (const auto& r : first.metrics)
        if (r.split == "val" && r.metric == "loss") a.push_back(r.value);
    for (const auto& r : second.metrics)
        if (r.split == "val" && r.metric == "loss") b.push_back(r.value);
    ASSERT_EQ(a.size(), 3u);
    EXPECT_EQ(a, b);
}
