// TrainingJob: trains one experiment on one device into one run folder (see Training.h). Timing is honest:
// the device is synchronised before every clock read that feeds a number, warm-up steps and validation are
// excluded from throughput, and the loss is read from the device only every logEvery steps.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "data/TextDatasets.h"
#include "device/Autocast.h"
#include "device/DeviceSetup.h"
#include "io/TensorIO.h"
#include "train/RunState.h"
#include "train/TrainingStep.h"
#include "workbench/CorpusCatalog.h"
#include "workbench/Devices.h"
#include "workbench/Errors.h"
#include "workbench/ModelSummary.h"
#include "workbench/RunFolder.h"
#include "workbench/Training.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace wb {

struct TrainingJob::Impl {
    ExperimentConfig config;
    std::string runDir;
    std::shared_ptr<const Corpus> corpus;
    PreparedData data;
    bool resuming = false;
    ProgressState progress;  // restored from the checkpoint when resuming
    std::vector<MetricRecord> records;
    RunInfo info;

    std::atomic<bool> stopRequested{false};
    std::atomic<bool> pausedFlag{false};
    std::mutex pauseMutex;
    std::condition_variable pauseChanged;
    std::atomic<RunStatus> status{RunStatus::Created};

    RunSummary execute(const TrainingCallbacks& callbacks);
};

static std::string nowIso() {
    const auto t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

static std::string hostName() {
    char buf[256] = {0};
    return gethostname(buf, sizeof buf - 1) == 0 ? std::string(buf) : std::string();
}

static std::shared_ptr<const Corpus> loadConfiguredCorpus(const ExperimentConfig& config) {
    const auto path = resolveCorpusPath(config.data.corpus);
    return std::make_shared<const Corpus>(loadCorpus(path, config.data.format));
}

TrainingJob::TrainingJob() : m(std::make_unique<Impl>()) {}

TrainingJob::TrainingJob(ExperimentConfig config, std::string runDir, std::shared_ptr<const Corpus> corpus)
    : TrainingJob() {
    config.ensureValid();
    std::int64_t threadsFromSpec = config.device.threads;
    config.device.device = parseDeviceSpec(config.device.device, &threadsFromSpec);
    config.device.threads = threadsFromSpec;
    if (runDir.empty()) throw InputError("no run folder given (--out)");
    std::error_code ec;
    if (fs::exists(runDir, ec) && !(fs::is_directory(runDir, ec) && fs::is_empty(runDir, ec)))
        throw InputError(runDir, 0,
                         "the run folder already exists and is not empty (resume it, or choose another)");
    m->config = std::move(config);
    m->runDir = std::move(runDir);
    m->corpus = corpus ? std::move(corpus) : loadConfiguredCorpus(m->config);
    m->data = prepareData(m->config, *m->corpus);
}

std::unique_ptr<TrainingJob> TrainingJob::resume(const std::string& runDir, std::int64_t epochs,
                                                 std::int64_t maxSteps, double learningRate) {
    recoverCheckpoint(runDir);  // a run killed while saving resumes from one consistent checkpoint
    auto record = loadRunFolder(runDir);
    for (const char* name : {runfiles::kModel, runfiles::kOptimizer, runfiles::kVocab})
        if (!fs::exists(fs::path(runDir) / name))
            throw InputError((fs::path(runDir) / name).string(), 0,
                             "missing: this run has no checkpoint to resume from");
    std::unique_ptr<TrainingJob> job(new TrainingJob());
    auto& m = *job->m;
    m.config = record.config;
    if (epochs > 0) m.config.train.epochs = epochs;
    if (maxSteps > 0) m.config.train.maxSteps = maxSteps;
    if (learningRate > 0) m.config.train.learningRate = learningRate;
    m.config.ensureValid((fs::path(runDir) / runfiles::kConfig).string());
    std::int64_t threads = m.config.device.threads;
    m.config.device.device = parseDeviceSpec(m.config.device.device, &threads);
    m.config.device.threads = threads;
    m.runDir = runDir;
    m.resuming = true;

    const auto vocabPath = (fs::path(runDir) / runfiles::kVocab).string();
    std::vector<std::string> classes;
    const auto vocabulary = readVocabularyFile(vocabPath, &classes);
    m.corpus = loadConfiguredCorpus(m.config);
    m.data = prepareData(m.config, *m.corpus, &vocabulary);
    if (m.config.task == Task::Classifier && m.data.classes != classes)
        throw InputError(vocabPath, 0, "the corpus's classes differ from the ones this run was trained on");

    const auto optimizerFile = safetensors::read((fs::path(runDir) / runfiles::kOptimizer).string());
    m.progress = ProgressState::fromMetadata(optimizerFile.metadata,
                                             (fs::path(runDir) / runfiles::kOptimizer).string());
    // Metrics written after the checkpoint would be written again: keep what the checkpoint covers.
    for (const auto& r : record.metrics)
        if (r.step <= m.progress.step) m.records.push_back(r);
    m.info = record.info;
    return job;
}

TrainingJob::~TrainingJob() = default;

RunSummary TrainingJob::run(const TrainingCallbacks& callbacks) { return m->execute(callbacks); }

void TrainingJob::requestStop() {
    m->stopRequested = true;
    m->pauseChanged.notify_all();
}

void TrainingJob::setPaused(bool paused) {
    {
        std::lock_guard<std::mutex> lock(m->pauseMutex);
        m->pausedFlag = paused;
    }
    m->pauseChanged.notify_all();
}

bool TrainingJob::paused() const { return m->pausedFlag; }
const ExperimentConfig& TrainingJob::config() const { return m->config; }
const std::string& TrainingJob::runDir() const { return m->runDir; }
std::string TrainingJob::runId() const { return fs::path(m->runDir).filename().string(); }
std::int64_t TrainingJob::vocabularySize() const {
    return static_cast<std::int64_t>(m->data.vocabulary.size());
}
std::int64_t TrainingJob::classCount() const { return static_cast<std::int64_t>(m->data.classes.size()); }
RunStatus TrainingJob::status() const { return m->status; }

std::int64_t TrainingJob::stepsPerEpoch() const {
    const auto n = m->data.train.size(), b = m->config.train.batchSize;
    return (n + b - 1) / b;
}

// ---------------------------------------------------------------------------------------------------------

namespace {

// Wall-clock bookkeeping for one session of a run: paused time never counts, and the wall clock of a
// resumed run continues from where its checkpoint left it.
class SessionClock {
public:
    explicit SessionClock(double baseWall) : m_base(baseWall), m_start(Clock::now()) {}
    double wall() const { return m_base + seconds(Clock::now() - m_start) - m_paused; }
    void addPaused(double s) { m_paused += s; }
    static double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

private:
    double m_base;
    Clock::time_point m_start;
    double m_paused = 0;
};

struct Validation {
    double loss = 0, accuracy = 0;
    bool done = false;
};

}  // namespace

RunSummary TrainingJob::Impl::execute(const TrainingCallbacks& cb) {
    auto log = [&](const std::string& line) {
        if (cb.onLog) cb.onLog(line);
    };
    const auto device = torch::Device(config.device.device);
    const auto& tc = config.train;
    const fs::path dir(runDir);
    const auto runId = dir.filename().string();
    const std::int64_t stepsPerEpoch = (data.train.size() + tc.batchSize - 1) / tc.batchSize;
    const std::int64_t plannedSteps =
        tc.maxSteps > 0 ? (tc.epochs > 0 ? std::min(tc.maxSteps, tc.epochs * stepsPerEpoch) : tc.maxSteps)
                        : tc.epochs * stepsPerEpoch;
    const auto outputs = config.task == Task::LanguageModel
                             ? static_cast<std::int64_t>(data.vocabulary.size())
                             : static_cast<std::int64_t>(data.classes.size());
    const auto tokensPerSample = data.train.tokensPerSample();

    // ---- the run folder: created now, not before, so bad input never leaves one behind ----
    bool createdDir = false;
    if (!resuming) {
        std::error_code ec;
        createdDir = fs::create_directories(dir, ec);
        if (ec) throw TrainingError("cannot create the run folder " + runDir + ": " + ec.message());
        info = RunInfo{};
        info.id = runId;
        info.startedAt = nowIso();
    }
    info.status = RunStatus::Running;
    info.device = config.device.device;
    info.deviceName = device.is_cpu() ? "CPU" : cudaDeviceName(device.index(), nullptr);
    info.precision = toString(config.device.precision);
    info.libtorchVersion = libtorchVersion();
    info.blas = blasLibrary();
    info.host = hostName();
    info.error.clear();
    info.timingMethod = "steady_clock; device synchronised before each clock read; first " +
                        std::to_string(tc.warmupSteps) +
                        " steps of each session, validation and pauses excluded from throughput";
    info.summary.parameters = summarizeModel(config, static_cast<std::int64_t>(data.vocabulary.size()),
                                             static_cast<std::int64_t>(data.classes.size()))
                                  .totalParameters;

    auto writeMetrics = [&] {
        std::string csv = metricsCsvHeader() + "\n";
        for (const auto& r : records) csv += toCsvRow(runId, r) + "\n";
        writeFileAtomic((dir / runfiles::kMetrics).string(), csv);
    };
    auto writeRunInfo = [&] { writeFileAtomic((dir / runfiles::kRun).string(), info.toJson()); };

    std::unique_ptr<TrainingSetup> setup;
    ProgressState& st = progress;
    std::vector<MetricRecord> pending;  // records not yet handed to onMetrics
    auto emit = [&](MetricRecord r) {
        records.push_back(r);
        pending.push_back(std::move(r));
    };
    auto flushRecords = [&] {
        if (!pending.empty() && cb.onMetrics) cb.onMetrics(pending);
        pending.clear();
    };

    // A resumed run's folder is rewritten only once its checkpoint has loaded: a checkpoint that does not fit
    // the config (an InputError) must leave the folder as it was.
    auto writeStartFiles = [&] {
        if (createdDir || !resuming) {
            writeFileAtomic((dir / runfiles::kConfig).string(), config.toJson());
            writeFileAtomic((dir / runfiles::kVocab).string(),
                            vocabularyFileJson(data.vocabulary, data.classes));
        } else {
            writeFileAtomic((dir / runfiles::kConfig).string(), config.toJson());  // new limits
        }
        writeRunInfo();
        status = RunStatus::Running;
    };

    try {
        if (!resuming) writeStartFiles();

        if (device.is_cpu()) applyCpuThreads(config.device.threads);
        info.threads = device.is_cpu() ? currentCpuThreads() : 0;
        setup = std::make_unique<TrainingSetup>(
            makeTrainingSetup(config, static_cast<std::int64_t>(data.vocabulary.size()), outputs, device));
        if (resuming) {
            const auto modelPath = (dir / runfiles::kModel).string(),
                       optPath = (dir / runfiles::kOptimizer).string();
            const auto modelFile = safetensors::read(modelPath);
            const auto modelStep = modelFile.metadata.count("step") ? modelFile.metadata.at("step") : "";
            if (modelStep != std::to_string(st.step))
                throw InputError(modelPath, 0,
                                 "holds step " + modelStep + " but optimizer.safetensors holds step " +
                                     std::to_string(st.step) +
                                     ": the checkpoint was interrupted while saving");
            loadInto(modelFile, namedParameters(setup->model), modelPath);
            setup->optimizer->loadState(safetensors::read(optPath), st.optimizerSteps, optPath);
            writeStartFiles();
            log("resumed at step " + std::to_string(st.step) + " (epoch " +
                std::to_string(st.epochIndex + 1) + ")");
        }
        const auto trainSplit = data.train.to(device);
        const auto valSplit = data.validation.to(device);
        info.threads = device.is_cpu() ? currentCpuThreads() : 0;
        writeRunInfo();
        log("training " + std::to_string(plannedSteps) + " steps on " + info.device +
            (device.is_cpu() ? " with " + std::to_string(info.threads) + " thread(s)" : "") + ", " +
            std::to_string(data.train.size()) + " training and " + std::to_string(data.validation.size()) +
            " validation samples");

        SessionClock clock(st.wallSeconds);
        const double sessionStartWall = st.wallSeconds;
        const std::int64_t sessionStartStep = st.step;
        // Throughput measurement of this session starts after the warm-up steps.
        bool measuring = false;
        double measureStartWall = 0, measureExcluded = 0;
        std::int64_t measureStartSamples = 0;
        const double priorMeasuredSeconds = st.measuredSeconds;
        const std::int64_t priorMeasuredSamples = st.measuredSamples;
        auto updateThroughput = [&](double wallNow) {
            if (!measuring) return;
            st.measuredSeconds = priorMeasuredSeconds + (wallNow - measureStartWall - measureExcluded);
            st.measuredSamples = priorMeasuredSamples + (st.samples - measureStartSamples);
        };
        auto samplesPerSecond = [&] {
            return st.measuredSeconds > 0 ? static_cast<double>(st.measuredSamples) / st.measuredSeconds
                                          : 0.0;
        };

        auto lossSum = torch::zeros({}, torch::TensorOptions(torch::kFloat32).device(device));
        std::int64_t lossCount = 0;
        double lastTrainLoss = st.lastTrainLoss;
        auto lastProgress = Clock::now() - std::chrono::seconds(1);
        auto report = [&](const std::string& phase, bool force) {
            if (!cb.onProgress) return;
            const auto now = Clock::now();
            if (!force && now - lastProgress < std::chrono::milliseconds(200)) return;
            lastProgress = now;
            TrainingProgress p;
            p.phase = phase;
            p.step = st.step;
            p.totalSteps = plannedSteps;
            p.epoch =
                static_cast<double>(st.step) / static_cast<double>(std::max<std::int64_t>(stepsPerEpoch, 1));
            p.samples = st.samples;
            p.wallSeconds = clock.wall();
            p.lastTrainLoss = lastTrainLoss;
            p.samplesPerSecond = samplesPerSecond();
            const auto doneThisSession = st.step - sessionStartStep;
            if (doneThisSession > 0 && plannedSteps > st.step) {
                const double perStep =
                    (clock.wall() - sessionStartWall) / static_cast<double>(doneThisSession);
                p.etaSeconds = perStep * static_cast<double>(plannedSteps - st.step);
            }
            cb.onProgress(p);
        };

        // Reads the accumulated train loss (one synchronisation) and records it. Stops on NaN/Inf.
        auto recordTrainLoss = [&] {
            if (lossCount == 0) return;
            const double mean = lossSum.item<double>() / static_cast<double>(lossCount);
            lossSum.zero_();
            lossCount = 0;
            if (!std::isfinite(mean)) {
                std::ostringstream os;
                os << "the training loss became " << (std::isnan(mean) ? "NaN" : "infinite") << " at step "
                   << st.step << ": lower the learning rate (now " << tc.learningRate << ")"
                   << (tc.gradClip > 0 ? "" : " or enable gradient clipping")
                   << "; the last good checkpoint is kept";
                throw TrainingError(os.str());
            }
            lastTrainLoss = mean;
            st.lastTrainLoss = mean;
            const double wall = clock.wall();
            updateThroughput(wall);
            const double epoch = static_cast<double>(st.step) / static_cast<double>(stepsPerEpoch);
            emit({st.step, epoch, st.samples, wall, "train", "loss", mean});
            if (config.task == Task::LanguageModel)
                emit({st.step, epoch, st.samples, wall, "train", "perplexity",
                      std::exp(std::min(mean, 50.0))});
            if (measuring && st.measuredSeconds > 0) {
                const double sps = samplesPerSecond();
                emit({st.step, epoch, st.samples, wall, "speed", "samples_per_s", sps});
                emit({st.step, epoch, st.samples, wall, "speed", "tokens_per_s",
                      sps * static_cast<double>(tokensPerSample)});
                emit({st.step, epoch, st.samples, wall, "speed", "us_per_sample", 1e6 / sps});
            }
            flushRecords();
        };

        auto validate = [&]() -> Validation {
            Validation v;
            if (valSplit.size() == 0) return v;
            report("validating", true);
            const double t0 = clock.wall();
            setup->model->eval();
            torch::NoGradGuard noGrad;
            auto lossTotal = torch::zeros({}, torch::TensorOptions(torch::kFloat64).device(device));
            auto correct = torch::zeros({}, torch::TensorOptions(torch::kInt64).device(device));
            std::int64_t count = 0;
            const auto evalBatch = std::max<std::int64_t>(tc.batchSize, 64);
            bool aborted = false;
            for (std::int64_t b = 0; b < valSplit.size(); b += evalBatch) {
                if (stopRequested) {
                    aborted = true;
                    break;
                }
                const auto batch = valSplit.range(b, std::min(b + evalBatch, valSplit.size()));
                AutocastScope autocast(device, config.device.precision);
                const auto out = computeLoss(setup->model, batch);
                lossTotal += out.loss.to(torch::kFloat64) * static_cast<double>(out.count);
                correct += out.correct;
                count += out.count;
            }
            setup->model->train();
            if (aborted || count == 0) return v;
            v.loss = lossTotal.item<double>() / static_cast<double>(count);
            v.accuracy = static_cast<double>(correct.item<std::int64_t>()) / static_cast<double>(count);
            v.done = true;
            if (measuring) measureExcluded += clock.wall() - t0;
            return v;
        };

        auto saveCheckpoint = [&] {
            report("checkpointing", true);
            const double t0 = clock.wall();
            // A checkpoint is only worth keeping if its weights are finite: never replace a good one.
            for (const auto& p : setup->model->parameters())
                if (!torch::isfinite(p).all().item<bool>())
                    throw TrainingError("the weights became NaN or infinite at step " +
                                        std::to_string(st.step) +
                                        ": lower the learning rate; the last good checkpoint is kept");
            st.wallSeconds = clock.wall();
            st.optimizerSteps = setup->optimizer->steps();
            // Metrics first: a resume drops the records past its checkpoint, so a kill anywhere in here
            // loses none of the records the committed checkpoint covers.
            writeMetrics();
            const auto modelNext = (dir / runfiles::kModel).string() + ".next",
                       optimizerNext = (dir / runfiles::kOptimizer).string() + ".next";
            try {
                saveSafetensors(modelNext, namedParameters(setup->model),
                                {{"format", "lstm-workbench"},
                                 {"step", std::to_string(st.step)},
                                 {"task", toString(config.task)}});
                saveSafetensors(optimizerNext, setup->optimizer->state(), st.toMetadata(config));
            } catch (...) {
                // Half a new checkpoint is worthless; the committed pair is untouched.
                std::error_code ec;
                fs::remove(modelNext, ec);
                fs::remove(optimizerNext, ec);
                throw;
            }
            commitCheckpoint(runDir);
            info.summary = st.summary(info.summary.parameters, tokensPerSample);
            info.summary.epochs = static_cast<double>(st.step) / static_cast<double>(stepsPerEpoch);
            writeRunInfo();
            if (measuring) measureExcluded += clock.wall() - t0;
        };

        auto validateAndCheckpoint = [&]() -> bool {  // returns true when early stopping fires
            recordTrainLoss();  // also guarantees the weights about to be saved are finite
            const auto v = validate();
            bool stopEarly = false;
            if (v.done && !std::isfinite(v.loss))
                throw TrainingError(
                    "the validation loss became " + std::string(std::isnan(v.loss) ? "NaN" : "infinite") +
                    " at step " + std::to_string(st.step) +
                    ": lower the learning rate (resume with a lower one); the last good checkpoint is kept");
            if (v.done) {
                const double wall = clock.wall();
                const double epoch = static_cast<double>(st.step) / static_cast<double>(stepsPerEpoch);
                emit({st.step, epoch, st.samples, wall, "val", "loss", v.loss});
                emit({st.step, epoch, st.samples, wall, "val", "accuracy", v.accuracy});
                if (config.task == Task::LanguageModel)
                    emit({st.step, epoch, st.samples, wall, "val", "perplexity",
                          std::exp(std::min(v.loss, 50.0))});
                flushRecords();
                st.finalValLoss = v.loss;
                st.finalValAccuracy = v.accuracy;
                st.bestValAccuracy = std::max(st.bestValAccuracy, v.accuracy);
                if (st.bestValLoss == 0 || v.loss < st.bestValLoss) {
                    st.bestValLoss = v.loss;
                    st.badValidations = 0;
                } else if (++st.badValidations >= tc.earlyStopPatience && tc.earlyStopPatience > 0) {
                    log("early stopping: validation loss has not improved for " +
                        std::to_string(st.badValidations) + " validations");
                    stopEarly = true;
                }
            }
            saveCheckpoint();
            return stopEarly;
        };

        bool earlyStopped = false;
        while (!stopRequested) {
            if (tc.epochs > 0 && st.epochIndex >= tc.epochs) break;
            if (tc.maxSteps > 0 && st.step >= tc.maxSteps) break;
            // The order of an epoch depends only on the seed and the epoch: a resumed run sees the same
            // batches.
            const auto order =
                seededPermutation(trainSplit.size(),
                                  tc.seed * 1000003ULL + static_cast<std::uint64_t>(st.epochIndex))
                    .to(device);
            bool hitMaxSteps = false;
            while (st.batchInEpoch < stepsPerEpoch && !stopRequested) {
                if (pausedFlag) {
                    report("paused", true);
                    const auto t0 = Clock::now();
                    std::unique_lock<std::mutex> lock(pauseMutex);
                    pauseChanged.wait(lock, [&] { return !pausedFlag || stopRequested; });
                    clock.addPaused(SessionClock::seconds(Clock::now() - t0));
                    if (stopRequested) break;
                }
                const auto begin = st.batchInEpoch * tc.batchSize;
                const auto size = std::min(tc.batchSize, trainSplit.size() - begin);
                const auto batch = trainSplit.batch(order.narrow(0, begin, size));
                // Dropout draws from the global generator: seeding it per step makes a resumed run exact.
                torch::manual_seed(tc.seed + 7919ULL * static_cast<std::uint64_t>(st.step + 1));
                lossSum += trainStep(*setup, batch, config).to(torch::kFloat32);
                ++lossCount;
                ++st.step;
                ++st.batchInEpoch;  // counted before any checkpoint, which must resume after this batch
                st.samples += size;
                if (!measuring && st.step - sessionStartStep >= tc.warmupSteps) {
                    synchronize(device);
                    measuring = true;
                    measureStartWall = clock.wall();
                    measureStartSamples = st.samples;
                }
                const bool endOfEpoch = st.batchInEpoch == stepsPerEpoch;
                if (st.step % std::max<std::int64_t>(tc.logEvery, 1) == 0 || endOfEpoch) recordTrainLoss();
                report("training", false);
                if (tc.maxSteps > 0 && st.step >= tc.maxSteps) {
                    hitMaxSteps = true;
                    break;
                }
                if (tc.validateEvery > 0 && st.step % tc.validateEvery == 0 && !endOfEpoch &&
                    validateAndCheckpoint()) {
                    earlyStopped = true;
                    break;
                }
            }
            if (stopRequested || earlyStopped) break;
            if (st.batchInEpoch >= stepsPerEpoch) {
                st.batchInEpoch = 0;
                ++st.epochIndex;
            }
            if (validateAndCheckpoint() || hitMaxSteps) break;
        }
        if (stopRequested) {
            recordTrainLoss();
            saveCheckpoint();
        }
        synchronize(device);
        updateThroughput(clock.wall());
        st.wallSeconds = clock.wall();
        status = stopRequested ? RunStatus::Stopped : RunStatus::Completed;
        info.status = status;
        info.endedAt = nowIso();
        info.summary = st.summary(info.summary.parameters, tokensPerSample);
        info.summary.epochs = static_cast<double>(st.step) / static_cast<double>(stepsPerEpoch);
        writeMetrics();
        writeRunInfo();
        report("done", true);
        log(std::string(status == RunStatus::Stopped ? "stopped" : "finished") + " after " +
            std::to_string(st.step) + " steps");
        return info.summary;
    } catch (const InputError&) {
        status = RunStatus::Failed;
        if (createdDir) {
            std::error_code ec;
            fs::remove_all(dir, ec);  // nothing of a run that never started is left behind
        }
        throw;
    } catch (const std::exception& e) {
        status = RunStatus::Failed;
        std::string message = e.what();
        if (isOutOfMemory(e))
            message = "out of memory on " + config.device.device + ": lower the batch size (now " +
                      std::to_string(tc.batchSize) + ") or the model size";
        else if (dynamic_cast<const TrainingError*>(&e) == nullptr)
            message = "training failed: " + message.substr(0, message.find('\n'));
        info.status = RunStatus::Failed;
        info.error = message;
        info.endedAt = nowIso();
        try {
            writeMetrics();
            writeRunInfo();
        } catch (const std::exception&) {
            // The disk may be what failed; the checkpoint files were not touched.
        }
        throw TrainingError(message);
    }
}

}  // namespace wb
