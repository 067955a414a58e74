// The learning-rate finder and the batch-size finder (see Training.h). Both train a fresh copy of the
// experiment's model on its real data, never the user's run.
#include <chrono>
#include <cmath>
#include <limits>

#include "data/TextDatasets.h"
#include "device/DeviceSetup.h"
#include "train/TrainingStep.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/ModelSummary.h"
#include "workbench/domain/TokenStore.h"
#include "workbench/engine/Devices.h"
#include "workbench/engine/Training.h"

namespace wb {

namespace {
struct FinderData {
    ExperimentConfig config;
    PreparedData data;
    torch::Device device{torch::kCPU};
    std::int64_t outputs = 0;
    std::unique_ptr<CpuThreadsScope> threads;  // the finder's threads, the previous ones back when it ends
};

FinderData prepare(const ExperimentConfig& config, std::shared_ptr<const TokenStore> store) {
    config.ensureValid();
    FinderData f;
    f.config = config;
    settleDeviceSettings(f.config);  // the finders time steps in the precision the run would train in
    const auto threads = f.config.device.spec.threads;
    f.device = torchDevice(f.config.device.spec);
    f.data = prepareData(f.config, std::move(store));
    f.data.train = f.data.train.to(f.device);
    f.outputs = config.task == Task::LanguageModel ? static_cast<std::int64_t>(f.data.vocabulary.size())
                                                   : static_cast<std::int64_t>(f.data.classes.size());
    if (f.device.is_cpu()) f.threads = std::make_unique<CpuThreadsScope>(threads);
    return f;
}
}  // namespace

double suggestLearningRate(const std::vector<double>& rates, const std::vector<double>& losses) {
    if (rates.empty() || rates.size() != losses.size()) return 0;
    if (rates.size() < 3) return rates.front();
    // The rate where the smoothed loss falls fastest (per decade), before its minimum.
    std::size_t minIndex = 0;
    for (std::size_t i = 1; i < losses.size(); ++i)
        if (losses[i] < losses[minIndex]) minIndex = i;
    double steepest = 0;
    std::size_t at = 0;
    for (std::size_t i = 1; i <= minIndex; ++i) {
        const double slope = (losses[i] - losses[i - 1]) / (std::log10(rates[i]) - std::log10(rates[i - 1]));
        if (slope < steepest) steepest = slope, at = i;
    }
    return at > 0 ? rates[at] : rates[minIndex] / 10;
}

LrFinderResult findLearningRate(const ExperimentConfig& config, const Corpus& corpus,
                                const LrFinderOptions& options) {
    if (corpus.documents.empty()) throw InputError(corpus.source, 0, "the corpus has no documents");
    return findLearningRate(config, TokenStore::fromCorpus(corpus, config.data), options);
}

LrFinderResult findLearningRate(const ExperimentConfig& config, std::shared_ptr<const TokenStore> store,
                                const LrFinderOptions& options) {
    const double minLr = options.minLr, maxLr = options.maxLr;
    const int steps = options.steps;
    if (!(minLr > 0) || !(maxLr > minLr) || steps < 5)
        throw InputError("LR finder: expected 0 < min < max and at least 5 steps");
    auto f = prepare(config, std::move(store));
    auto setup =
        makeTrainingSetup(f.config, static_cast<std::int64_t>(f.data.vocabulary.size()), f.outputs, f.device);
    const auto n = f.data.train.size(), b = std::min(f.config.train.batchSize, n);
    const SeededOrder order(n, f.config.train.seed);
    LrFinderResult r;
    double avg = 0, best = std::numeric_limits<double>::infinity();
    const double beta = 0.9;
    std::int64_t cursor = 0;
    for (int i = 0; i < steps; ++i) {
        if (options.cancelled && options.cancelled()) break;
        const double lr = minLr * std::pow(maxLr / minLr, static_cast<double>(i) / (steps - 1));
        setup.optimizer->setLearningRate(lr);
        if (cursor + b > n) cursor = 0;
        const auto batch = f.data.train.batch(order.slice(cursor, b));
        cursor += b;
        const double loss = trainStep(setup, batch, f.config).item<double>();
        if (!std::isfinite(loss)) break;
        avg = beta * avg + (1 - beta) * loss;
        const double smoothed = avg / (1 - std::pow(beta, i + 1));
        r.rates.push_back(lr);
        r.losses.push_back(smoothed);
        best = std::min(best, smoothed);
        if (options.onPoint) options.onPoint(r);
        if (i > 5 && smoothed > 4 * best) break;  // diverged: higher rates tell nothing more
    }
    r.suggestedRate = suggestLearningRate(r.rates, r.losses);
    return r;
}

BatchSizeResult findBatchSize(const ExperimentConfig& config, const Corpus& corpus,
                              const BatchSizeOptions& options) {
    if (corpus.documents.empty()) throw InputError(corpus.source, 0, "the corpus has no documents");
    return findBatchSize(config, TokenStore::fromCorpus(corpus, config.data), options);
}

BatchSizeResult findBatchSize(const ExperimentConfig& config, std::shared_ptr<const TokenStore> store,
                              const BatchSizeOptions& options) {
    if (options.start < 1 || options.limit < options.start || options.minStepsPerEpoch < 1)
        throw InputError("batch-size finder: expected 1 <= start <= limit and at least one step per epoch");
    auto f = prepare(config, std::move(store));
    const auto n = f.data.train.size();
    const auto vocab = static_cast<std::int64_t>(f.data.vocabulary.size());
    const double memory = static_cast<double>(listDevices().front().memoryBytes);
    BatchSizeResult r;
    r.trainSamples = n;
    r.corpusCap = std::max<std::int64_t>(1, n / options.minStepsPerEpoch);
    // A corpus too small for `start` still gets one size timed: the largest its cap allows.
    const std::int64_t first = std::min(options.start, r.corpusCap);
    double bestUs = std::numeric_limits<double>::infinity();
    for (std::int64_t b = first;; b *= 2) {
        if (b > options.limit) {
            r.stoppedBy = BatchSizeResult::Stop::Limit;
            break;
        }
        if (b > r.corpusCap) {
            r.stoppedBy = BatchSizeResult::Stop::Corpus;
            break;
        }
        if (options.cancelled && options.cancelled()) {
            r.stoppedBy = BatchSizeResult::Stop::Cancelled;
            break;
        }
        auto trial = f.config;
        trial.train.batchSize = b;
        // On the CPU an allocation failure may come from the kernel's OOM killer instead of an exception:
        // never try a batch whose estimated footprint exceeds half of the physical memory.
        if (f.device.is_cpu() &&
            summarizeModel(trial, vocab, static_cast<std::int64_t>(f.data.classes.size()))
                    .trainingMemoryBytes > memory / 2) {
            r.stoppedBy = BatchSizeResult::Stop::Memory;
            break;
        }
        if (options.onTrialStart) options.onTrialStart(b, r);
        try {
            auto setup = makeTrainingSetup(trial, vocab, f.outputs, f.device);
            const auto batch = f.data.train.range(0, b);
            std::vector<double> times;
            for (int i = 0; i < 3; ++i) {
                synchronize(f.device);
                const auto t0 = std::chrono::steady_clock::now();
                trainStep(setup, batch, trial);
                synchronize(f.device);
                if (i > 0)
                    times.push_back(
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            }
            const double us = 1e6 * std::min(times[0], times[1]) / static_cast<double>(b);
            r.sizes.push_back(b);
            r.usPerSample.push_back(us);
            r.stepsPerEpoch.push_back((n + b - 1) / b);
            r.largestTimed = b;
            if (us < bestUs) bestUs = us, r.fastest = b;
            r.recommended = 0;
            for (std::size_t i = 0; i < r.sizes.size() && r.recommended == 0; ++i)
                if (r.usPerSample[i] <= (1 + kBatchSizeTolerance) * bestUs) r.recommended = r.sizes[i];
        } catch (const std::exception& e) {
            if (!isOutOfMemory(e)) throw;
            r.stoppedBy = BatchSizeResult::Stop::Memory;
            break;
        }
        if (options.onTrial) options.onTrial(r);
    }
    return r;
}

}  // namespace wb
