// Running a sweep (workbench/domain/Sweep.h is its plan and its files): the cells not done are trained in
// order, each by a launcher, with sweep.json rewritten at every change of a cell and results.csv at the end.
// The CLI's `sweep` and the app's Sweep tab both run sweeps through this, and both estimate times with
// workbench/engine/SweepEstimate.h; neither starts a cell itself.
//
// A launcher is where cells run. LocalLauncher (makeLocalLauncher) trains each cell as a child `train`
// process of this machine, so that a cell's timings, peak memory and thread settings are its own and a
// multi-process device is just another cell; a link cell runs one `train` per process, each on a host of
// its own made with network namespaces, joined as torchrun would join them. SlurmLauncher
// (makeSlurmLauncher) submits each cell to a Slurm cluster as a batch job; many run at once (capacity).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "workbench/domain/Sweep.h"

namespace wb {

// What a launcher is given: the files of one ordinary `lstm-workbench-cli train` run.
struct CellJob {
    std::string corpus;      // a path, or a prepared corpus's name
    std::string runDir;      // the run folder it writes (its parent exists)
    std::string configFile;  // the cell's ExperimentConfig as JSON
    std::string errorFile;   // its error output; the first line is what a failed cell says
    std::string link;        // "": on this host; a link value (Sweep::linkOf): one host per process
    std::int64_t processes = 1;
};

struct CellEnd {
    int code = -1;  // the exit code; 128 + signal; kStoppedCode when it stopped as asked
    std::int64_t peakRssBytes = 0;
    std::string error;  // the first line of its error output, without the CLI's prefix; "" when none
};
inline constexpr int kStoppedCode = 130;  // what `train` returns when a SIGINT stopped it

class CellLauncher {
public:
    virtual ~CellLauncher() = default;
    // Throws InputError, saying why, for a sweep it cannot run (before anything is made or started).
    virtual void check(const Sweep& sweep) const = 0;
    // How many cells it runs at once.
    virtual int capacity() const = 0;
    // Starts a cell; returns its handle. Throws TrainingError when it cannot.
    virtual int start(const CellJob& job) = 0;
    // Waits until a started cell ends: its handle and its end.
    virtual std::pair<int, CellEnd> waitForAnEnd() = 0;
    // Every running cell, and every cell started from now on, is told to stop: it checkpoints and ends
    // within a batch, with kStoppedCode. Async-signal-safe; from any thread.
    virtual void stop() noexcept = 0;
    // As stop(), but the running cells are killed now (one that did not stop in time).
    virtual void kill() noexcept = 0;

    // Heard from within waitForAnEnd when a cluster's scheduler says something new of a started cell
    // ("pending (Resources)", "running"); this machine's launcher says nothing.
    using StateListener = std::function<void(int handle, const std::string& state)>;
    void setStateListener(StateListener listener) { m_stateListener = std::move(listener); }

protected:
    void tellState(int handle, const std::string& state) const {
        if (m_stateListener) m_stateListener(handle, state);
    }

private:
    StateListener m_stateListener;
};

// `program` is lstm-workbench-cli (the sweep's own program in the CLI; the one beside the app in the app).
// Throws InputError when it is not an executable program.
std::unique_ptr<CellLauncher> makeLocalLauncher(const std::string& program);

// A Slurm cluster (SlurmLauncher.cpp): each cell a batch job of its own, submitted with sbatch when the sweep
// starts it (all at once: the scheduler decides what runs when, so a pause has nothing left to hold back),
// asking for its device's CPUs (--cpus-per-task, threads x processes) or a GPU (--gres=gpu:1), followed with
// scontrol, stopped with scancel (SIGINT to its `train`: it checkpoints, and is redone on resume). The sweep
// folder and `program` must be where every node sees them. Throws InputError when sbatch, scontrol or
// scancel is not on PATH.
struct SlurmSettings {
    std::string partition, account;  // "" : the cluster's default
    // sbatch's --time ("1:00:00"); "" : the partition's. With a limit, a cell's `train` gets SIGUSR1
    // kTimeLimitWarningSeconds before it (Slurm may send it up to a minute earlier still), saves its
    // checkpoint and queues its job again, which continues the run when it restarts.
    std::string timeLimit;
};
inline constexpr int kTimeLimitWarningSeconds = 90;
// Throws InputError naming the setting: a partition or an account that is not one name (letters, digits,
// _ . -), a time limit not in one of sbatch's forms (MINUTES, MINUTES:SECONDS, HOURS:MINUTES:SECONDS,
// DAYS-HOURS, DAYS-HOURS:MINUTES, DAYS-HOURS:MINUTES:SECONDS, UNLIMITED). makeSlurmLauncher checks too.
void checkSlurmSettings(const SlurmSettings& settings);
std::unique_ptr<CellLauncher> makeSlurmLauncher(const std::string& program, const SlurmSettings& settings);
// The CLI that runs a cell: /proc/self/exe when that is lstm-workbench-cli, else the lstm-workbench-cli
// beside it.
std::string thisProgram();

// Pause, Keep going and Stop for a running sweep, from any thread or a signal handler (async-signal-safe).
class SweepControl {
public:
    void pause() noexcept { m_pause = true; }       // the running cells finish; no other starts
    void keepGoing() noexcept { m_pause = false; }  // a pause not taken yet is withdrawn
    void stop() noexcept;                           // the running cells stop now; redone on resume
    bool pauseRequested() const noexcept { return m_pause; }
    bool stopRequested() const noexcept { return m_stop; }

    // While a sweep runs, stop() reaches its launcher (runSweepCells sets and clears it).
    void attach(CellLauncher* launcher) noexcept;

private:
    std::atomic<bool> m_pause{false}, m_stop{false};
    std::atomic<CellLauncher*> m_launcher{nullptr};
};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<CellLauncher*>::is_always_lock_free,
              "SweepControl is used from signal handlers");

// SIGINT and SIGTERM stop, SIGUSR1 pauses, SIGUSR2 withdraws a pause (the CLI's sweep, which the app's
// Pause and Keep Going once signalled), routed to `control` while this object lives. Pause is heard from
// construction; stops from listenForStops() (before it, a stop ends the process, as a cancelled plan must).
class SweepSignals {
public:
    explicit SweepSignals(SweepControl& control);
    ~SweepSignals();  // the default actions back
    void listenForStops();
    SweepSignals(const SweepSignals&) = delete;
    SweepSignals& operator=(const SweepSignals&) = delete;
};

struct SweepOutcome {
    int done = 0, failed = 0;  // cells of the whole sweep at the end
    bool stopped = false;      // by SweepControl::stop (or a cell that was)
    bool paused = false;       // by SweepControl::pause, before every cell was done
};

// A relative corpus path made absolute, so that the sweep resumes from any folder.
std::string absoluteCorpus(const std::string& corpus);
// Throws InputError naming a folder that exists and is not empty: a new sweep's folder must not.
void requireFreeSweepFolder(const std::string& dir);
// Makes a new sweep's folder (it may exist, empty) and writes its sweep.json.
void createSweepFolder(const std::string& dir, const Sweep& sweep);

// Trains the cells that are not done, in order, through the launcher (see the top of this file); `say`
// hears a line per cell started, kept or failed ("" to stay quiet). A cell left running by a killed sweep
// is kept when its run had completed, and trained again from its start otherwise. Ends when every cell
// has ended, or when paused or stopped; a stopped cell is queued again.
SweepOutcome runSweepCells(const std::string& dir, Sweep& sweep, CellLauncher& launcher,
                           SweepControl& control, const std::function<void(const std::string&)>& say = {});

}  // namespace wb
