// The time model (see workbench/engine/SweepEstimate.h).
#include "workbench/engine/SweepEstimate.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>

#include "workbench/domain/ConfigFields.h"
#include "workbench/domain/CorpusCatalog.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/ModelSummary.h"
#include "workbench/domain/RemoveAll.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Training.h"

namespace fs = std::filesystem;

namespace wb {

namespace {

// What a short run of a kind of run measures: microseconds per training sample, seconds of one validation,
// and the seconds a run costs besides its steps and validations.
struct Calibration {
    double usPerSample = 0, validationSeconds = 0, fixedSeconds = 0, flopsPerSample = 0;
};

// Runs that train alike: the same device, processes, threads, batch size, precision, thread split, backend.
std::string calibrationKey(const ExperimentConfig& c) {
    return c.device.spec.id() + "|" + std::to_string(c.device.spec.processes) + "|" +
           std::to_string(c.device.spec.threads) + "|" + std::to_string(c.train.batchSize) + "|" +
           toString(c.device.precision) + "|" + toString(c.device.threadSplit) + "|" +
           configField("backend").get(c);
}

constexpr std::int64_t kCalibrationSteps = 5;

// A few steps of the run through the launcher, as a cell runs: its wall time, the run's own clock for the
// steps (trainSeconds) and for the steps and the one validation at the end (the last record's wall time).
Calibration calibrate(ExperimentConfig config, const fs::path& tmp, int index, CellLauncher& launcher) {
    config.train.epochs = 0;
    config.train.maxSteps = config.train.warmupSteps + kCalibrationSteps;
    config.train.validateEvery = 0;  // one validation, at the end
    const fs::path dir = tmp / std::to_string(index);
    fs::create_directories(dir);
    writeFileAtomic((dir / "config.json").string(), config.toJson());
    const auto start = std::chrono::steady_clock::now();
    launcher.start({config.data.corpus, (dir / "run").string(), (dir / "config.json").string(),
                    (dir / "stderr").string(), "", config.device.spec.processes});
    const CellEnd end = launcher.waitForAnEnd().second;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (end.code == kStoppedCode) throw TrainingError("the estimate was stopped");
    if (end.code != 0) throw TrainingError("the calibration run failed: " + end.error);
    const auto record = loadRunFolder((dir / "run").string());
    double lastRecord = 0;
    for (const auto& m : record.metrics) lastRecord = std::max(lastRecord, m.wallSeconds);
    Calibration c;
    c.usPerSample = record.info.summary.usPerSample;
    c.validationSeconds = std::max(0.0, lastRecord - record.info.summary.trainSeconds);
    // The warm-up steps are in the run's clock but not in its µs per sample: they count as fixed cost.
    c.fixedSeconds = std::max(0.0, wall - lastRecord) +
                     std::max(0.0, record.info.summary.trainSeconds -
                                       c.usPerSample * 1e-6 * static_cast<double>(kCalibrationSteps) *
                                           static_cast<double>(config.train.batchSize));
    return c;
}

}  // namespace

// One at the end, one every validate_every steps and one at every epoch's end before it.
std::pair<std::int64_t, std::int64_t> RunTimeModel::stepsAndValidations(const TrainConfig& t) const {
    const std::int64_t steps = t.maxSteps > 0 && (t.epochs == 0 || t.maxSteps < t.epochs * stepsPerEpoch)
                                   ? t.maxSteps
                                   : t.epochs * stepsPerEpoch;
    std::int64_t validations = 1;
    if (steps > 0 && t.validateEvery > 0) validations += (steps - 1) / t.validateEvery;
    if (steps > 0 && stepsPerEpoch > 0) validations += (steps - 1) / stepsPerEpoch;
    return {steps, validations};
}

double RunTimeModel::seconds(const TrainConfig& train) const {
    const auto [steps, validations] = stepsAndValidations(train);
    return fixedSeconds + static_cast<double>(steps) * secondsPerStep +
           static_cast<double>(validations) * secondsPerValidation;
}

RunPlan fitToSeconds(ExperimentConfig& config, const RunTimeModel& model, double budgetSeconds,
                     double calibrationUsPerSample, double slack) {
    RunPlan plan;
    const double asked = model.seconds(config.train);
    if (budgetSeconds <= 0 || asked <= budgetSeconds * slack) return plan;
    const std::int64_t stepsAsked = model.stepsAndValidations(config.train).first;
    // The estimate grows with the steps: the most that fit, by bisection.
    TrainConfig t = config.train;
    const auto fits = [&](std::int64_t steps) {
        t.maxSteps = steps;
        return model.seconds(t) <= budgetSeconds;
    };
    std::int64_t lo = std::min(stepsAsked, std::max<std::int64_t>(1, config.train.lrWarmupSteps + 1));
    std::int64_t hi = stepsAsked;
    while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo + 1) / 2;
        if (fits(mid))
            lo = mid;
        else
            hi = mid - 1;
    }
    config.train.maxSteps = lo;
    // The learning rates of the run asked for: on the default experiment, 1400 steps decayed to 0 ended at
    // 7.389 bits per character, above its 5-gram's 7.361; the same steps at the 4200-step schedule's rates
    // ended at 7.110 (docs/benchmarks.md, "The first run fitted to the machine").
    if (config.train.lrSchedule == LrSchedule::Cosine)
        config.train.lrScheduleSteps = std::max(config.train.lrScheduleSteps, stepsAsked);
    plan.budgetSeconds = budgetSeconds;
    plan.steps = lo;
    plan.stepsAsked = stepsAsked;
    plan.estimatedSeconds = model.seconds(config.train);
    plan.calibrationUsPerSample = calibrationUsPerSample;
    return plan;
}

RunsEstimate estimateRuns(const std::vector<ExperimentConfig>& runs, CellLauncher& launcher) {
    RunsEstimate out;
    if (runs.empty()) return out;
    static std::atomic<int> made{0};  // two estimates at once in one process never share a folder
    const auto tmp = fs::temp_directory_path() /
                     ("lstm-workbench-plan-" + std::to_string(getpid()) + "-" + std::to_string(made++));
    fs::create_directories(tmp);
    struct Cleanup {
        fs::path p;
        ~Cleanup() {
            std::error_code ec;
            removeAll(p, ec);
        }
    } cleanup{tmp};
    const auto corpus = std::make_shared<const Corpus>(
        loadCorpus(resolveCorpusPath(runs.front().data.corpus), runs.front().data.format));
    std::map<std::string, Calibration> calibrations;
    for (const auto& c : runs) {
        // The corpus is read once; a run of another corpus (never in a sweep) reads its own.
        const auto runCorpus =
            c.data.corpus == runs.front().data.corpus && c.data.format == runs.front().data.format
                ? corpus
                : std::make_shared<const Corpus>(loadCorpus(resolveCorpusPath(c.data.corpus), c.data.format));
        TrainingJob job(c, (tmp / "never-created").string(), runCorpus);
        const std::int64_t stepsPerEpoch = job.stepsPerEpoch();
        const double flops =
            summarizeModel(job.config(), job.vocabularySize(), job.classCount()).trainFlopsPerSample;
        auto [it, added] = calibrations.try_emplace(calibrationKey(c));
        if (added) {
            it->second = calibrate(c, tmp, int(calibrations.size()), launcher);
            it->second.flopsPerSample = flops;
        }
        const Calibration& cal = it->second;
        if (calibrations.size() == 1) out.calibrationUsPerSample = cal.usPerSample;
        const double scale = cal.flopsPerSample > 0 ? flops / cal.flopsPerSample : 1.0;
        RunTimeModel model;
        model.fixedSeconds = cal.fixedSeconds;
        model.secondsPerStep = static_cast<double>(c.train.batchSize) * cal.usPerSample * 1e-6 * scale;
        model.secondsPerValidation = cal.validationSeconds * scale;
        model.stepsPerEpoch = stepsPerEpoch;
        out.models.push_back(model);
        out.seconds.push_back(model.seconds(c.train));
        out.total += out.seconds.back();
    }
    return out;
}

RunsEstimate estimateSweep(const Sweep& sweep, CellLauncher& launcher) {
    std::vector<ExperimentConfig> runs;
    for (const auto& cell : sweep.cells) runs.push_back(sweep.cellConfig(cell));
    return estimateRuns(runs, launcher);
}

double secondsLeft(const Sweep& sweep, int doneAtStart, double elapsedSeconds) {
    const int done = sweep.count(CellState::Done), total = int(sweep.cells.size());
    if (done <= doneAtStart || done >= total) return -1;
    const double perCell = elapsedSeconds / double(done - doneAtStart);
    return perCell * double(total - done - sweep.count(CellState::Failed));
}

}  // namespace wb
