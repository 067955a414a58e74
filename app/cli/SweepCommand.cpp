// `lstm-workbench-cli sweep`: plans a grid of runs (workbench/Sweep.h), trains its cells one after another,
// each as a child `train` process (so each cell's peak memory and thread settings are its own, and a
// multi-process device is just another cell), and writes results.csv. `sweep SWEEP_DIR` resumes: cells not
// done are (re)trained, finished cells' folders are not touched. A cell of the link axis runs one `train`
// per process, each on a host of its own made with network namespaces (NetworkHosts.h), joined as torchrun
// would join them.
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "Commands.h"
#include "NetworkHosts.h"
#include "workbench/ConfigFields.h"
#include "workbench/CorpusCatalog.h"
#include "workbench/Distributed.h"
#include "workbench/Errors.h"
#include "workbench/Format.h"
#include "workbench/ModelSummary.h"
#include "workbench/RemoveAll.h"
#include "workbench/RunFolder.h"
#include "workbench/Sweep.h"
#include "workbench/SweepResults.h"
#include "workbench/Training.h"
#ifdef WORKBENCH_HAVE_CHARTS
#include "workbench/charts/HeadlessExport.h"
#endif

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// SIGINT/SIGTERM stop now (the running cell is redone on resume); SIGUSR1 pauses: the running cell finishes,
// no other starts (the app's Pause); SIGUSR2 withdraws a pause not yet taken (the app's Keep going).
volatile std::sig_atomic_t g_interrupted = 0;
volatile std::sig_atomic_t g_pauseRequested = 0;
// The running cell's `train`: a stop is passed on to it (the app signals the sweep alone, not its process
// group as a terminal's Ctrl+C does), so that it checkpoints and ends within a batch instead of finishing.
volatile pid_t g_cell = 0;
extern "C" void onSweepInterrupt(int) {
    g_interrupted = 1;
    if (g_cell > 0) kill(g_cell, SIGINT);  // async-signal-safe
}
extern "C" void onSweepPause(int) { g_pauseRequested = 1; }
extern "C" void onSweepKeepGoing(int) { g_pauseRequested = 0; }

// Pause is heard from the sweep command's first step, not from its first cell: the app's Pause, clicked while
// the sweep was still planning or reading its corpus, once ended it by SIGUSR1's default action ("the sweep
// process ended unexpectedly"); now the sweep pauses before its first cell. A stop (SIGINT, SIGTERM) is
// heard by the cells' loop: before it, it ends the process at once, as a cancelled plan must.
// Each handler blocks the other signal while it runs. Without that, SIGUSR1 then SIGUSR2 sent back to back
// (Keep Going clicked right after Pause; `kill -USR1 P; kill -USR2 P`) left the sweep paused, as if SIGUSR1's
// handler had run last. Blocked, the second waits until the first handler returns, so they run in signal
// order, which is the order the app sends them in (after the change: 3 runs of 3 went on).
struct PauseSignal {
    PauseSignal() {
        install(SIGUSR1, onSweepPause, SIGUSR2);
        install(SIGUSR2, onSweepKeepGoing, SIGUSR1);
    }
    static void install(int signal, void (*handler)(int), int blocked) {
        struct sigaction action {};
        action.sa_handler = handler;
        sigemptyset(&action.sa_mask);
        sigaddset(&action.sa_mask, blocked);
        action.sa_flags = SA_RESTART;  // as std::signal: a wait for the running cell goes on
        sigaction(signal, &action, nullptr);
    }
    ~PauseSignal() {
        std::signal(SIGUSR1, SIG_DFL);
        std::signal(SIGUSR2, SIG_DFL);
    }
    PauseSignal(const PauseSignal&) = delete;
    PauseSignal& operator=(const PauseSignal&) = delete;
};

// A stop must reach a cell however close to its start it comes. Between fork and exec the child still has the
// sweep's handler, which would take a SIGINT meant for it as the sweep's own and leave it training to the end
// (the app, closed just as a cell started, waited 10 s and killed the sweep with the cell marked running). So
// the stop signals are blocked from before the fork until the cell's pid is known (one that came meanwhile
// is then handled, and reaches the cell), and the child takes the default action back before it unblocks
// them: a stop that came before its exec ends it, one after reaches the program it became.
struct StopSignalsBlocked {
    sigset_t stops{}, before{};
    StopSignalsBlocked() {
        sigemptyset(&stops);
        sigaddset(&stops, SIGINT);
        sigaddset(&stops, SIGTERM);
        sigprocmask(SIG_BLOCK, &stops, &before);
    }
    ~StopSignalsBlocked() { sigprocmask(SIG_SETMASK, &before, nullptr); }
    StopSignalsBlocked(const StopSignalsBlocked&) = delete;
    StopSignalsBlocked& operator=(const StopSignalsBlocked&) = delete;
    // In the child, before exec.
    void restoreDefaultsInChild() const {
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
        std::signal(SIGUSR1, SIG_DFL);
        std::signal(SIGUSR2, SIG_DFL);
        sigprocmask(SIG_SETMASK, &before, nullptr);
    }
};

std::string selfExecutable() {
    char buf[4096] = {0};
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string("lstm-workbench-cli");
}

struct ChildResult {
    int code = -1;  // exit code; 128 + signal
    std::int64_t peakRssBytes = 0;
    std::string firstErrorLine;
};

// The first line a child wrote to its error file, without the CLI's error prefix.
std::string firstErrorLine(const std::string& errFile) {
    std::string err;
    try {
        err = wb::readFile(errFile);
    } catch (const std::exception&) {
        return {};
    }
    const auto line = err.substr(0, err.find('\n'));
    const std::string prefix = wb::kCliErrorPrefix;
    return line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : line;
}

// Runs `lstm-workbench-cli train CORPUS --out RUN --config CONFIG --quiet --json`, stdout to /dev/null.
ChildResult trainInChild(const std::string& corpus, const std::string& runDir, const std::string& configFile,
                         const std::string& errFile) {
    const std::string exe = selfExecutable();
    std::vector<std::string> args = {exe,    "train",    corpus,     "--out",
                                     runDir, "--config", configFile, "--quiet"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    {
        const StopSignalsBlocked blocked;
        pid = fork();
        if (pid < 0)
            throw wb::TrainingError(std::string("cannot start a sweep cell: ") + std::strerror(errno));
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed sweep takes its running cell with it
            blocked.restoreDefaultsInChild();
            std::freopen("/dev/null", "w", stdout);
            std::freopen(errFile.c_str(), "w", stderr);
            execv(exe.c_str(), argv.data());
            _exit(127);
        }
        g_cell = pid;
    }
    if (g_interrupted) kill(pid, SIGINT);  // a stop that came before the fork
    ChildResult r;
    int status = 0;
    rusage usage{};
    while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
    }
    g_cell = 0;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.peakRssBytes = static_cast<std::int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
    r.firstErrorLine = firstErrorLine(errFile);
    return r;
}

// A link cell: `processes` hosts on one bridge, their links shaped to `link` (or unshaped), and one `train`
// in each, started with torchrun's variables as on real machines (GLOO_SOCKET_IFNAME naming the host's
// interface). Rank 0 writes the run folder; the other ranks write nothing. The result is rank 0's, or the
// first failing rank's error when rank 0 succeeded without them. The hosts go when the cell ends, with
// whatever still runs in them.
ChildResult trainOverHosts(const std::string& corpus, const std::string& runDir,
                           const std::string& configFile, const std::string& errFile, const std::string& link,
                           std::int64_t processes) {
    wbcli::NetworkHosts hosts(static_cast<int>(processes), link == wb::kUnshapedLink ? "" : link);
    const std::string exe = selfExecutable();
    std::vector<pid_t> ranks(static_cast<std::size_t>(processes), -1);
    const std::string secret = wb::newJobSecret();  // the cell's own: its ranks alone may join it
    auto errorFileOf = [&](int rank) {
        return rank == 0 ? errFile : errFile + ".rank" + std::to_string(rank);
    };
    for (int rank = static_cast<int>(processes) - 1; rank >= 0; --rank) {  // rank 0 last: the others wait
        // `exec` at every step, so that the pid is the rank's own `train` (a stop reaches it directly).
        const std::string command =
            "exec " + hosts.run(rank) + wbcli::shellQuote(exe) + " train " + wbcli::shellQuote(corpus) +
            " --out " + wbcli::shellQuote(rank == 0 ? runDir : runDir + ".rank" + std::to_string(rank)) +
            " --config " + wbcli::shellQuote(configFile) + " --quiet";
        const StopSignalsBlocked blocked;  // until rank 0's pid is known (a stop is passed to rank 0)
        const pid_t pid = fork();
        if (pid < 0)
            throw wb::TrainingError(std::string("cannot start a sweep cell: ") + std::strerror(errno));
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            blocked.restoreDefaultsInChild();
            std::freopen("/dev/null", "w", stdout);
            std::freopen(errorFileOf(rank).c_str(), "w", stderr);
            setenv("RANK", std::to_string(rank).c_str(), 1);
            setenv("WORLD_SIZE", std::to_string(processes).c_str(), 1);
            setenv("LOCAL_RANK", "0", 1);
            setenv("LOCAL_WORLD_SIZE", "1", 1);
            setenv("MASTER_ADDR", hosts.address(0).c_str(), 1);
            setenv("MASTER_PORT", "29500", 1);  // each cell's hosts are new: every port is free
            setenv("GLOO_SOCKET_IFNAME", wbcli::NetworkHosts::interface(), 1);
            setenv(wb::kJobSecretVariable, secret.c_str(), 1);
            execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
            _exit(127);
        }
        ranks[static_cast<std::size_t>(rank)] = pid;
        if (rank == 0) g_cell = pid;
    }
    if (g_interrupted) kill(ranks[0], SIGINT);
    ChildResult r;
    int status = 0;
    rusage usage{};
    while (wait4(ranks[0], &status, 0, &usage) < 0 && errno == EINTR) {
    }
    g_cell = 0;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.peakRssBytes = static_cast<std::int64_t>(usage.ru_maxrss) * 1024;
    r.firstErrorLine = firstErrorLine(errFile);
    // The other ranks end with rank 0 (it tells them, or they lose it within the job's timeout); a rank
    // that does not is killed with its host.
    for (std::size_t rank = 1; rank < ranks.size(); ++rank) {
        int code = -1;
        for (int tick = 0; tick < 600; ++tick) {  // up to a minute
            int st = 0;
            const pid_t done = waitpid(ranks[rank], &st, WNOHANG);
            if (done == ranks[rank]) {
                code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                break;
            }
            if (done < 0 && errno != EINTR) break;
            usleep(100000);
        }
        if (code < 0) {
            kill(ranks[rank], SIGKILL);
            waitpid(ranks[rank], nullptr, 0);
        }
        if (code != 0 && r.code == 0) {
            r.code = code < 0 ? 1 : code;
            r.firstErrorLine = "rank " + std::to_string(rank) + ": " + firstErrorLine(errorFileOf(rank));
        }
        std::error_code ec;
        fs::remove(errorFileOf(static_cast<int>(rank)), ec);
        wb::removeAll(runDir + ".rank" + std::to_string(rank), ec);
    }
    return r;
}

// A relative corpus path is made absolute, so that `sweep SWEEP_DIR` works from any folder.
std::string absoluteCorpus(const std::string& corpus) {
    std::error_code ec;
    if (fs::exists(corpus, ec)) return fs::absolute(corpus).lexically_normal().string();
    return corpus;  // a prepared corpus's name
}

// A run folder that a cell's run finished: completed, with its model and optimizer state (the checkpoint is
// written before the status says completed, so a run killed before that reads running or lacks them).
bool completedRun(const std::string& runDir) {
    if (!wb::isRunFolder(runDir)) return false;
    try {
        const auto record = wb::loadRunFolder(runDir);
        return record.info.status == wb::RunStatus::Completed &&
               fs::exists(fs::path(runDir) / wb::runfiles::kModel) &&
               fs::exists(fs::path(runDir) / wb::runfiles::kOptimizer);
    } catch (const std::exception&) {
        return false;  // damaged: trained again
    }
}

// What a short run of a cell measures, for the cells that train alike (same device, processes, threads,
// batch size, precision, thread split and backend): microseconds per training sample, seconds of one
// validation, and the seconds a run costs besides its steps and validations (the process, the corpus, the
// vocabulary, the n-gram baseline, the checkpoints).
struct Calibration {
    double usPerSample = 0, validationSeconds = 0, fixedSeconds = 0, flopsPerSample = 0;
};

std::string calibrationKey(const wb::ExperimentConfig& c) {
    return c.device.device + "|" + std::to_string(c.device.processes) + "|" +
           std::to_string(c.device.threads) + "|" + std::to_string(c.train.batchSize) + "|" +
           wb::toString(c.device.precision) + "|" + wb::toString(c.device.threadSplit) + "|" +
           wb::configField("backend").get(c);
}

// A few steps of the cell in a child process, as a cell runs: its wall time, the run's own clock for the
// steps (trainSeconds) and for the steps and the one validation at the end (the last record's wall time).
Calibration calibrate(wb::ExperimentConfig config, const fs::path& tmp, int index) {
    config.train.epochs = 0;
    config.train.maxSteps = config.train.warmupSteps + 5;
    config.train.validateEvery = 0;  // one validation, at the end
    const fs::path dir = tmp / std::to_string(index);
    fs::create_directories(dir);
    wb::writeFileAtomic((dir / "config.json").string(), config.toJson());
    const auto start = std::chrono::steady_clock::now();
    const auto r = trainInChild(config.data.corpus, (dir / "run").string(), (dir / "config.json").string(),
                                (dir / "stderr").string());
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r.code != 0) throw wb::TrainingError("the calibration run failed: " + r.firstErrorLine);
    const auto record = wb::loadRunFolder((dir / "run").string());
    double lastRecord = 0;
    for (const auto& m : record.metrics) lastRecord = std::max(lastRecord, m.wallSeconds);
    Calibration c;
    c.usPerSample = record.info.summary.usPerSample;
    c.validationSeconds = std::max(0.0, lastRecord - record.info.summary.trainSeconds);
    // The warm-up steps are in the run's clock but not in its µs per sample: they count as fixed cost.
    c.fixedSeconds =
        std::max(0.0, wall - lastRecord) +
        std::max(0.0, record.info.summary.trainSeconds -
                          c.usPerSample * 1e-6 * 5.0 * static_cast<double>(config.train.batchSize));
    return c;
}

// Estimated seconds per cell, from calibrations of the grid's own cells: one short run for each kind of cell
// (calibrationKey), scaled by each cell's FLOPs, samples and validations, plus what a run costs besides.
std::vector<double> estimateSeconds(const wb::Sweep& sweep, double* calibrationUs) {
    const auto tmp = fs::temp_directory_path() / ("lstm-workbench-plan-" + std::to_string(getpid()));
    fs::create_directories(tmp);
    struct Cleanup {
        fs::path p;
        ~Cleanup() {
            std::error_code ec;
            wb::removeAll(p, ec);
        }
    } cleanup{tmp};
    const auto firstConfig = sweep.cellConfig(sweep.cells.front());
    const auto corpus = std::make_shared<const wb::Corpus>(
        wb::loadCorpus(wb::resolveCorpusPath(firstConfig.data.corpus), firstConfig.data.format));
    const auto flopsOf = [&](const wb::ExperimentConfig& c, std::int64_t* stepsPerEpoch) {
        wb::TrainingJob job(c, (tmp / "never-created").string(), corpus);
        *stepsPerEpoch = job.stepsPerEpoch();
        return wb::summarizeModel(job.config(), job.vocabularySize(), job.classCount()).trainFlopsPerSample;
    };
    std::map<std::string, Calibration> calibrations;
    std::vector<double> out;
    for (const auto& cell : sweep.cells) {
        const auto c = sweep.cellConfig(cell);
        std::int64_t stepsPerEpoch = 0;
        const double flops = flopsOf(c, &stepsPerEpoch);
        auto [it, added] = calibrations.try_emplace(calibrationKey(c));
        if (added) {
            it->second = calibrate(c, tmp, int(calibrations.size()));
            it->second.flopsPerSample = flops;
        }
        const Calibration& cal = it->second;
        if (calibrations.size() == 1) *calibrationUs = cal.usPerSample;
        const std::int64_t steps =
            c.train.maxSteps > 0 && (c.train.epochs == 0 || c.train.maxSteps < c.train.epochs * stepsPerEpoch)
                ? c.train.maxSteps
                : c.train.epochs * stepsPerEpoch;
        // A validation at the end, at every validate_every steps and at every epoch's end before it.
        std::int64_t validations = 1;
        if (steps > 0 && c.train.validateEvery > 0) validations += (steps - 1) / c.train.validateEvery;
        if (steps > 0 && stepsPerEpoch > 0) validations += (steps - 1) / stepsPerEpoch;
        const double scale = cal.flopsPerSample > 0 ? flops / cal.flopsPerSample : 1.0;
        out.push_back(cal.fixedSeconds +
                      static_cast<double>(steps * c.train.batchSize) * cal.usPerSample * 1e-6 * scale +
                      static_cast<double>(validations) * cal.validationSeconds * scale);
    }
    return out;
}

int printPlan(const wb::Sweep& sweep, bool jsonOut) {
    double calibrationUs = 0;
    const auto seconds = estimateSeconds(sweep, &calibrationUs);
    double total = 0;
    for (double s : seconds) total += s;
    if (jsonOut) {
        json cells = json::array();
        for (std::size_t i = 0; i < sweep.cells.size(); ++i)
            cells.push_back({{"cell", sweep.describe(sweep.cells[i])}, {"estimated_seconds", seconds[i]}});
        std::cout << json{{"runs", sweep.cells.size()},
                          {"estimated_seconds", total},
                          {"calibration_us_per_sample", calibrationUs},
                          {"cells", cells}}
                         .dump(2)
                  << "\n";
        return 0;
    }
    std::printf("%zu runs (", sweep.cells.size());
    for (std::size_t i = 0; i < sweep.axes.size(); ++i)
        std::printf("%s%s: %zu", i ? " x " : "", sweep.axes[i].field.c_str(), sweep.axes[i].values.size());
    std::printf("%s)\n",
                sweep.repeats > 1 ? (" x " + std::to_string(sweep.repeats) + " repeats").c_str() : "");
    for (std::size_t i = 0; i < sweep.cells.size(); ++i)
        std::printf("  %3zu  %-50s ~%s\n", i + 1, sweep.describe(sweep.cells[i]).c_str(),
                    wb::humanSeconds(seconds[i]).c_str());
    std::printf(
        "estimated %s in all (a 5-step calibration of each kind of cell -- device, threads, batch size -- "
        "scaled by each cell's FLOPs, samples and validations; the first: %.0f us/sample); nothing was "
        "trained or created\n",
        wb::humanSeconds(total).c_str(), calibrationUs);
    if (sweep.hasLinkAxis())
        std::printf("the link is not in the estimate: the calibration runs on this host, over loopback\n");
    return 0;
}

int runCells(const std::string& dir, wb::Sweep& sweep, bool quiet) {
    std::signal(SIGINT, onSweepInterrupt);
    std::signal(SIGTERM, onSweepInterrupt);
    const auto configFile = (fs::path(dir) / ".cell-config.json").string();
    const auto errFile = (fs::path(dir) / ".cell-stderr").string();
    int failed = 0;
    bool paused = false;
    for (std::size_t i = 0; i < sweep.cells.size() && !g_interrupted; ++i) {
        auto& cell = sweep.cells[i];
        if (cell.state == wb::CellState::Done) continue;
        if (g_pauseRequested) {
            paused = true;
            break;
        }
        const auto runDir = (fs::path(dir) / cell.runDir).string();
        if (cell.state == wb::CellState::Running && completedRun(runDir)) {
            // Killed after its run completed, before it was recorded: the run is whole, not trained again.
            cell.state = wb::CellState::Done;
            wb::saveSweep(dir, sweep);
            if (!quiet)
                std::fprintf(stderr, "sweep: %zu/%zu %s had completed; kept\n", i + 1, sweep.cells.size(),
                             sweep.describe(cell).c_str());
            continue;
        }
        std::error_code ec;
        wb::removeAll(runDir, ec);  // what a killed sweep left of this cell is redone from the start
        fs::create_directories(fs::path(runDir).parent_path());
        cell.state = wb::CellState::Running;
        cell.error.clear();
        wb::saveSweep(dir, sweep);
        const auto config = sweep.cellConfig(cell);
        wb::writeFileAtomic(configFile, config.toJson());
        if (!quiet)
            std::fprintf(stderr, "sweep: %zu/%zu %s\n", i + 1, sweep.cells.size(),
                         sweep.describe(cell).c_str());
        const auto link = wb::Sweep::linkOf(cell);
        const auto r = link.empty() ? trainInChild(config.data.corpus, runDir, configFile, errFile)
                                    : trainOverHosts(config.data.corpus, runDir, configFile, errFile, link,
                                                     config.device.processes);
        cell.peakRssBytes = r.peakRssBytes;
        if (r.code == 0) {
            cell.state = wb::CellState::Done;
        } else if (r.code == 130 || g_interrupted) {
            g_interrupted = 1;
            cell.state = wb::CellState::Queued;  // stopped: redone on resume
        } else {
            cell.state = wb::CellState::Failed;
            cell.error = r.firstErrorLine;
            ++failed;
            if (!quiet)
                std::fprintf(stderr, "sweep: %s failed: %s\n", sweep.describe(cell).c_str(),
                             r.firstErrorLine.c_str());
        }
        wb::saveSweep(dir, sweep);
    }
    std::error_code ec;
    fs::remove(configFile, ec);
    fs::remove(errFile, ec);
    wb::writeFileAtomic((fs::path(dir) / wb::kSweepResults).string(), wb::sweepResultsCsv(dir, sweep));
#ifdef WORKBENCH_HAVE_CHARTS
    std::string why;
    if (!wbui::exportSweepFolderPlots(dir, &why))
        std::fprintf(stderr, "sweep: the plots were not written: %s\n", why.c_str());
#endif
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    if (g_interrupted || paused) {
        std::fprintf(stderr, "sweep: %s; `lstm-workbench-cli sweep %s` finishes it\n",
                     paused ? "paused" : "stopped", dir.c_str());
        return 130;
    }
    return failed ? 1 : 0;
}

// A sweep with a link axis runs its cells on hosts made with network namespaces: said before anything is
// made when this machine cannot make them.
void requireHostsForLinks(const wb::Sweep& sweep) {
    if (!sweep.hasLinkAxis()) return;
    const auto why = wbcli::NetworkHosts::unavailableReason();
    if (!why.empty())
        throw wb::InputError(
            "the link axis runs each process on a host of its own, made with network "
            "namespaces on this machine, and " +
            why + ": run the sweep as root with iproute2, or leave out the link axis");
}

}  // namespace

int runSweep(const SweepOptions& o, const wb::ExperimentConfig& base) {
    const PauseSignal pauseSignal;
    wb::Sweep sweep;
    std::string dir;
    if (o.out.empty()) {  // resume
        if (!o.grid.empty()) throw wb::InputError("a sweep folder resumes as planned: leave out --grid");
        if (!wb::isSweepFolder(o.target))
            throw wb::InputError(
                o.target, 0, "not a sweep folder (no sweep.json): give a corpus and --out to start a sweep");
        dir = o.target;
        sweep = wb::loadSweep(dir);
        if (!o.plan) requireHostsForLinks(sweep);
    } else {
        std::vector<wb::SweepAxis> axes;
        for (const auto& g : o.grid) axes.push_back(wb::parseSweepAxis(g));
        auto config = base;
        config.data.corpus = absoluteCorpus(o.target);
        sweep = wb::Sweep::plan(config, axes, o.repeats, o.targetLoss);
        if (!o.plan) requireHostsForLinks(sweep);
        dir = o.out;
        std::error_code ec;
        if (fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec)))
            throw wb::InputError(dir, 0,
                                 "the sweep folder already exists and is not empty (resume it with "
                                 "`lstm-workbench-cli sweep " +
                                     dir + "`, or choose another)");
        if (o.plan) return printPlan(sweep, o.json);
        fs::create_directories(dir);
        wb::saveSweep(dir, sweep);
    }
    if (o.plan) return printPlan(sweep, o.json);
    const int code = runCells(dir, sweep, o.quiet);
    int done = 0;
    for (const auto& c : sweep.cells) done += c.state == wb::CellState::Done;
    if (o.json) {
        std::cout << json{{"sweep_dir", dir},
                          {"runs", sweep.cells.size()},
                          {"done", done},
                          {"results", (fs::path(dir) / wb::kSweepResults).string()}}
                         .dump(2)
                  << "\n";
    } else {
        std::printf("%s: %d of %zu runs done; results in %s\n", dir.c_str(), done, sweep.cells.size(),
                    (fs::path(dir) / wb::kSweepResults).string().c_str());
    }
    return code;
}
