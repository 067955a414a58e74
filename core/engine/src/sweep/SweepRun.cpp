// A sweep's cells, trained through a launcher (see workbench/SweepRun.h).
#include "workbench/SweepRun.h"

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <map>

#include "workbench/Errors.h"
#include "workbench/RemoveAll.h"
#include "workbench/RunFolder.h"
#include "workbench/SweepResults.h"

namespace fs = std::filesystem;

namespace wb {

void SweepControl::stop() noexcept {
    m_stop = true;
    if (CellLauncher* launcher = m_launcher) launcher->stop();
}

// Attached after a stop came: the launcher hears it too (as in LocalLauncher::publish, either this sees
// the stop or stop() sees the launcher).
void SweepControl::attach(CellLauncher* launcher) noexcept {
    m_launcher = launcher;
    if (launcher && m_stop) launcher->stop();
}

namespace {

std::atomic<SweepControl*> g_signalled{nullptr};

extern "C" void onStopSignal(int) {
    if (SweepControl* c = g_signalled) c->stop();
}
extern "C" void onPauseSignal(int) {
    if (SweepControl* c = g_signalled) c->pause();
}
extern "C" void onKeepGoingSignal(int) {
    if (SweepControl* c = g_signalled) c->keepGoing();
}

// Each handler blocks the other pause signal while it runs. Without that, SIGUSR1 then SIGUSR2 sent back to
// back (`kill -USR1 P; kill -USR2 P`) left the sweep paused, as if SIGUSR1's handler had run last. Blocked,
// the second waits until the first handler returns, so they run in the order they were sent.
void install(int signal, void (*handler)(int), int blocked) {
    struct sigaction action {};
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    if (blocked) sigaddset(&action.sa_mask, blocked);
    action.sa_flags = SA_RESTART;  // a wait for the running cell goes on
    sigaction(signal, &action, nullptr);
}

// A run folder that a cell's run finished: completed, with its model and optimizer state (the checkpoint is
// written before the status says completed, so a run killed before that reads running or lacks them).
bool completedRun(const std::string& runDir) {
    if (!isRunFolder(runDir)) return false;
    try {
        const auto record = loadRunFolder(runDir);
        return record.info.status == RunStatus::Completed &&
               fs::exists(fs::path(runDir) / runfiles::kModel) &&
               fs::exists(fs::path(runDir) / runfiles::kOptimizer);
    } catch (const std::exception&) {
        return false;  // damaged: trained again
    }
}

}  // namespace

SweepSignals::SweepSignals(SweepControl& control) {
    g_signalled = &control;
    install(SIGUSR1, onPauseSignal, SIGUSR2);
    install(SIGUSR2, onKeepGoingSignal, SIGUSR1);
}

void SweepSignals::listenForStops() {
    install(SIGINT, onStopSignal, 0);
    install(SIGTERM, onStopSignal, 0);
}

SweepSignals::~SweepSignals() {
    for (const int s : {SIGINT, SIGTERM, SIGUSR1, SIGUSR2}) std::signal(s, SIG_DFL);
    g_signalled = nullptr;
}

std::string absoluteCorpus(const std::string& corpus) {
    std::error_code ec;
    if (fs::exists(corpus, ec)) return fs::absolute(corpus).lexically_normal().string();
    return corpus;  // a prepared corpus's name
}

void requireFreeSweepFolder(const std::string& dir) {
    std::error_code ec;
    if (fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec)))
        throw InputError(dir, 0,
                         "the sweep folder already exists and is not empty (resume it with "
                         "`lstm-workbench-cli sweep " +
                             dir + "`, or choose another)");
}

void createSweepFolder(const std::string& dir, const Sweep& sweep) {
    requireFreeSweepFolder(dir);
    fs::create_directories(dir);
    saveSweep(dir, sweep);
}

SweepOutcome runSweepCells(const std::string& dir, Sweep& sweep, CellLauncher& launcher,
                           SweepControl& control, const std::function<void(const std::string&)>& say) {
    const auto tell = [&](const std::string& line) {
        if (say) say(line);
    };
    const auto ofAll = [&](const SweepCell& cell) {
        return std::to_string(cell.index + 1) + "/" + std::to_string(sweep.cells.size()) + " " +
               sweep.describe(cell);
    };
    launcher.check(sweep);
    control.attach(&launcher);
    struct Detach {
        SweepControl& control;
        ~Detach() { control.attach(nullptr); }
    } detach{control};

    SweepOutcome outcome;
    std::map<int, SweepCell*> running;  // by the launcher's handle
    const auto files = [&](const SweepCell& cell, const char* what) {
        return (fs::path(dir) / (".cell-" + std::to_string(cell.index) + what)).string();
    };
    const auto startCell = [&](SweepCell& cell) {
        const auto runDir = (fs::path(dir) / cell.runDir).string();
        std::error_code ec;
        removeAll(runDir, ec);  // what a killed sweep left of this cell is redone from the start
        fs::create_directories(fs::path(runDir).parent_path());
        cell.state = CellState::Running;
        cell.error.clear();
        saveSweep(dir, sweep);
        const auto config = sweep.cellConfig(cell);
        writeFileAtomic(files(cell, "-config.json"), config.toJson());
        tell("sweep: " + ofAll(cell));
        running[launcher.start({config.data.corpus, runDir, files(cell, "-config.json"),
                                files(cell, "-stderr"), Sweep::linkOf(cell), config.device.spec.processes})] =
            &cell;
    };
    const auto endCell = [&](SweepCell& cell, const CellEnd& end) {
        cell.peakRssBytes = end.peakRssBytes;
        if (end.code == 0) {
            cell.state = CellState::Done;
        } else if (end.code == kStoppedCode || control.stopRequested()) {
            outcome.stopped = true;
            cell.state = CellState::Queued;  // stopped: redone on resume
        } else {
            cell.state = CellState::Failed;
            cell.error = end.error;
            tell("sweep: " + sweep.describe(cell) + " failed: " + end.error);
        }
        saveSweep(dir, sweep);
        std::error_code ec;
        fs::remove(files(cell, "-config.json"), ec);
        fs::remove(files(cell, "-stderr"), ec);
    };

    std::size_t next = 0;
    for (;;) {
        // Start what may start: cells not done, in order, while there is room, no pause and no stop.
        while (next < sweep.cells.size() && int(running.size()) < launcher.capacity() &&
               !control.stopRequested() && !control.pauseRequested()) {
            SweepCell& cell = sweep.cells[next++];
            if (cell.state == CellState::Done) continue;
            if (cell.state == CellState::Running && completedRun((fs::path(dir) / cell.runDir).string())) {
                // Killed after its run completed, before it was recorded: the run is whole, not trained
                // again.
                cell.state = CellState::Done;
                saveSweep(dir, sweep);
                tell("sweep: " + ofAll(cell) + " had completed; kept");
                continue;
            }
            startCell(cell);
        }
        if (running.empty()) break;
        const auto [handle, end] = launcher.waitForAnEnd();
        const auto it = running.find(handle);
        if (it == running.end()) throw TrainingError("the launcher reported a cell it was not given");
        endCell(*it->second, end);
        running.erase(it);
    }
    outcome.stopped = outcome.stopped || control.stopRequested();
    outcome.done = sweep.count(CellState::Done);
    outcome.failed = sweep.count(CellState::Failed);
    outcome.paused = !outcome.stopped && control.pauseRequested() &&
                     outcome.done + outcome.failed < int(sweep.cells.size());
    writeFileAtomic((fs::path(dir) / kSweepResults).string(), sweepResultsCsv(dir, sweep));
    return outcome;
}

}  // namespace wb
