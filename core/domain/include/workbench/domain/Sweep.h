// A sweep: one experiment trained over a grid of settings (devices x batch sizes x model sizes …), each cell
// an ordinary run folder, the whole grid one folder that a killed sweep resumes from:
//
//   SWEEP_DIR/sweep.json     the base config, the axes, the cells in order and each cell's state
//   SWEEP_DIR/runs/NNN-…/    one run folder per cell and repeat (openable in the app like any run)
//   SWEEP_DIR/results.csv    one row per run and one aggregate row per cell (mean and std over repeats)
//
// Axes are config fields by name (workbench/domain/ConfigFields.h: batch_size, hidden, seq_len, lr, device,
// processes, …), and one that is not a field: `link`, the network between a cell's processes. A link cell
// runs each process on a host of its own, made with network namespaces on this machine and joined by links
// shaped to the value's rate ("100mbit", "1gbit") or left unshaped ("unshaped"); it needs processes ≥ 2 and,
// to run, root (the launcher checks). This header is plain data and files, without LibTorch (it is fuzzed);
// running the cells and estimating their time is the engine's workbench/engine/SweepRun.h and
// workbench/engine/SweepEstimate.h. What a finished sweep measured is workbench/domain/SweepResults.h; its
// pictures workbench/domain/SweepPlots.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workbench/domain/Config.h"

namespace wb {

struct SweepAxis {
    std::string field;                // the config field's key ("batch_size")
    std::vector<std::string> values;  // as given ("16", "32")
};

// "batch_size=16,32,64" (also "--grid lr=1e-3,3e-3"); throws InputError naming the axis or the value.
SweepAxis parseSweepAxis(const std::string& text);
// An axis as a form gives it: the field's name as typed ("lr") made its key ("learning_rate"), the values
// checked as parseSweepAxis checks them.
SweepAxis checkSweepAxis(const SweepAxis& axis);

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
    // A cell started on a cluster: the scheduler's word for it while it is Running in the sweep's terms
    // ("pending (Resources)", "running"); "" on this machine and once it ended.
    std::string scheduler;
    // What the Sweep tab's cell table says: the state, or for a cell on a cluster the scheduler's word.
    std::string shownState() const;
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
    int count(CellState state) const;                   // the cells in that state

    std::string toJson() const;
    static Sweep fromJson(const std::string& json, const std::string& sourceName);
};

inline constexpr const char* kSweepFile = "sweep.json";
inline constexpr const char* kSweepResults = "results.csv";
bool isSweepFolder(const std::string& dir);  // has sweep.json
Sweep loadSweep(const std::string& dir);
void saveSweep(const std::string& dir, const Sweep& sweep);  // atomically

}  // namespace wb
