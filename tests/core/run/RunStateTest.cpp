// What a run folder says about its state when nobody is training it any more, and what two writers of its
// annotations keep. Readers derive "interrupted" from the run's lock (workbench/RunLock.h) without writing a
// byte; annotations are merged under a lock, so two processes saving at once lose nothing; a run never
// validated has no best validation (null in run.json, not 0).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "io/Safetensors.h"
#include "support/TestSupport.h"
#include "workbench/Errors.h"
#include "workbench/RunFolder.h"
#include "workbench/RunLock.h"

namespace fs = std::filesystem;

namespace {

// A run folder as its trainer leaves it mid-run: run.json says running; metrics up to step 60.
void writeRunningRun(const fs::path& dir) {
    fs::create_directories(dir);
    wbtest::writeText(dir / "config.json", R"({"name": "x", "task": "lm", "model": {"hidden": 32}})");
    wbtest::writeText(dir / "run.json", R"({"id": "run-1", "status": "running", "device": "cpu",
        "summary": {"steps": 40, "best_val_loss": 1.5}})");
    wbtest::writeText(dir / "metrics.csv", wb::metricsCsvHeader() +
                                               "\nrun-1,40,0.5,320,1.5,val,loss,1.5\n"
                                               "run-1,60,1,1920,15,train,loss,1.9\n");
}

// A checkpoint pair of step `step` (the metadata is what a resume reads; no tensors are needed).
void writeCheckpoint(const fs::path& dir, int step) {
    const std::string bytes = wb::safetensors::serialize({}, {{"step", std::to_string(step)}});
    wbtest::writeText(dir / "model.safetensors", bytes);
    wbtest::writeText(dir / "optimizer.safetensors", bytes);
}

// A child process that takes the run's lock, says so through a pipe and waits to be killed: a trainer whose
// process dies without a word.
pid_t ownerProcess(const fs::path& dir) {
    int ready[2];
    if (::pipe(ready) != 0) return -1;
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(ready[0]);
        try {
            auto lock = wb::RunLock::acquire(dir.string());
            const char ok = 1;
            if (::write(ready[1], &ok, 1) != 1) ::_exit(3);
            for (;;) ::pause();
        } catch (...) {
            ::_exit(2);
        }
    }
    ::close(ready[1]);
    char ok = 0;
    const bool started = ::read(ready[0], &ok, 1) == 1;
    ::close(ready[0]);
    return started ? pid : -1;
}

}  // namespace

TEST(RunState, ARunWhoseOwnerDiedReadsInterruptedAtItsCheckpointStepWithoutARewrite) {
    wbtest::TempDir tmp;
    const auto dir = tmp.path() / "run";
    writeRunningRun(dir);
    writeCheckpoint(dir, 40);
    const pid_t owner = ownerProcess(dir);
    ASSERT_GT(owner, 0);
    // While its owner lives, the run is running, for a reader in this process as in any other.
    EXPECT_TRUE(wb::runHasLiveOwner(dir.string()));
    EXPECT_EQ(wb::loadRunFolder(dir.string()).info.status, wb::RunStatus::Running);
    EXPECT_THROW(wb::RunLock::acquire(dir.string()), wb::InputError);

    ::kill(owner, SIGKILL);
    int status = 0;
    ::waitpid(owner, &status, 0);
    const std::string before = wbtest::readText(dir / "run.json");
    const auto run = wb::loadRunFolder(dir.string());
    EXPECT_EQ(run.info.status, wb::RunStatus::Interrupted);
    EXPECT_EQ(run.interruptedAt, 40);  // the checkpoint's step, which a resume continues from, not 60
    EXPECT_TRUE(run.resumeFromCheckpoint);
    EXPECT_EQ(run.statusText(), "interrupted at step 40");
    EXPECT_NE(run.statusDetail().find("Resume continues from"), std::string::npos) << run.statusDetail();
    EXPECT_EQ(wbtest::readText(dir / "run.json"), before) << "a reader rewrote run.json";
    // The lock is free again: a resume can take it.
    EXPECT_NO_THROW(wb::RunLock::acquire(dir.string()));
}

TEST(RunState, WithoutACheckpointTheInterruptedStepIsTheMetricsAndNothingResumes) {
    wbtest::TempDir tmp;
    const auto dir = tmp.path() / "run";
    writeRunningRun(dir);  // no run.lock at all: a run from before the lock, or one killed before it
    const auto run = wb::loadRunFolder(dir.string());
    EXPECT_EQ(run.info.status, wb::RunStatus::Interrupted);
    EXPECT_EQ(run.interruptedAt, 60);
    EXPECT_FALSE(run.resumeFromCheckpoint);
    EXPECT_NE(run.statusDetail().find("no checkpoint"), std::string::npos) << run.statusDetail();
}

TEST(RunState, AnOwnerInThisProcessKeepsTheRunRunning) {
    wbtest::TempDir tmp;
    const auto dir = tmp.path() / "run";
    writeRunningRun(dir);
    {
        const auto lock = wb::RunLock::acquire(dir.string());  // as the app's worker thread holds it
        EXPECT_EQ(wb::loadRunFolder(dir.string()).info.status, wb::RunStatus::Running);
        EXPECT_EQ(wb::loadRunFolder(dir.string()).statusText(), "running");
    }
    EXPECT_EQ(wb::loadRunFolder(dir.string()).info.status, wb::RunStatus::Interrupted);
}

