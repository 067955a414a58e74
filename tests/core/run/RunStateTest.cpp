// What a run folder says about its state when nobody is training it any more, and what two writers of its
// annotations keep. Readers derive "interrupted" from the run's lock (workbench/domain/RunLock.h) without
// writing a byte; annotations are merged under a lock, so two processes saving at once lose nothing; a run
// never validated has no best validation (null in run.json, not 0).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/TestSupport.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Format.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/RunLock.h"
#include "workbench/domain/Safetensors.h"

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

// A run that ended leaves no run.lock; and one that waited for the lock while its owner ended, and so held
// the removed file's lock, takes the path's new file instead: never two owners at once.
TEST(RunState, AnEndedOwnerRemovesRunLockAndAWaitingOneTakesTheNewFile) {
    wbtest::TempDir tmp;
    const auto dir = tmp.path() / "run";
    writeRunningRun(dir);
    { const auto lock = wb::RunLock::acquire(dir.string()); }
    EXPECT_FALSE(fs::exists(dir / wb::runfiles::kLock));

    auto first = wb::RunLock::acquire(dir.string());
    wb::RunLock second;
    std::thread waiter([&] { second = wb::RunLock::acquire(dir.string()); });  // retries while first holds it
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    first.release();
    waiter.join();
    ASSERT_TRUE(second.held());
    EXPECT_TRUE(fs::exists(dir / wb::runfiles::kLock));
    EXPECT_TRUE(wb::runHasLiveOwner(dir.string()));
    EXPECT_THROW(wb::RunLock::acquire(dir.string()), wb::InputError);
}

// Two processes save one run's annotations at the same time, each from what it read just before, as two
// windows' dialogs do: one adds tags and renames, the other adds tags and writes notes. Nothing is lost.
TEST(RunAnnotationsMerge, TwoProcessesSavingAtOnceLoseNothing) {
    wbtest::TempDir tmp;
    const auto dir = tmp.path() / "run";
    writeRunningRun(dir);
    constexpr int kSaves = 40;
    const auto writer = [&](const std::string& who) {
        for (int i = 0; i < kSaves; ++i) {
            const wb::RunAnnotations base = wb::readRunAnnotations(dir.string());
            wb::RunAnnotations edited = base;
            edited.tags.push_back(who + std::to_string(i));
            (who == "a" ? edited.name : edited.notes) = who + " saved " + std::to_string(i);
            wb::saveRunAnnotations(dir.string(), base, edited);
        }
    };
    pid_t children[2];
    for (int c = 0; c < 2; ++c) {
        children[c] = ::fork();
        if (children[c] == 0) {
            try {
                writer(c == 0 ? "a" : "b");
            } catch (...) {
                ::_exit(2);
            }
            ::_exit(0);
        }
    }
    for (const pid_t child : children) {
        int status = -1;
        ::waitpid(child, &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    const auto saved = wb::readRunAnnotations(dir.string());
    for (const char* who : {"a", "b"})
        for (int i = 0; i < kSaves; ++i)
            EXPECT_NE(std::find(saved.tags.begin(), saved.tags.end(), who + std::to_string(i)),
                      saved.tags.end())
                << "tag " << who << i << " was lost";
    EXPECT_EQ(saved.tags.size(), 2u * kSaves);
    EXPECT_EQ(saved.name, "a saved " + std::to_string(kSaves - 1));
    EXPECT_EQ(saved.notes, "b saved " + std::to_string(kSaves - 1));
}

// Window A's dialog is stale: B saved tags and notes since it opened. A's tag joins B's; A's notes, changed
// in both, win as the later write and the save says whose it replaced.
TEST(RunAnnotationsMerge, AStaleDialogKeepsTheOtherWritersFieldsAndSaysWhatItReplaced) {
    wbtest::TempDir tmp;
    const auto dir = tmp.path() / "run";
    writeRunningRun(dir);
    const wb::RunAnnotations opened = wb::readRunAnnotations(dir.string());
    wb::RunAnnotations b = opened;
    b.tags = {"tagB"};
    b.notes = "B's notes";
    b.name = "B's name";
    wb::saveRunAnnotations(dir.string(), opened, b);

    wb::RunAnnotations a = opened;
    a.tags = {"tagA"};
    a.notes = "A's notes";
    const auto saved = wb::saveRunAnnotations(dir.string(), opened, a);
    const auto now = wb::readRunAnnotations(dir.string());
    EXPECT_EQ(now.tags, (std::vector<std::string>{"tagB", "tagA"}));
    EXPECT_EQ(now.name, "B's name");  // A left the name alone
    EXPECT_EQ(now.notes, "A's notes");
    EXPECT_EQ(saved.overwritten, std::vector<std::string>{"notes"});
    EXPECT_EQ(saved.theirs.notes, "B's notes");
}

// A run never validated: null in run.json, not a 0 that reads as a perfect loss; an old run.json with 0.0
// and no val records reads as never validated too.
TEST(RunState, NoValidationIsNullInRunJsonAndNoneInTheComparison) {
    wb::RunInfo info;
    info.summary.steps = 3;
    info.summary.finalTrainLoss = 2.5;
    const auto summary = nlohmann::json::parse(info.toJson())["summary"];
    EXPECT_TRUE(summary["best_val_loss"].is_null()) << summary.dump();
    EXPECT_TRUE(summary["best_val_accuracy"].is_null()) << summary.dump();
    EXPECT_TRUE(summary["final_val_loss"].is_null()) << summary.dump();
    EXPECT_FALSE(wb::RunInfo::fromJson(info.toJson(), "run.json").summary.validated());

    wbtest::TempDir tmp;
    const auto dir = tmp.path() / "old";
    fs::create_directories(dir);
    wbtest::writeText(dir / "config.json", R"({"name": "x", "task": "lm"})");
    wbtest::writeText(dir / "run.json", R"({"id": "old", "status": "stopped",
        "summary": {"steps": 3, "best_val_loss": 0.0, "best_val_accuracy": 0.0}})");
    wbtest::writeText(dir / "metrics.csv", wb::metricsCsvHeader() + "\nold,3,0.1,24,1.5,train,loss,2.5\n");
    const auto rows = wb::compareRuns({wb::loadRunFolder(dir.string())}, wb::CompareOptions{});
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_FALSE(rows[0].validated);
    EXPECT_EQ(rows[0].status, "stopped");
}

// "Time to target" is to the level every validated run reached: a run without validation is "not validated",
// never "not reached", so the Compare tab's footnote and its rows say the same.
TEST(RunState, ARunWithoutValidationIsNotValidatedRatherThanNotReached) {
    wb::RunRecord validated, unvalidated;
    validated.info.id = "v";
    validated.metrics = {{10, 1, 80, 2.0, "val", "loss", 1.5}, {20, 2, 160, 4.0, "val", "loss", 1.2}};
    unvalidated.info.id = "u";
    unvalidated.metrics = {{10, 1, 80, 2.0, "train", "loss", 1.9}};
    const auto rows = wb::compareRuns({validated, unvalidated}, wb::CompareOptions{});
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_DOUBLE_EQ(rows[0].secondsToTarget, 4.0);
    EXPECT_TRUE(rows[0].missed.empty());
    EXPECT_LT(rows[1].secondsToTarget, 0);
    EXPECT_EQ(rows[1].missed, "not validated");
    EXPECT_FALSE(rows[1].validated);
}

// A run stopped by a full disk says how much to free: one checkpoint of it (the next one is written beside
// the last before replacing it), or before its first checkpoint its weights and Adam's moments.
TEST(RunState, AFullDiskSaysHowMuchToFree) {
    wbtest::TempDir tmp;
    wb::RunRecord run;
    run.dir = tmp.path().string();
    run.info.status = wb::RunStatus::Failed;
    run.info.error = "cannot write run.json: No space left on device";
    run.info.summary.parameters = 1000;
    EXPECT_NE(run.statusDetail().find("Free at least about 11.7 KiB"), std::string::npos)
        << run.statusDetail();
    writeCheckpoint(tmp.path(), 40);
    const auto pair = fs::file_size(tmp.path() / "model.safetensors") * 2;
    EXPECT_NE(run.statusDetail().find("Free at least " + wb::humanBytes(static_cast<double>(pair)) +
                                      " (one checkpoint of this run)"),
              std::string::npos)
        << run.statusDetail();
}
