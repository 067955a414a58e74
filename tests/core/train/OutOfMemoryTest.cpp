// A real allocation failure: an experiment whose first batch needs far more memory than the machine has
// (the LSTM's input projection for the whole corpus in one batch: 16 x 62,500 x 16,384 floats = 64 GB).
// The kernel refuses an allocation that size at once, so nothing is actually consumed. The run must fail
// with a message that says what to change, keep a consistent run folder, and leave the process able to
// train again.
#include <gtest/gtest.h>

#include "support/TestSupport.h"
#include "support/TinyExperiments.h"
#include "workbench/Errors.h"
#include "workbench/RunFolder.h"
#include "workbench/Training.h"

using namespace wb;

TEST(OutOfMemory, AnImpossibleBatchFailsTheRunWithAdviceAndTheProcessTrainsOn) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "big.txt", wbtest::patternText(42000));  // ~1 MB
    auto config = wbtest::tinyLanguageModel(dir.file("big.txt"));
    config.model.embedding = 8;
    config.model.hidden = 4096;
    config.data.valFraction = 0;
    config.train.batchSize = 1 << 20;  // every window of the corpus in one batch
    config.train.maxSteps = 1;
    try {
        TrainingJob(config, dir.file("huge")).run();
        FAIL() << "a 64 GB batch trained";
    } catch (const TrainingError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("out of memory on cpu"), std::string::npos) << what;
        EXPECT_NE(what.find("lower the batch size"), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
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
