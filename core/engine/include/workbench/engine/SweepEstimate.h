// How long runs will take, before they start: the time model behind `sweep --plan`, the Sweep tab's
// Estimate and the Experiment page's estimate of a run on each ticked device (docs/benchmarks.md, "Sweep
// estimate"). One short run of each kind of run (the same device, processes, threads, batch size,
// precision, thread split and backend train alike) is timed through a launcher, as a cell would be, and
// scaled by each run's FLOPs per sample, samples and validations, plus what a run costs besides its steps
// (the process, the corpus, the vocabulary, the n-gram baseline, the checkpoints).
#pragma once

#include <utility>
#include <vector>

#include "workbench/domain/Config.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/SweepRun.h"

namespace wb {

// One run's time as the model scales it from its calibration: what the run costs besides its steps and
// validations, each step, each validation; and how many steps an epoch has (a validation ends each).
struct RunTimeModel {
    double fixedSeconds = 0, secondsPerStep = 0, secondsPerValidation = 0;
    std::int64_t stepsPerEpoch = 0;
    // The steps a run of these settings trains and the validations it makes.
    std::pair<std::int64_t, std::int64_t> stepsAndValidations(const TrainConfig& train) const;
    double seconds(const TrainConfig& train) const;
};

struct RunsEstimate {
    std::vector<double> seconds;        // one per run, in order
    std::vector<RunTimeModel> models;   // one per run, in order
    double total = 0;                   // their sum: the runs one after another
    double calibrationUsPerSample = 0;  // the first calibration's
};

// A run cut to fit `budgetSeconds` by its time model: max_steps set to the most steps whose estimate fits (at
// least one more than the learning-rate warm-up, so that it learns at all), the plan saying so. A run whose
// estimate is within `slack` of the budget (1.1: up to 11 minutes for 10) is left as it is, and its plan is
// not fitted().
RunPlan fitToSeconds(ExperimentConfig& config, const RunTimeModel& model, double budgetSeconds,
                     double calibrationUsPerSample, double slack = 1.1);

// Throws InputError for a bad config or corpus and TrainingError when a calibration run fails; a launcher
// told to stop() ends it with TrainingError("the estimate was stopped").
RunsEstimate estimateRuns(const std::vector<ExperimentConfig>& runs, CellLauncher& launcher);
// The cells of a sweep, in order.
RunsEstimate estimateSweep(const Sweep& sweep, CellLauncher& launcher);

// While a sweep runs: its wall time per cell finished since it started (or resumed, with doneAtStart cells
// done), times the cells left; < 0 before a cell finished.
double secondsLeft(const Sweep& sweep, int doneAtStart, double elapsedSeconds);

}  // namespace wb
