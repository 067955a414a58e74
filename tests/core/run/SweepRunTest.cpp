// The sweep's cell loop (workbench/engine/SweepRun.h) against a launcher written here: cells started up to
// the launcher's capacity and recorded as they end (in any order), a failure recorded with its error, a pause
// that lets the running cells finish, and a stop that reaches the launcher even when it came first. The
// real launcher (child `train` processes, hosts over links) is tested end to end in tests/e2e/SweepTest.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <map>

#include "support/TestSupport.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Sweep.h"
#include "workbench/engine/SweepEstimate.h"
#include "workbench/engine/SweepRun.h"

namespace fs = std::filesystem;

namespace {

// Ends the cells it started in the order it is told (the newest first by default); a cell "trains" by
// becoming a copy of a finished run folder, or ends with the code its script gives its start number.
class ScriptedLauncher : public wb::CellLauncher {
public:
    explicit ScriptedLauncher(int capacity) : m_capacity(capacity) {}
    void check(const wb::Sweep&) const override {}
    int capacity() const override { return m_capacity; }
    int start(const wb::CellJob& job) override {
        EXPECT_TRUE(fs::exists(job.configFile)) << job.configFile;
        EXPECT_TRUE(fs::is_directory(fs::path(job.runDir).parent_path()));
        const int handle = ++m_started;
        m_running.push_back({handle, job});
        maxRunning = std::max(maxRunning, int(m_running.size()));
        if (onStart) onStart(handle);
        return handle;
    }
    std::pair<int, wb::CellEnd> waitForAnEnd() override {
        const auto [handle, job] = m_running.back();  // the newest first
        m_running.pop_back();
        wb::CellEnd end;
        end.code = m_stopped ? wb::kStoppedCode : (codes.count(handle) ? codes[handle] : 0);
        if (end.code == 0)
            fs::copy(wbtest::sourcePath("tests/fixtures/run-formats/format-2"), job.runDir,
                     fs::copy_options::recursive);
        else if (end.code != wb::kStoppedCode)
            end.error = "cell " + std::to_string(handle) + " broke";
        return {handle, end};
    }
    void stop() noexcept override { m_stopped = true; }
    void kill() noexcept override { m_stopped = true; }

    std::map<int, int> codes;  // by start number (1-based): the exit code; 0 when not given
    std::function<void(int)> onStart;
    int maxRunning = 0;

private:
    int m_capacity;
    int m_started = 0;
    bool m_stopped = false;
    std::deque<std::pair<int, wb::CellJob>> m_running;
};

class SweepRun : public ::testing::Test {
protected:
    void SetUp() override {
        auto base = wb::defaultConfig(wb::Task::LanguageModel);
        base.data.corpus = m_tmp.file("corpus.txt");
        m_sweep = wb::Sweep::plan(base, {wb::parseSweepAxis("hidden=8,12,16,20")}, 1, 0);
        wb::createSweepFolder(dir(), m_sweep);
    }
    std::string dir() const { return m_tmp.file("sweep"); }
    wb::CellState stateOnDisk(int cell) const {
        return wb::loadSweep(dir()).cells.at(std::size_t(cell)).state;
    }

    wbtest::TempDir m_tmp;
    wb::Sweep m_sweep;
};

}  // namespace

TEST_F(SweepRun, StartsCellsUpToTheCapacityAndRecordsThemInAnyOrder) {
    ScriptedLauncher launcher(2);
    wb::SweepControl control;
    std::vector<std::string> said;
    const auto outcome = wb::runSweepCells(dir(), m_sweep, launcher, control,
                                           [&](const std::string& line) { said.push_back(line); });
    EXPECT_EQ(launcher.maxRunning, 2);
    EXPECT_EQ(outcome.done, 4);
    EXPECT_FALSE(outcome.stopped || outcome.paused);
    EXPECT_EQ(m_sweep.count(wb::CellState::Done), 4);
    EXPECT_EQ(wb::loadSweep(dir()).count(wb::CellState::Done), 4);
    ASSERT_EQ(said.size(), 4u);
    EXPECT_EQ(said[0], "sweep: 1/4 hidden=8");
    // results.csv has a run row and a cell row for each cell; no cell's scratch files are left.
    const std::string csv = wbtest::readText(fs::path(dir()) / wb::kSweepResults);
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 4 + 4) << csv;
    for (const auto& entry : fs::directory_iterator(dir()))
        EXPECT_NE(entry.path().filename().string().rfind(".cell-", 0), 0u) << entry.path();
}

TEST_F(SweepRun, AFailedCellKeepsItsErrorAndTheOthersRun) {
    ScriptedLauncher launcher(1);
    launcher.codes[2] = 1;
    wb::SweepControl control;
    const auto outcome = wb::runSweepCells(dir(), m_sweep, launcher, control);
    EXPECT_EQ(outcome.done, 3);
    EXPECT_EQ(outcome.failed, 1);
    EXPECT_EQ(m_sweep.cells[1].state, wb::CellState::Failed);
    EXPECT_EQ(m_sweep.cells[1].error, "cell 2 broke");
    EXPECT_EQ(stateOnDisk(1), wb::CellState::Failed);
}

TEST_F(SweepRun, APauseLetsTheRunningCellsFinishAndStartsNoOther) {
    ScriptedLauncher launcher(2);
    wb::SweepControl control;
    launcher.onStart = [&](int handle) {
        if (handle == 2) control.pause();
    };
    const auto outcome = wb::runSweepCells(dir(), m_sweep, launcher, control);
    EXPECT_TRUE(outcome.paused);
    EXPECT_FALSE(outcome.stopped);
    EXPECT_EQ(outcome.done, 2);
    EXPECT_EQ(stateOnDisk(2), wb::CellState::Queued);
    EXPECT_EQ(stateOnDisk(3), wb::CellState::Queued);

    // Keep going: the rest train, and the done ones are not started again.
    control.keepGoing();
    ScriptedLauncher rest(2);
    const auto resumed = wb::runSweepCells(dir(), m_sweep, rest, control);
    EXPECT_EQ(resumed.done, 4);
    EXPECT_EQ(rest.maxRunning, 2);
    EXPECT_FALSE(resumed.paused);
}

TEST_F(SweepRun, AStopQueuesTheRunningCellsAgainEvenWhenItCameBeforeTheSweep) {
    ScriptedLauncher launcher(1);
    wb::SweepControl control;
    launcher.onStart = [&](int handle) {
        if (handle == 2) control.stop();
    };
    const auto outcome = wb::runSweepCells(dir(), m_sweep, launcher, control);
    EXPECT_TRUE(outcome.stopped);
    EXPECT_EQ(outcome.done, 1);
    EXPECT_EQ(stateOnDisk(1), wb::CellState::Queued) << "a stopped cell is redone on resume";
    EXPECT_EQ(m_sweep.count(wb::CellState::Running), 0);

    // A control stopped before the sweep starts none of its cells, and its launcher hears the stop.
    ScriptedLauncher second(1);
    const auto none = wb::runSweepCells(dir(), m_sweep, second, control);
    EXPECT_TRUE(none.stopped);
    EXPECT_EQ(second.maxRunning, 0);
}

TEST_F(SweepRun, SecondsLeftScaleTheWallTimePerFinishedCell) {
    EXPECT_LT(wb::secondsLeft(m_sweep, 0, 10), 0) << "nothing finished yet";
    m_sweep.cells[0].state = wb::CellState::Done;
    m_sweep.cells[1].state = wb::CellState::Done;
    m_sweep.cells[2].state = wb::CellState::Failed;
    EXPECT_DOUBLE_EQ(wb::secondsLeft(m_sweep, 0, 10), 5.0);  // 5 s a cell, one cell left
    EXPECT_DOUBLE_EQ(wb::secondsLeft(m_sweep, 1, 10), 10.0);
}

// Issue #63: the first run on a slow machine is cut to the steps that fit its time budget, by the same time
// model that estimates it: validations (one per epoch, one at the end) counted, a run that nearly fits left
// alone, the warm-up always passed.
TEST(FitToSeconds, CutsMaxStepsToTheMostThatFitValidationsIncluded) {
    wb::RunTimeModel model;
    model.fixedSeconds = 10;
    model.secondsPerStep = 0.5;
    model.secondsPerValidation = 4;
    model.stepsPerEpoch = 100;
    wb::ExperimentConfig config = wb::defaultConfig(wb::Task::LanguageModel);
    config.train.epochs = 0;
    config.train.maxSteps = 4200;
    config.train.lrWarmupSteps = 100;
    // 4200 steps: 10 + 2100 + 42 validations × 4 = 2278 s.
    EXPECT_DOUBLE_EQ(model.seconds(config.train), 2278);
    wb::ExperimentConfig fitted = config;
    const wb::RunPlan plan = wb::fitToSeconds(fitted, model, 600, 15625);
    ASSERT_TRUE(plan.fitted());
    // 1092 steps: 10 + 546 + 11 validations × 4 = 600; 1093: 600.5.
    EXPECT_EQ(fitted.train.maxSteps, 1092);
    EXPECT_EQ(plan.steps, 1092);
    EXPECT_EQ(plan.stepsAsked, 4200);
    EXPECT_EQ(fitted.train.lrScheduleSteps, 4200) << "the cosine of the run asked for: it learns faster";
    EXPECT_DOUBLE_EQ(plan.estimatedSeconds, 600);
    EXPECT_DOUBLE_EQ(plan.budgetSeconds, 600);
    EXPECT_DOUBLE_EQ(plan.calibrationUsPerSample, 15625);
    // Within 10 % of the budget: trained as asked.
    wb::ExperimentConfig nearly = config;
    EXPECT_FALSE(wb::fitToSeconds(nearly, model, 2100, 15625).fitted());
    EXPECT_EQ(nearly.train.maxSteps, 4200);
    // A budget too short for the warm-up: the warm-up and one step more.
    wb::ExperimentConfig tiny = config;
    EXPECT_EQ(wb::fitToSeconds(tiny, model, 20, 15625).steps, 101);
    // Epochs without max steps (a classifier): max steps set below the epochs' steps.
    wb::ExperimentConfig epochs = config;
    epochs.train.epochs = 3;
    epochs.train.maxSteps = 0;
    EXPECT_EQ(wb::fitToSeconds(epochs, model, 100, 15625).stepsAsked, 300);
    EXPECT_EQ(epochs.train.maxSteps, 164);  // 10 + 82 + 2 validations × 4 = 100
}

TEST(SweepAxisCheck, AFormsAxisIsCheckedAsTheFlagsTextIs) {
    const auto axis = wb::checkSweepAxis({"lr", {"1e-3", "3e-3"}});
    EXPECT_EQ(axis.field, "learning_rate");
    EXPECT_EQ(axis.values, (std::vector<std::string>{"1e-3", "3e-3"}));
    EXPECT_NE(wbtest::inputErrorOf([] {
                  wb::checkSweepAxis({"link", {"fast"}});
              }).find("'fast' is not a link"),
              std::string::npos);
    EXPECT_NE(wbtest::inputErrorOf([] {
                  wb::checkSweepAxis({"hidden", {"8", "8"}});
              }).find("given twice"),
              std::string::npos);
    EXPECT_NE(wbtest::inputErrorOf([] {
                  wb::checkSweepAxis({"hidden", {}});
              }).find("no values"),
              std::string::npos);
}

// The Slurm settings a form or the CLI gives (partition, account, time limit): sbatch's own forms pass, and
// anything else is refused naming the setting, before a job is submitted.
TEST(SlurmSettings, SbatchsFormsPassAndOthersAreRefusedByName) {
    for (const char* time : {"", "90", "30:00", "1:30:00", "2-0", "2-12:00", "2-12:00:00", "UNLIMITED"})
        EXPECT_NO_THROW(wb::checkSlurmSettings({"gpu", "lab_42", time})) << time;
    const std::vector<std::pair<wb::SlurmSettings, std::string>> bad = {
        {{"gpu normal", "", ""}, "partition 'gpu normal'"},
        {{"", "lab;rm", ""}, "account 'lab;rm'"},
        {{"", "", "1h"}, "time limit '1h'"},
        {{"", "", "1:30:00:00"}, "time limit '1:30:00:00'"},
        {{"", "", "-5"}, "time limit '-5'"}};
    for (const auto& [settings, words] : bad) {
        try {
            wb::checkSlurmSettings(settings);
            ADD_FAILURE() << words << " was taken";
        } catch (const wb::InputError& e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    }
}
