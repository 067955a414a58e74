// The training facade: one TrainingJob trains one experiment on one device into one run folder. It is
// blocking and meant to be called on a worker thread; stop and pause are thread-safe flags checked between
// batches. Progress leaves only through the callbacks, on the calling (worker) thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "workbench/domain/Config.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/Metrics.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/TokenStore.h"
#include "workbench/engine/Distributed.h"

namespace wb {

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
    double phaseFraction =
        -1;  // how far a phase with its own measure is (0..1; the app's "tokenizing"), else -1
};

struct TrainingCallbacks {
    std::function<void(const std::vector<MetricRecord>&)> onMetrics;  // new records, in order
    std::function<void(const TrainingProgress&)> onProgress;          // at most a few times a second
    std::function<void(const std::string&)> onLog;                    // human-readable lines
};

class TrainingJob {
public:
    // A new run: validates config (InputError), opens the corpus's token store or tokenizes the corpus into
    // one (workbench/domain/TokenStore.h; a corpus given in memory is encoded in memory), and checks that
    // training fits in memory. `tokenizing` hears the tokenization's progress and may cancel it (Cancelled is
    // thrown). Creates runDir only when run() starts, so bad input leaves nothing behind.
    TrainingJob(ExperimentConfig config, std::string runDir, std::shared_ptr<const Corpus> corpus = nullptr,
                const TokenizeProgress& tokenizing = {});
    // Continues a saved run from its last checkpoint. epochs, maxSteps and learningRate replace the stored
    // values when > 0 (a lower rate is the cure for a run that diverged: it resumes from the last good
    // checkpoint).
    // processes > 0 replaces the stored number of data-parallel processes (any number resumes any run).
    static std::unique_ptr<TrainingJob> resume(const std::string& runDir, std::int64_t epochs = 0,
                                               std::int64_t maxSteps = 0, double learningRate = 0,
                                               std::int64_t processes = 0);
    // Rank r > 0 of a data-parallel job (workbench/engine/Distributed.h): joins rank 0's store, takes the
    // config, vocabulary and progress from it, loads the corpus (this machine's path when `corpus` is given)
    // and prepares the data. Its run() trains its shards and writes nothing. Throws InputError /
    // TrainingError (bad variables, a WORLD_SIZE that differs from rank 0's, an unreachable rank 0).
    static std::unique_ptr<TrainingJob> joinAsWorker(const DistributedSpec& spec,
                                                     const std::string& corpus = {});
    // Makes this job rank 0 of a job whose processes were started outside (torchrun, or by hand): it hosts
    // the store at spec.masterAddr:masterPort instead of starting config.device.spec.processes local
    // processes. Call before run(); spec.rank must be 0.
    void joinAsRankZero(const DistributedSpec& spec);
    // How the run's length was fitted to a time budget (fitToSeconds, workbench/engine/SweepEstimate.h), for
    // run.json's "plan". Call before run(); a resumed run keeps the plan its folder holds.
    void setPlan(const RunPlan& plan);
    // The run's number as the app showed it while the run was queued: kept when no run beside it has taken it
    // meanwhile (runNumberFor), else the next free one. Call before run().
    void reserveNumber(std::int64_t number);
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
    std::int64_t stepsDone() const;  // before run(): 0 for a new run, the checkpoint's step for a resumed one
    int rank() const;                // 0 unless joined as a worker
    int worldSize() const;           // processes of the run

private:
    TrainingJob();
    struct Impl;
    std::unique_ptr<Impl> m;
};

// Learning-rate finder: an exponential sweep from minLr to maxLr over `steps` steps on a fresh model;
// the suggestion is the rate of steepest loss descent (smoothed), before the loss's minimum.
struct LrFinderResult {
    std::vector<double> rates;
    std::vector<double> losses;  // smoothed
    double suggestedRate = 0;    // 0 until the sweep ends (and when it found no finite loss)
};
struct LrFinderOptions {
    double minLr = 1e-5;
    double maxLr = 1.0;
    int steps = 60;
    std::function<bool()> cancelled;                     // asked before each step
    std::function<void(const LrFinderResult&)> onPoint;  // the sweep so far, after each step
};
LrFinderResult findLearningRate(const ExperimentConfig& config, const Corpus& corpus,
                                const LrFinderOptions& options = {});
// The same on a corpus's token store (a corpus on disk, read as training reads it).
LrFinderResult findLearningRate(const ExperimentConfig& config, std::shared_ptr<const TokenStore> store,
                                const LrFinderOptions& options = {});
// The finder's rule on its own (the finder and its dialog's tests apply it to a sweep).
double suggestLearningRate(const std::vector<double>& rates, const std::vector<double>& losses);

// Batch-size finder: doubles the batch from `start`, timing a few training steps of each, while the step
// fits in memory, the size is at most `limit`, and an epoch of the corpus still has `minStepsPerEpoch`
// steps (a batch as large as the corpus trains one step per epoch: fast per sample, but it learns little
// per epoch). It recommends the smallest size within kBatchSizeTolerance of the fastest per sample: as fast
// within the timing's noise, and more updates per epoch.
struct BatchSizeResult {
    enum class Stop { Limit, Corpus, Memory, Cancelled };
    std::vector<std::int64_t> sizes;
    std::vector<double> usPerSample;
    std::vector<std::int64_t> stepsPerEpoch;
    std::int64_t trainSamples = 0;  // sequences or documents in the training split
    std::int64_t corpusCap = 0;     // the largest batch that leaves minStepsPerEpoch steps per epoch
    std::int64_t largestTimed = 0;  // every size timed fit in memory
    std::int64_t fastest = 0;       // the fastest per sample
    std::int64_t recommended = 0;
    Stop stoppedBy = Stop::Limit;  // why no larger size was timed
};
inline constexpr double kBatchSizeTolerance = 0.05;
struct BatchSizeOptions {
    std::int64_t start = 8;
    std::int64_t limit = 1024;
    std::int64_t minStepsPerEpoch = 20;
    std::function<bool()> cancelled;  // asked before each size
    // A size is about to be timed; the result so far (with the corpus's cap) comes with it.
    std::function<void(std::int64_t size, const BatchSizeResult& soFar)> onTrialStart;
    std::function<void(const BatchSizeResult&)> onTrial;  // the table so far, after each size
};
BatchSizeResult findBatchSize(const ExperimentConfig& config, const Corpus& corpus,
                              const BatchSizeOptions& options = {});
BatchSizeResult findBatchSize(const ExperimentConfig& config, std::shared_ptr<const TokenStore> store,
                              const BatchSizeOptions& options = {});

}  // namespace wb
