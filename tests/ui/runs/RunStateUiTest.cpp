// The Runs list's Status column, derived from each run folder and its owner: a run whose trainer died (the
// app killed mid-run, then started again) reads "interrupted at step N" after the restart; a run another
// process trains changes its row when it ends or dies, without Refresh; a stale Name & notes dialog keeps
// what another window saved and says what it replaced.
#include <QFileInfo>

#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "UiTestSupport.h"
#include "runs/RunCollection.h"
#include "runs/RunsPanel.h"
#include "support/BadInputs.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/RunLock.h"

using namespace wbui;
namespace fs = std::filesystem;

namespace {

// A copy of a trained run under root whose run.json says running again, as a trainer killed mid-run left it.
QString runningCopy(const fs::path& root, const std::string& name) {
    const fs::path to = root / name;
    fs::create_directories(root);
    fs::copy(wbuitest::trainedLanguageModelRun().toStdString(), to, fs::copy_options::recursive);
    fs::remove(to / wb::runfiles::kLock);
    auto info = nlohmann::json::parse(wbtest::readText(to / "run.json"));
    info["status"] = "running";
    wbtest::writeText(to / "run.json", info.dump(2));
    return QFileInfo(QString::fromStdString(to.string())).canonicalFilePath();
}

void setStatus(const QString& dir, const char* status) {
    const auto path = fs::path(dir.toStdString()) / "run.json";
    auto info = nlohmann::json::parse(wbtest::readText(path));
    info["status"] = status;
    wb::writeFileAtomic(path.string(), info.dump(2));  // renamed into place, as the trainer writes it
}

}  // namespace

TEST(RunStateUi, ARunWhoseTrainerDiedReadsInterruptedAfterARestart) {
    wbtest::TempDir tmp;
    const QString dir = runningCopy(tmp.path() / "runs", "killed");
    RunCollection runs;
    RunsPanel panel(&runs);  // the app started again: the list is read from the runs folder
    panel.setRunsRoot(QString::fromStdString((tmp.path() / "runs").string()));
    const QString status = panel.runStatus(dir);
    EXPECT_TRUE(status.startsWith(QStringLiteral("interrupted at step "))) << status.toStdString();
    EXPECT_EQ(wbtest::readText(fs::path(dir.toStdString()) / "run.json").find("interrupted"),
              std::string::npos)
        << "the list rewrote run.json";
}

TEST(RunStateUi, ARunOfAnotherProcessChangesItsRowWhenItEndsOrDiesWithoutRefresh) {
    wbtest::TempDir tmp;
    const QString finishing = runningCopy(tmp.path() / "runs", "finishing");
    const QString dying = runningCopy(tmp.path() / "runs", "dying");
    // Two live owners (a lock of its own open file counts as another process's).
    auto finishingOwner = wb::RunLock::acquire(finishing.toStdString());
    auto dyingOwner = wb::RunLock::acquire(dying.toStdString());
    RunCollection runs;
    RunsPanel panel(&runs);
    panel.setRunsRoot(QString::fromStdString((tmp.path() / "runs").string()));
    EXPECT_EQ(panel.runStatus(finishing), QStringLiteral("running"));
    EXPECT_EQ(panel.runStatus(dying), QStringLiteral("running"));

    setStatus(finishing, "completed");  // the trainer's last run.json, then it lets go
    finishingOwner.release();
    EXPECT_TRUE(
        wbuitest::waitFor([&] { return panel.runStatus(finishing) == QStringLiteral("completed"); }, 10000))
        << panel.runStatus(finishing).toStdString();

    dyingOwner.release();  // the kernel closing a killed trainer's lock
    EXPECT_TRUE(wbuitest::waitFor(
        [&] { return panel.runStatus(dying).startsWith(QStringLiteral("interrupted")); }, 10000))
        << panel.runStatus(dying).toStdString();
}

// On a shared filesystem (a Slurm cluster's: the run trains on another node, whose writes inotify does not
// see) the runs are polled instead of watched; LSTM_WORKBENCH_POLL=1 polls a local folder the same way.
TEST(RunStateUi, OnASharedFilesystemARunOfAnotherMachineChangesItsRowByPolling) {
    const wbtest::ScopedEnv poll(std::map<std::string, std::string>{{"LSTM_WORKBENCH_POLL", "1"}});
    wbtest::TempDir tmp;
    const QString finishing = runningCopy(tmp.path() / "runs", "finishing");
    const QString dying = runningCopy(tmp.path() / "runs", "dying");
    auto finishingOwner = wb::RunLock::acquire(finishing.toStdString());
    auto dyingOwner = wb::RunLock::acquire(dying.toStdString());
    RunCollection runs;
    RunsPanel panel(&runs);
    panel.setRunsRoot(QString::fromStdString((tmp.path() / "runs").string()));
    EXPECT_EQ(panel.runStatus(finishing), QStringLiteral("running"));

    setStatus(finishing, "completed");
    finishingOwner.release();
    EXPECT_TRUE(
        wbuitest::waitFor([&] { return panel.runStatus(finishing) == QStringLiteral("completed"); }, 10000))
        << panel.runStatus(finishing).toStdString();
    dyingOwner.release();  // its trainer died on its node: only its lock tells
    EXPECT_TRUE(wbuitest::waitFor(
        [&] { return panel.runStatus(dying).startsWith(QStringLiteral("interrupted")); }, 10000))
        << panel.runStatus(dying).toStdString();
    // A run folder appearing in the runs folder is listed.
    const QString arriving = runningCopy(tmp.path() / "runs", "arriving");
    EXPECT_TRUE(wbuitest::waitFor([&] { return !panel.runStatus(arriving).isEmpty(); }, 10000));
}

TEST(RunStateUi, AStaleNotesDialogKeepsWhatAnotherWindowSavedAndSaysWhatItReplaced) {
    wbtest::TempDir tmp;
    const QString dir = runningCopy(tmp.path() / "runs", "notes");
    RunCollection runs;
    RunsPanel panel(&runs);
    panel.setConfirmations(false);
    panel.setRunsRoot(QString::fromStdString((tmp.path() / "runs").string()));
    const wb::RunAnnotations opened = wb::readRunAnnotations(dir.toStdString());  // window A's dialog opens

    wb::RunAnnotations b = opened;  // window B saves first
    b.tags = {"tagB"};
    b.notes = "B's notes";
    ASSERT_TRUE(panel.annotate(dir, b, opened));
    EXPECT_TRUE(panel.lastSaveNotice().isEmpty());

    wb::RunAnnotations a = opened;  // then A's stale dialog
    a.tags = {"tagA"};
    a.notes = "A's notes";
    ASSERT_TRUE(panel.annotate(dir, a, opened));
    const auto saved = wb::readRunAnnotations(dir.toStdString());
    EXPECT_EQ(saved.tags, (std::vector<std::string>{"tagB", "tagA"}));
    EXPECT_EQ(saved.notes, "A's notes");
    EXPECT_TRUE(panel.lastSaveNotice().contains(QStringLiteral("B's notes")))
        << panel.lastSaveNotice().toStdString();
}

// Issue #46: a run stopped by a full disk says so on its row, and what Resume goes on from.
TEST(RunStateUi, ARunStoppedByAFullDiskSaysSoOnItsRow) {
    wbtest::TempDir tmp;
    const QString dir = runningCopy(tmp.path() / "runs", "full");
    const auto path = fs::path(dir.toStdString()) / "run.json";
    auto info = nlohmann::json::parse(wbtest::readText(path));
    info["status"] = "failed";
    info["error"] =
        "cannot write " + dir.toStdString() + "/model.safetensors: No space left on device (1.2 MB free)";
    wbtest::writeText(path, info.dump(2));
    RunCollection runs;
    RunsPanel panel(&runs);
    panel.setRunsRoot(QString::fromStdString((tmp.path() / "runs").string()));
    const QString status = panel.runStatus(dir);
    EXPECT_TRUE(status.startsWith(QStringLiteral("disk full · resumes at step "))) << status.toStdString();
}

// A run the Python package wrote back after fine-tuning in PyTorch (lstm_workbench.save_run; the committed
// fixture is what it writes, python/tests/test_save_run.py keeps them in step) is listed like any other:
// completed, under its name, with a model the Playground can load.
TEST(RunStateUi, ARunSavedByThePythonPackageIsListedCompleted) {
    wbtest::TempDir tmp;
    const fs::path to = tmp.path() / "runs" / "fine-tuned-in-python";
    fs::create_directories(to.parent_path());
    fs::copy(wbtest::sourcePath("tests/fixtures/run-formats/fine-tuned-in-python"), to,
             fs::copy_options::recursive);
    RunCollection runs;
    RunsPanel panel(&runs);
    panel.setRunsRoot(QString::fromStdString((tmp.path() / "runs").string()));
    const QString dir = QFileInfo(QString::fromStdString(to.string())).canonicalFilePath();
    EXPECT_EQ(panel.runStatus(dir), QStringLiteral("completed"));
    EXPECT_TRUE(panel.runName(dir).contains(QStringLiteral("fine-tuned in PyTorch")))
        << panel.runName(dir).toStdString();
    EXPECT_TRUE(panel.runsWithModel().contains(dir));
}

// Resume after a crash continues the run's own plan: 308 steps into a one-epoch run of 500 steps, the plan
// is 500 (not twice the steps done, 616, as the dialog once proposed).
TEST(RunStateUi, ResumeOffersTheRunsPlannedTotal) {
    wb::RunRecord record;
    record.config.train.epochs = 1;
    record.config.train.maxSteps = 0;
    record.info.summary.steps = 308;
    record.info.summary.epochs = 0.616;
    EXPECT_EQ(plannedSteps(record), 500);
    record.config.train.epochs = 3;
    EXPECT_EQ(plannedSteps(record), 1500);
    record.config.train.maxSteps = 400;  // a step limit below the epochs' plan
    EXPECT_EQ(plannedSteps(record), 400);
    record.config.train.epochs = 0;  // steps alone
    EXPECT_EQ(plannedSteps(record), 400);
    record.config.train.maxSteps = 0;
    EXPECT_EQ(plannedSteps(record), 0);
}
