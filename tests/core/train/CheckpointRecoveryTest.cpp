// A checkpoint is two files; a process killed while saving must still leave one consistent checkpoint that
// resumes. Each test lays out the files exactly as a kill at one moment of the commit would leave them.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/TestSupport.h"
#include "support/TinyExperiments.h"
#include "workbench/domain/RunState.h"
#include "workbench/domain/Safetensors.h"
#include "workbench/engine/Training.h"

using namespace wb;
namespace fs = std::filesystem;

namespace {
class CheckpointRecovery : public ::testing::Test {
protected:
    void SetUp() override {
        wbtest::writeText(m_dir.path() / "pattern.txt", wbtest::patternText(60));
        auto config = wbtest::tinyLanguageModel(m_dir.file("pattern.txt"));
        config.train.maxSteps = 5;
        TrainingJob(config, run()).run();
        keep("step5");
        TrainingJob::resume(run(), 0, 10)->run();
        keep("step10");
    }
    std::string run() const { return m_dir.file("run"); }
    void keep(const std::string& name) {
        for (const char* f : {"model.safetensors", "optimizer.safetensors"})
            fs::copy_file(fs::path(run()) / f, m_dir.path() / (name + "." + f),
                          fs::copy_options::overwrite_existing);
    }
    void place(const std::string& from, const std::string& file, const std::string& as) {
        fs::copy_file(m_dir.path() / (from + "." + file), fs::path(run()) / as,
                      fs::copy_options::overwrite_existing);
    }
    std::string step(const std::string& file) const {
        return safetensors::read((fs::path(run()) / file).string()).metadata.at("step");
    }
    void expectConsistentAt(const std::string& expected) {
        recoverCheckpoint(run());
        EXPECT_EQ(step("model.safetensors"), expected);
        EXPECT_EQ(step("optimizer.safetensors"), expected);
        EXPECT_FALSE(fs::exists(fs::path(run()) / "model.safetensors.next"));
        EXPECT_FALSE(fs::exists(fs::path(run()) / "optimizer.safetensors.next"));
        EXPECT_EQ(TrainingJob::resume(run(), 0, 12)->run().steps, 12);
    }
    wbtest::TempDir m_dir;
};
}  // namespace

TEST_F(CheckpointRecovery, KilledWhileWritingTheNewModelKeepsTheOldPair) {
    place("step5", "model.safetensors", "model.safetensors");
    place("step5", "optimizer.safetensors", "optimizer.safetensors");
    place("step10", "model.safetensors", "model.safetensors.next");  // the optimizer's .next never completed
    expectConsistentAt("5");
}

TEST_F(CheckpointRecovery, KilledBeforeTheRenamesFinishesTheCommit) {
    place("step5", "model.safetensors", "model.safetensors");
    place("step5", "optimizer.safetensors", "optimizer.safetensors");
    place("step10", "model.safetensors", "model.safetensors.next");
    place("step10", "optimizer.safetensors", "optimizer.safetensors.next");
    expectConsistentAt("10");
}

TEST_F(CheckpointRecovery, KilledBetweenTheTwoRenamesFinishesTheCommit) {
    place("step10", "model.safetensors", "model.safetensors");
    place("step5", "optimizer.safetensors", "optimizer.safetensors");
    place("step10", "optimizer.safetensors", "optimizer.safetensors.next");
    expectConsistentAt("10");
}

TEST_F(CheckpointRecovery, ATruncatedNextFileIsDiscarded) {
    place("step5", "model.safetensors", "model.safetensors");
    place("step5", "optimizer.safetensors", "optimizer.safetensors");
    place("step10", "model.safetensors", "model.safetensors.next");
    const auto full = wbtest::readText(m_dir.path() / "step10.optimizer.safetensors");
    wbtest::writeText(fs::path(run()) / "optimizer.safetensors.next", full.substr(0, full.size() / 2));
    expectConsistentAt("5");
}
