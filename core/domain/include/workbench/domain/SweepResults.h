// What a sweep measured: one row per finished run and one per grid point (mean and standard deviation over
// its repeats), in results.csv and in the Sweep tab's result table.
//
// The measured columns are one table, sweepColumns(): each says its results.csv header, its title in the
// Sweep tab, its decimals and how to read it from a finished run. results.csv, the tab and the cell rows'
// means all follow the table, so a new column is one row there and nothing in the ui.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "workbench/domain/RunFolder.h"
#include "workbench/domain/Sweep.h"

namespace wb {

// A measurement over a cell's repeats: mean and sample standard deviation (0 for one value); absent when no
// run of the cell has it (no run reached the target, say).
struct SweepMeasure {
    double mean = 0, std = 0;
    bool present = false;
};

// What a finished run offers a column: the cell it trained, its folder as read, and its row of the
// comparison of all the sweep's finished runs (one target loss, the overlap with other runs).
struct SweepRunView {
    const SweepCell& cell;
    const RunRecord& record;
    const ComparisonRow& compared;
};

struct SweepColumn {
    std::string key;  // results.csv's header ("samples_per_s"); a spread column adds key + "_std"
    std::string
        title;         // the Sweep tab's header; "{target}" stands for the target loss ("s to loss {target}")
    int decimals = 0;  // in the tab
    bool spread = true;  // cell rows carry the standard deviation over repeats; run rows leave it empty
    bool speed =
        false;  // a speed: flagged where the run shared its machine with another (SweepResultRow::overlap)
    bool shown = true;  // a column of the Sweep tab (results.csv has every column)
    std::function<std::optional<double>(const SweepRunView&)> read;  // nullopt: the run has none
};

// The measured columns in results.csv's order. A test may add one and must take it back out.
std::vector<SweepColumn>& sweepColumns();
// The keys of the columns other code reads by name.
namespace sweepcolumn {
inline constexpr const char* kSamplesPerSecond = "samples_per_s";
inline constexpr const char* kTrainSeconds = "train_seconds";
inline constexpr const char* kBestValLoss = "best_val_loss";
}  // namespace sweepcolumn

// One row of results.csv: a finished run ("run" rows; std is 0) or a grid point (a "cell" row: mean and
// standard deviation over its finished repeats).
struct SweepResultRow {
    bool aggregate = false;           // a cell row
    int cell = 0;                     // the cell's index in the grid
    int repeat = 0;                   // 1-based in run rows; 0 in cell rows
    std::vector<std::string> values;  // the axes' values, in the axes' order
    std::string status;               // run rows: "done"; cell rows: "done", "failed" or "incomplete"
    int runs = 0;                     // finished runs behind the row
    std::map<std::string, SweepMeasure> measures;  // by SweepColumn::key
    std::string runDir;                            // run rows: relative to the sweep folder
    // Why its speed is not its own: it trained at the same time as another run on the same host
    // (overlappingRuns; in cell rows, any of its repeats did). "" when nothing overlapped.
    std::string overlap;

    SweepMeasure measure(const std::string& key) const;  // absent when the row has none
};

struct SweepResults {
    std::vector<std::string> axes;     // the axes' field keys
    double targetLoss = 0;             // the one the seconds-to-target columns use
    std::vector<SweepColumn> columns;  // sweepColumns() when the results were read
    std::vector<SweepResultRow> runs, cells;

    // The run row of a cell's repeat (0-based, as SweepCell::repeat); nullptr when it has not finished.
    const SweepResultRow* runOf(int cell, int repeat) const;
    // The column's title with the target loss written in.
    std::string title(const SweepColumn& column) const;
    // results.csv: kind, cell, repeat (empty in cell rows), one column per axis, status, runs, then each
    // measured column (with its _std beside a spread one), then run_dir.
    std::string toCsv() const;
};

// The results of the cells whose state is Done, read from their run folders. Runs of one sweep share one
// target loss: the sweep's, or when it has none the highest best loss of the runs (the one all reached).
SweepResults sweepResults(const std::string& dir, const Sweep& sweep);
inline std::string sweepResultsCsv(const std::string& dir, const Sweep& sweep) {
    return sweepResults(dir, sweep).toCsv();
}

}  // namespace wb
