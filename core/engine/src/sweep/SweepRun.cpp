// A sweep's cells, trained through a launcher (see workbench/engine/SweepRun.h).
#include "workbench/engine/SweepRun.h"

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <map>

#include "workbench/domain/Errors.h"
#include "workbench/domain/RemoveAll.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/SweepResults.h"

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

namespace {

// One run of runSweepCells: the cells the launcher has, and the steps of the loop.
class CellLoop {
public:
    CellLoop(const std::string& dir, Sweep& sweep, CellLauncher& launcher, SweepControl& control,
             const std::function<void(const std::string&)>& say)
        : m_dir(dir), m_sweep(sweep), m_launcher(launcher), m_control(control), m_say(say) {}

    SweepOutcome run() {
        m_launcher.setStateListener([this](int handle, const std::string& state) {
            const auto it = m_running.find(handle);
            if (it == m_running.end() || it->second->scheduler == state) return;
            it->second->scheduler = state;
            saveSweep(m_dir, m_sweep);
        });
        for (;;) {
            startWhatMayStart();
            if (m_running.empty()) break;
            const auto [handle, end] = m_launcher.waitForAnEnd();
            const auto it = m_running.find(handle);
            if (it == m_running.end()) throw TrainingError("the launcher reported a cell it was not given");
            record(*it->second, end);
            m_running.erase(it);
        }
        SweepOutcome outcome;
        outcome.stopped = m_stopped || m_control.stopRequested();
        outcome.done = m_sweep.count(CellState::Done);
        outcome.failed = m_sweep.count(CellState::Failed);
        outcome.paused = !outcome.stopped && m_control.pauseRequested() &&
                         outcome.done + outcome.failed < int(m_sweep.cells.size());
        writeFileAtomic((fs::path(m_dir) / kSweepResults).string(), sweepResultsCsv(m_dir, m_sweep));
        return outcome;
    }

private:
    void tell(const std::string& line) const {
        if (m_say) m_say("sweep: " + line);
    }
    std::string ofAll(const SweepCell& cell) const {
        return std::to_string(cell.index + 1) + "/" + std::to_string(m_sweep.cells.size()) + " " +
               m_sweep.describe(cell);
    }
    std::string file(const SweepCell& cell, const char* what) const {
        return (fs::path(m_dir) / (".cell-" + std::to_string(cell.index) + what)).string();
    }
    std::string runDir(const SweepCell& cell) const { return (fs::path(m_dir) / cell.runDir).string(); }

    // Cells not done, in order, while the launcher has room and nothing asked to pause or stop.
    void startWhatMayStart() {
        while (m_next < m_sweep.cells.size() && int(m_running.size()) < m_launcher.capacity() &&
               !m_control.stopRequested() && !m_control.pauseRequested()) {
            SweepCell& cell = m_sweep.cells[m_next++];
            if (cell.state == CellState::Done) continue;
            if (cell.state == CellState::Running && completedRun(runDir(cell))) {
                // Killed after its run completed, before it was recorded: the run is whole, not trained
                // again.
                cell.state = CellState::Done;
                saveSweep(m_dir, m_sweep);
                tell(ofAll(cell) + " had completed; kept");
                continue;
            }
            start(cell);
        }
    }

    void start(SweepCell& cell) {
        std::error_code ec;
        removeAll(runDir(cell), ec);  // what a killed sweep left of this cell is redone from the start
        fs::create_directories(fs::path(runDir(cell)).parent_path());
        cell.state = CellState::Running;
        cell.error.clear();
        cell.scheduler.clear();
        saveSweep(m_dir, m_sweep);
        const auto config = m_sweep.cellConfig(cell);
        writeFileAtomic(file(cell, "-config.json"), config.toJson());
        tell(ofAll(cell));
        m_running[m_launcher.start({config.data.corpus, runDir(cell), file(cell, "-config.json"),
                                    file(cell, "-stderr"), Sweep::linkOf(cell),
                                    config.device.spec.processes})] = &cell;
    }

    void record(SweepCell& cell, const CellEnd& end) {
        cell.peakRssBytes = end.peakRssBytes;
        cell.scheduler.clear();
        if (end.code == 0) {
            cell.state = CellState::Done;
        } else if (end.code == kStoppedCode || m_control.stopRequested()) {
            m_stopped = true;
            cell.state = CellState::Queued;  // stopped: redone on resume
        } else {
            cell.state = CellState::Failed;
            cell.error = end.error;
            tell(m_sweep.describe(cell) + " failed: " + end.error);
        }
        saveSweep(m_dir, m_sweep);
        std::error_code ec;
        fs::remove(file(cell, "-config.json"), ec);
        fs::remove(file(cell, "-stderr"), ec);
    }

    const std::string& m_dir;
    Sweep& m_sweep;
    CellLauncher& m_launcher;
    SweepControl& m_control;
    const std::function<void(const std::string&)>& m_say;
    std::map<int, SweepCell*> m_running;  // by the launcher's handle
    std::size_t m_next = 0;
    bool m_stopped = false;
};

}  // namespace

SweepOutcome runSweepCells(const std::string& dir, Sweep& sweep, CellLauncher& launcher,
                           SweepControl& control, const std::function<void(const std::string&)>& say) {
    launcher.check(sweep);
    control.attach(&launcher);
    struct Detach {
        SweepControl& control;
        ~Detach() { control.attach(nullptr); }
    } detach{control};
    return CellLoop(dir, sweep, launcher, control, say).run();
}

}  // namespace wb
