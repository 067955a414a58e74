// How long runs will take, before they start: the time model behind `sweep --plan`, the Sweep tab's
// Estimate and the Experiment page's estimate of a run on each ticked device (docs/benchmarks.md, "Sweep
// estimate"). One short run of each kind of run (the same device, processes, threads, batch size,
// precision, thread split and backend train alike) is timed through a launcher, as a cell would be, and
// scaled by each run's FLOPs per sample, samples and validations, plus what a run costs besides its steps
// (the process, the corpus, the vocabulary, the n-gram baseline, the checkpoints).
#pragma once

#include <vector>

#include "workbench/domain/Config.h"
#include "workbench/engine/SweepRun.h"

namespace wb {

struct RunsEstimate {
    std::vector<double> seconds;        // one per run, in order
    double total = 0;                   // their sum: the runs one after another
    double calibrationUsPerSample = 0;  // the first calibration's
};

// Throws InputError for a bad config or corpus and TrainingError when a calibration run fails; a launcher
// told to stop() ends it with TrainingError("the estimate was stopped").
RunsEstimate estimateRuns(const std::vector<ExperimentConfig>& runs, CellLauncher& launcher);
// The cells of a sweep, in order.
RunsEstimate estimateSweep(const Sweep& sweep, CellLauncher& launcher);

// While a sweep runs: its wall time per cell finished since it started (or resumed, with doneAtStart cells
// done), times the cells left; < 0 before a cell finished.
double secondsLeft(const Sweep& sweep, int doneAtStart, double elapsedSeconds);

}  // namespace wb
