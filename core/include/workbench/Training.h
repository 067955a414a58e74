// The training facade: one TrainingJob trains one experiment on one device into one run folder. It is
// blocking and meant to be called on a worker thread; stop and pause are thread-safe flags checked between
// batches. Progress leaves only through the callbacks, on the calling (worker) thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "workbench/Config.h"
#include "workbench/Corpus.h"
#include "workbench/Distributed.h"
#include "workbench/Metrics.h"

namespace wb {

enum class RunStatus { Created, Running, Completed, Stopped, Failed };
std::string toString(RunStatus s);  // "created" | "running" | "completed" | "stopped" | "failed"
RunStatus runStatusFromString(const std::string& s);

// Throughput and quality, as stored in run.json's "summary".
struct RunSummary {
    std::int64_t steps = 0;
    double epochs = 0;
    std::int64_t samples = 0;
    double trainSeconds = 0;      // wall time of training steps, validation excluded
    double samplesPerSecond = 0;  // warm-up steps excluded
    double usPerSample = 0;
    double tokensPerSecond = 0;
    double finalTrainLoss = 0;
    double bestValLoss = 0;      // 0 when never validated
    double bestValAccuracy = 0;  // classifier only
    double finalValLoss = 0;
    double finalValAccuracy = 0;
    std::int64_t parameters = 0;
};

struct TrainingProgress {
    std::string phase;  // "preparing" | "training" | "validating" | "checkpointing" | "done"
    std::int64_t step = 0;
    std::int64_t totalSteps = 0;  // planned steps (epochs x steps per epoch, or max steps)
    double epoch = 0;
    std::int64_t samples = 0;
    double wallSeconds = 0;
    double etaSeconds = -1;  // -1 while unknown
    double lastTrainLoss = 0;
    double samplesPerSecond = 0;
};

struct TrainingCallbacks {
    std::function<void(const std::vector<MetricRecord>&)> onMetrics;  // new records, in order
    std::function<void(const TrainingProgress&)> onProgress;          // at most a few times a second
    std::function<void(const std::string&)> onLog;                    // human-readable lines
};

class TrainingJob {
public:
    // A new run: validates config (InputError), loads the corpus unless one is given, builds the vocabulary
    // and the datasets. Creates runDir only when run() starts, so bad input leaves nothing behind.
    TrainingJob(ExperimentConfig config, std::string runDir, std::shared_ptr<const Corpus> corpus = nullptr);
    // Continues a saved run from its last checkpoint. epochs, maxSteps and learningRate replace the stored
    // values when > 0 (a lower rate is the cure for a run that diverged: it resumes from the last good
    // checkpoint).
    // processes > 0 replaces the stored number of data-parallel processes (any number resumes any run).
    static std::unique_ptr<TrainingJob> resume(const std::string& runDir, std::int64_t epochs = 0,
                                               std::int64_t maxSteps = 0, double learningRate = 0,
                                               std::int64_t processes = 0);
    // Rank r > 0 of a data-parallel job (workbench/Distributed.h): joins rank 0's store, takes the config,
    // vocabulary and progress from it, loads the corpus (this machine's path when `corpus` is given) and
    // prepares the data. Its run() trains its shards and writes nothing. Throws InputError / TrainingError
    // (bad variables, a WORLD_SIZE that differs from rank 0's, an unreachable rank 0).
    static std::unique_ptr<TrainingJob> joinAsWorker(const DistributedSpec& spec,
                                                     const std::string& corpus = {});
    // Makes this job rank 0 of a job whose processes were started outside (torchrun, or by hand): it hosts
    // the store at spec.masterAddr:masterPort instead of starting config.device.processes local processes.
    // Call before run(); spec.rank must be 0.
    void joinAsRankZero(const DistributedSpec& spec);
    ~TrainingJob();
    TrainingJob(const TrainingJob&) = delete;
    TrainingJob& operator=(const TrainingJob&) = delete;

    // Trains until the epochs/steps are done, early stopping fires, or stop is requested. Saves a
    // checkpoint at every validation and at the end; writes metrics.csv and run.json as it goes.
    // Throws TrainingError (NaN loss, out of memory, failed write) after marking the run failed; the last
    // good checkpoint stays.
    RunSummary run(const TrainingCallbacks& callbacks = {});

    // Thread-safe; run() returns within one batch with status Stopped (a data-parallel run: within logEvery
    // batches, when the ranks next vote).
    void requestStop();
    // Thread-safe; run() blocks between batches while paused (not a data-parallel run: it says so and goes
    // on).
    void setPaused(bool paused);
    bool paused() const;

    const ExperimentConfig& config() const;
    const std::string& runDir() const;
    std::string runId() const;
    std::int64_t vocabularySize() const;
    std::int64_t classCount() const;  // 0 for language models
    std::int64_t stepsPerEpoch() const;
    RunStatus status() const;
    int rank() const;       // 0 unless joined as a worker
    int worldSize() const;  // processes of the run

private:
    TrainingJob();
    struct Impl;
    std::unique_ptr<Impl> m;
};

// Learning-rate finder: an exponential sweep from minLr to maxLr over `steps` steps on a fresh model;
// the suggestion is the rate of steepest loss descent (smoothed), a decade below where loss explodes.
struct LrFinderResult {
    std::vector<double> rates;
    std::vector<double> losses;  // smoothed
    double suggestedRate = 0;
};
LrFinderResult findLearningRate(const ExperimentConfig& config, const Corpus& corpus, double minLr = 1e-5,
                                double maxLr = 1.0, int steps = 60,
                                const std::function<bool()>& cancelled = {});

// Batch-size finder: doubles the batch from `start` while a training step succeeds (fits in memory) up
// to `limit`, timing a few steps of each; reports the largest that fits and the fastest per sample.
struct BatchSizeResult {
    std::vector<std::int64_t> sizes;
    std::vector<double> usPerSample;
    std::int64_t largestFitting = 0;
    std::int64_t fastest = 0;
};
BatchSizeResult findBatchSize(const ExperimentConfig& config, const Corpus& corpus, std::int64_t start = 8,
                              std::int64_t limit = 1024, const std::function<bool()>& cancelled = {});

}  // namespace wb
