// A sweep: one experiment trained over a grid of settings (devices x batch sizes x model sizes …), each cell
// an ordinary run folder, the whole grid one folder that a killed sweep resumes from:
//
//   SWEEP_DIR/sweep.json     the base config, the axes, the cells in order and each cell's state
//   SWEEP_DIR/runs/NNN-…/    one run folder per cell and repeat (openable in the app like any run)
//   SWEEP_DIR/results.csv    one row per run and one aggregate row per cell (mean and std over repeats)
//
// Axes are config fields by name (workbench/ConfigFields.h: batch_size, hidden, seq_len, lr, device,
// processes, …), and one that is not a field: `link`, the network between a cell's processes. A link cell
// runs each process on a host of its own, made with network namespaces on this machine and joined by links
// shaped to the value's rate ("100mbit", "1gbit") or left unshaped ("unshaped"); it needs processes ≥ 2 and,
// to run, root (the CLI checks). This header is plain data and files; running a cell is the CLI's business
// (app/cli).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workbench/Config.h"

namespace wb {

struct SweepAxis {
    std::string field;                // the config field's key ("batch_size")
    std::vector<std::string> values;  // as given ("16", "32")
};

// "batch_size=16,32,64" (also "--grid lr=1e-3,3e-3"); throws InputError naming the axis or the value.
SweepAxis parseSweepAxis(const std::string& text);

inline constexpr const char* kLinkAxis = "link";
inline constexpr const char* kUnshapedLink = "unshaped";
inline constexpr const char* kLinkAxisHelp =
    "The network between the processes: each process on a host of its own (a network namespace on this "
    "machine, as root), the links shaped to a rate such as 100mbit or 1gbit, or unshaped";
// A link axis value: "unshaped", or a rate in tc's notation, a positive number then kbit, mbit or gbit.
bool isLinkValue(const std::string& value);

enum class CellState { Queued, Running, Done, Failed };
std::string toString(CellState s);  // "queued" | "running" | "done" | "failed"

struct SweepCell {
    int index = 0;                                             // position in the grid (0-based)
    std::vector<std::pair<std::string, std::string>> setting;  // field key -> value, one per axis
    int repeat = 0;      // 0 .. repeats-1 (the seed is base seed + repeat)
    std::string runDir;  // relative to the sweep folder: "runs/003-…"
    CellState state = CellState::Queued;
    std::string error;              // why it failed
    std::int64_t peakRssBytes = 0;  // of the process that trained it
};

struct Sweep {
    ExperimentConfig base;
    std::vector<SweepAxis> axes;
    int repeats = 1;
    double targetLoss =
        0;  // for the time-to-target column; 0 = the highest best loss of the runs (all reach it)
    std::vector<SweepCell> cells;

    // The grid: every combination of the axes' values (the first axis varies slowest), times the repeats.
    // Every cell's config is validated first: a bad value throws InputError naming the axis and the value.
    static Sweep plan(const ExperimentConfig& base, const std::vector<SweepAxis>& axes, int repeats,
                      double targetLoss);
    ExperimentConfig cellConfig(const SweepCell& cell) const;  // the config fields' axes applied
    // The cell's link ("unshaped", "100mbit"), or "" when the sweep has no link axis.
    static std::string linkOf(const SweepCell& cell);
    bool hasLinkAxis() const;
    std::string describe(const SweepCell& cell) const;  // "batch_size=32 device=cpu:2 (repeat 2)"

    std::string toJson() const;
    static Sweep fromJson(const std::string& json, const std::string& sourceName);
};

inline constexpr const char* kSweepFile = "sweep.json";
inline constexpr const char* kSweepResults = "results.csv";
bool isSweepFolder(const std::string& dir);  // has sweep.json
Sweep loadSweep(const std::string& dir);
void saveSweep(const std::string& dir, const Sweep& sweep);  // atomically

// A measurement over a cell's repeats: mean and sample standard deviation (0 for one value); absent when no
// run of the cell has it (no run reached the target, say).
struct SweepMeasure {
    double mean = 0, std = 0;
    bool present = false;
};

// One row of results.csv: a finished run ("run" rows; std is 0) or a grid point (a "cell" row: mean and
// standard deviation over its finished repeats).
struct SweepResultRow {
    bool aggregate = false;           // a cell row
    int cell = 0;                     // the cell's index in the grid
    int repeat = 0;                   // 1-based in run rows; 0 in cell rows
    std::vector<std::string> values;  // the axes' values, in the axes' order
    std::string status;               // run rows: "done"; cell rows: "done", "failed" or "incomplete"
    int runs = 0;                     // finished runs behind the row
    SweepMeasure samplesPerSecond, usPerSample, secondsToTarget, bestValLoss, bestValAccuracy, trainSeconds;
    // Character language models: the best val loss in bits per character, and the run's n-gram baseline
    // on the same validation windows (baseline.json); absent for other runs.
    SweepMeasure bestValBpc, baselineBpc;
    double peakRssMb = 0;
    double peakGpuMb = 0;  // run.json's peak_gpu_memory_bytes (rank 0's GPU); 0 on a CPU
    std::int64_t threads = 0, processes = 1;
    std::string runDir;  // run rows: relative to the sweep folder
    double samples = 0;  // trained samples (mean over repeats in cell rows)
    // Why its speed is not its own: it trained at the same time as another run on the same host
    // (overlappingRuns; in cell rows, any of its repeats did). "" when nothing overlapped.
    std::string overlap;
};

struct SweepResults {
    std::vector<std::string> axes;  // the axes' field keys
    double targetLoss = 0;          // the one the seconds-to-target columns use
    std::vector<SweepResultRow> runs, cells;

    // results.csv. Columns: kind, cell, repeat (empty in cell rows), one per axis, status, runs,
    // samples_per_s(_std), us_per_sample(_std), seconds_to_target(_std), best_val_loss(_std),
    // best_val_accuracy(_std), peak_rss_mb, threads, processes, run_dir, train_seconds(_std) (run.json's
    // training time), samples (trained), best_val_bpc(_std), baseline_bpc(_std), peak_gpu_mb.
    std::string toCsv() const;
};

// The results of the cells whose state is Done, read from their run folders. Runs of one sweep share one
// target loss: the sweep's, or when it has none the highest best loss of the runs (the one all reached).
SweepResults sweepResults(const std::string& dir, const Sweep& sweep);
inline std::string sweepResultsCsv(const std::string& dir, const Sweep& sweep) {
    return sweepResults(dir, sweep).toCsv();
}

}  // namespace wb
