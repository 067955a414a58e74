// A hundred runs started and stopped in a row in the main window, stopped at different moments (at once,
// after a step, while validating, while checkpointing): no crash, every worker ends, every run folder is
// consistent, and memory does not grow with the number of runs.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "TestWindow.h"
#include "training/RunScheduler.h"
#include "workbench/domain/RunFolder.h"

using namespace wbui;
using wbuitest::waitFor;
namespace fs = std::filesystem;

namespace {
double residentMiB() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// mustExist: the run reported a step, a validation or a checkpoint, so its folder was made. Only a run
// stopped at once may have none.
void expectConsistentRunFolder(const std::string& dir, int i, bool mustExist) {
    if (!mustExist && !fs::exists(dir)) return;  // stopped before the run folder was made
    ASSERT_TRUE(wb::isRunFolder(dir)) << "run " << i << ": " << dir;
    const auto record = wb::loadRunFolder(dir);  // throws on anything inconsistent
    EXPECT_TRUE(record.info.status == wb::RunStatus::Stopped ||
                record.info.status == wb::RunStatus::Completed)
        << "run " << i << ": " << wb::toString(record.info.status);
    EXPECT_EQ(fs::exists(fs::path(dir) / wb::runfiles::kModel),
              fs::exists(fs::path(dir) / wb::runfiles::kOptimizer))
        << "run " << i;
    for (const auto& e : fs::directory_iterator(dir)) {
        const auto name = e.path().filename().string();
        EXPECT_TRUE(name.find(".next") == std::string::npos && name.find(".tmp-") == std::string::npos)
            << "run " << i << " left " << name;
    }
}
}  // namespace

TEST(StartStopStress, AHundredRunsStartedAndStoppedInARow) {
    wbuitest::TestWindow win;
    win.prepareTinyRun(100000);  // validation, and so a checkpoint, every 4 steps
    // A corpus of ~50 KB instead of ~5 KB: what a run holds (its prepared windows) is then large enough
    // that a run leaking it shows in resident memory above the noise (see the bound at the end).
    const QString corpus = win.write("stress.txt", wbtest::patternText(2000));
    wbuitest::dropFiles(win.w.get(), {corpus});
    ASSERT_EQ(win.w->corpusPanel()->corpusPath(), corpus);
    win.w->experimentPanel()->setConfig(
        wbuitest::tinyConfig(wb::Task::LanguageModel, corpus.toStdString(), 100000));
    const char* moments[] = {"at once", "after a step", "validating", "checkpointing"};
    double residentAfter10 = 0;
    for (int i = 0; i < 100; ++i) {
        ASSERT_TRUE(win.w->launcher()->startRuns()) << "run " << i;
        ASSERT_EQ(win.w->launcher()->scheduler()->controllers().size(), 1) << "finished runs are let go";
        RunController* run = win.w->launcher()->scheduler()->controllers().value(0);
        const std::string moment = moments[i % 4];
        // The moment is the state the run reported last, as the GUI sees it (the worker may be a batch
        // further): waited for, never slept for. The run has 100,000 steps, so it cannot end first; a wait
        // that gives up after a minute is a hang.
        if (moment == "after a step")
            ASSERT_TRUE(waitFor([&] { return run->lastProgress().step >= 1; }, 60000)) << "run " << i;
        else if (moment == "validating" || moment == "checkpointing")
            ASSERT_TRUE(waitFor([&] { return run->lastProgress().phase == moment; }, 60000))
                << "run " << i << " never reported " << moment;
        ASSERT_FALSE(run->isDone()) << "run " << i;
        win.w->launcher()->stopAll();
        ASSERT_TRUE(waitFor([&] { return run->isDone(); }, 60000)) << "run " << i << " did not stop";
        EXPECT_NE(run->state(), RunController::State::Failed) << "run " << i;
        expectConsistentRunFolder(run->runDir().toStdString(), i, moment != "at once");
        // Finished runs keep their charts by design until the user clears them; cleared here, what is left
        // of a run is what the bound below is about.
        win.w->launcher()->clearFinishedRuns();
        if (i == 9) residentAfter10 = residentMiB();
    }
    const double growth = residentMiB() - residentAfter10;
    std::printf("100 runs: resident memory grew %.1f MiB from run 10 to 100\n", growth);
    // A run that leaked what it holds would show here. Measured from run 10 to 100: 2.1-2.3 MiB as it is (the
    // runs list, the log and the allocator's own growth, by design), 29.7 MiB with each run's TrainingJob
    // leaked on purpose (~340 KiB a run: its model, optimizer state and prepared windows). The bound sits
    // between: 5x the normal growth, under half the leak. Under AddressSanitizer freed memory sits in its
    // quarantine (up to 256 MB) and resident memory says nothing; LeakSanitizer checks for leaks at exit
    // there instead. How long a stop takes is not asserted: that is a benchmark's question.
#if !defined(__SANITIZE_ADDRESS__)
    EXPECT_LT(growth, 12.0);
#endif
}
