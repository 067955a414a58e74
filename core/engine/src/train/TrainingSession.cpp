// TrainingSession (see TrainingSession.h). Timing is honest: the device is synchronised before every clock
// read that feeds a number, warm-up steps, validation, checkpoints and pauses are excluded from throughput,
// and the loss is read from the device only every logEvery steps.
#include "train/TrainingSession.h"

#include "train/LrSchedule.h"
#include "train/ValidationSamples.h"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "baseline/KneserNey.h"
#include "device/Autocast.h"
#include "device/DeviceSetup.h"
#include "distributed/ReducerSync.h"
#include "model/CudnnLstm.h"
#include "model/ShardedDropout.h"
#include "tensors/TensorIO.h"
#include "workbench/domain/Baseline.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Evaluation.h"
#include "workbench/domain/Format.h"
#include "workbench/domain/ModelSummary.h"
#include "workbench/domain/RemoveAll.h"
#include "workbench/engine/Devices.h"
#include "workbench/engine/SlurmJob.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace wb {

namespace {

// The n-gram baseline's fit: at most this many training tokens, in this many runs spread over the split, so
// that its time is bounded whatever the corpus's size (docs/benchmarks.md, "Corpora larger than memory").
constexpr std::int64_t kBaselineFitTokens = 4'000'000;
constexpr std::int64_t kBaselineFitPieces = 64;

std::string nowIso() {
    const auto t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::int64_t plannedStepsOf(const TrainConfig& tc, std::int64_t stepsPerEpoch) {
    if (tc.maxSteps <= 0) return tc.epochs * stepsPerEpoch;
    return tc.epochs > 0 ? std::min(tc.maxSteps, tc.epochs * stepsPerEpoch) : tc.maxSteps;
}

// Errors that come from a collective or the store rather than from this process's own work.
bool isTransportError(const std::string& what) {
    for (const char* marker : {"gloo", "Gloo", "Connection", "connection", "Timed out", "timed out",
                               "Broken pipe", "Socket", "socket", "store at"})
        if (what.find(marker) != std::string::npos) return true;
    return false;
}

DistributedSpec localLaunchSpec(std::int64_t processes) {
    DistributedSpec spec;
    spec.worldSize = static_cast<int>(processes);
    spec.localWorldSize = spec.worldSize;
    spec.masterAddr = "127.0.0.1";
    spec.masterPort = 0;           // a free port, handed to the workers
    spec.secret = newJobSecret();  // handed to the workers in their environment, never their arguments
    if (const char* t = std::getenv("WORKBENCH_DIST_TIMEOUT")) {
        const double seconds = std::atof(t);
        if (seconds >= 1) spec.timeoutSeconds = seconds;
    }
    return spec;
}

}  // namespace

TrainingSession::TrainingSession(JobState& job, const TrainingCallbacks& callbacks)
    : m_job(job),
      m_callbacks(callbacks),
      m_config(job.config),
      m_tc(job.config.train),
      m_device(torchDevice(job.config.device.spec)),
      m_state(job.progress),
      m_stepsPerEpoch((job.data.train.size() + job.config.train.batchSize - 1) / job.config.train.batchSize),
      m_plannedSteps(plannedStepsOf(job.config.train, m_stepsPerEpoch)),
      m_tokensPerSample(job.data.train.tokensPerSample()),
      m_writer(job.runDir, !job.isWorker()),
      m_sink(job.records,
             [this](const std::vector<MetricRecord>& records) {
                 m_events.records(records);
                 if (m_callbacks.onMetrics) m_callbacks.onMetrics(records);
             }),
      m_lastProgress(Clock::now() - std::chrono::seconds(1)) {}

TrainingSession::~TrainingSession() = default;

RunSummary TrainingSession::run() {
    try {
        openRunFolder();
        joinDataParallelJob();
        buildModel();
        // After the checkpoint loaded: a resume that fails before must leave the folder as it was.
        const auto line =
            m_writer.keepValidationSamples(m_job.data.validation, validationBatchSize(m_config));
        if (!line.empty()) log(line);
        if (m_writer.enabled() && m_tc.tensorboard)
            m_events = TensorBoardLog(m_writer.dir().string(), m_config,
                                      m_job.resuming ? std::optional(m_state.step) : std::nullopt,
                                      [this](const std::string& line) { log(line); });
        describeRun();
        measureBaseline();
        if (const auto baseline = m_writer.enabled() ? loadBaseline(m_writer.dir().string()) : std::nullopt)
            m_events.setBaselineBits(baseline->bitsPerToken);
        if (m_writer.enabled() && m_config.task == Task::LanguageModel)
            m_samples =
                std::make_unique<ValidationSamples>(m_config, m_job.corpus.get(), m_writer.dir().string());
        trainLoop();
        return finish();
    } catch (const std::exception& e) {
        fail(e);
    }
}

// The run folder is created now, not before, so bad input never leaves one behind. A resumed run's folder
// is rewritten only once its checkpoint has loaded (buildModel): a checkpoint that does not fit the config
// must leave the folder as it was.
void TrainingSession::openRunFolder() {
    RunInfo& info = m_job.info;
    // A new run's number is one more than its neighbours' highest, held under the folder's numbering lock
    // until its run.json says it (below), so two runs started at once never share one.
    std::unique_ptr<ScopedFileLock> numbering;
    if (!m_job.resuming && m_writer.enabled()) {
        std::error_code ec;
        m_createdDir = fs::create_directories(m_writer.dir(), ec);
        if (ec) throw TrainingError("cannot create the run folder " + m_job.runDir + ": " + ec.message());
        info = RunInfo{};
        info.id = m_writer.runId();
        info.startedAt = nowIso();
        const auto parent = fs::absolute(m_writer.dir(), ec).lexically_normal().parent_path().string();
        try {
            numbering = std::make_unique<ScopedFileLock>(runNumberLockPath(parent));
        } catch (const std::exception&) {
            // A folder that takes the run but not the lock file: numbered without it.
        }
        info.number = runNumberFor(parent, m_job.reservedNumber);
        info.plan = m_job.plan;
    }
    // Held to the session's end (a live owner); a resume claims it once its checkpoint loads (buildModel).
    if (!m_job.resuming) m_writer.claim();
    info.status = RunStatus::Running;
    info.device = m_config.device.spec.id();
    info.deviceName = m_device.is_cpu() ? "CPU" : cudaDeviceName(m_device.index(), nullptr);
    info.precision =
        effectivePrecision(m_device, m_config.device.precision);  // what ran, not only what was asked
    if (!m_job.precisionChoice.empty())
        info.precisionChoice = m_job.precisionChoice;  // a resume keeps its own
    info.libtorchVersion = libtorchVersion();
    info.blas = blasLibrary();
    info.host = hostName();
    // Under Slurm, the job: started again after a time limit, it finds this run by it (SlurmJob.h).
    const auto slurmJob = slurmJobFromEnvironment();
    info.slurmJob = slurmJob ? slurmJob->id : "";
    // What else the machine was doing as this sitting started: explains a 2-thread run slower than 1 thread.
    if (double load[1]; ::getloadavg(load, 1) == 1) info.loadAverage = load[0];
    info.hostCpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    info.error.clear();
    info.warnings.clear();  // a resumed run's are said again by this sitting if they still hold
    info.worldSize = 1;
    info.backend.clear();
    info.hosts.clear();
    info.timingMethod = "steady_clock; device synchronised before each clock read; first " +
                        std::to_string(m_tc.warmupSteps) +
                        " steps of each session, validation, checkpoints and pauses excluded from throughput";
    // The corpus as this sitting read it, and its own time to its first step.
    const auto& store = m_job.data.store->info();
    info.tokenStore = store.path;
    info.tokenStoreReused = store.reused;
    info.tokenStoreSeconds = store.seconds;
    info.corpusBytes = static_cast<std::int64_t>(store.sourceBytes);
    info.corpusChecksum = store.checksum;
    info.summary.startupSeconds = 0;
    info.summary.parameters =
        summarizeModel(m_config, static_cast<std::int64_t>(m_job.data.vocabulary.size()),
                       static_cast<std::int64_t>(m_job.data.classes.size()))
            .totalParameters;
    if (!m_job.resuming) {
        m_writer.writeConfig(m_config);
        m_writer.writeVocabulary(vocabularyFileJson(m_job.data.vocabulary, m_job.data.classes));
        m_writer.writeRunInfo(info);
    }
    m_job.status = RunStatus::Running;
}

// One process: nothing to join. Rank 0 of a local launch starts the store and the other processes; rank 0
// of a job started outside (torchrun) hosts the store; either way it publishes what the others train.
void TrainingSession::joinDataParallelJob() {
    if (m_job.isWorker()) {
        m_context = m_job.workerContext.get();
    } else if (m_job.joinSpec || m_config.device.spec.processes > 1) {
        const auto spec = m_job.joinSpec ? *m_job.joinSpec : localLaunchSpec(m_config.device.spec.processes);
        m_ownContext = std::make_unique<DistributedContext>(spec);
        m_context = m_ownContext.get();
        if (!m_job.joinSpec) m_context->launchLocalWorkers(defaultWorkerExecutable());
        m_context->publish("config", m_config.toJson());
        m_context->publish("vocabulary", vocabularyFileJson(m_job.data.vocabulary, m_job.data.classes));
        m_context->publish("progress", nlohmann::json(m_state.toMetadata(m_config)).dump());
    }
    if (!m_context) return;
    m_device = deviceForLocalRank(m_device, m_context->spec().localRank);
    m_context->joinGroup(m_device.is_cuda());
    m_job.info.worldSize = m_context->worldSize();
    m_job.info.backend = m_context->backendName();
    m_job.info.hosts = m_context->hosts();
    for (const auto& w : m_context->warnings()) m_job.info.warnings.push_back(w);
}

void TrainingSession::buildModel() {
    if (m_device.is_cpu()) m_threads = std::make_unique<CpuThreadsScope>(m_config.device.spec.threads);
    const auto outputs = m_config.task == Task::LanguageModel
                             ? static_cast<std::int64_t>(m_job.data.vocabulary.size())
                             : static_cast<std::int64_t>(m_job.data.classes.size());
    m_setup = std::make_unique<TrainingSetup>(makeTrainingSetup(
        m_config, static_cast<std::int64_t>(m_job.data.vocabulary.size()), outputs, m_device));
    if (m_job.resuming && m_writer.enabled()) {
        const auto modelPath = (m_writer.dir() / runfiles::kModel).string(),
                   optPath = (m_writer.dir() / runfiles::kOptimizer).string();
        const auto modelFile = safetensors::read(modelPath);
        const auto modelStep = modelFile.metadata.count("step") ? modelFile.metadata.at("step") : "";
        if (modelStep != std::to_string(m_state.step))
            throw InputError(modelPath, 0,
                             "holds step " + modelStep + " but optimizer.safetensors holds step " +
                                 std::to_string(m_state.step) +
                                 ": the checkpoint was interrupted while saving");
        loadInto(modelFile, namedParameters(m_setup->model), modelPath);
        m_setup->optimizer->loadState(safetensors::read(optPath), m_state.optimizerSteps, optPath);
        m_writer.claim();
        m_writer.writeConfig(m_config);  // the new limits
        m_writer.writeRunInfo(m_job.info);
        log("resumed at step " + std::to_string(m_state.step) + " (epoch " +
            std::to_string(m_state.epochIndex + 1) + ")");
    }
    // A data-parallel step's hooks and collectives run op by op: no CUDA graph (CudaGraphStep.h).
    if (m_context) m_setup->graph.reset();
    m_job.info.tf32 = m_device.is_cuda() && m_config.device.tf32;
    if (m_context) {
        // Every rank starts from rank 0's weights and optimizer state (its checkpoint when resuming).
        m_setup->optimizer->setSteps(m_state.optimizerSteps);
        m_sync = makeReducerSync(*m_context, m_setup->model->parameters(), m_config.device.gradCompression);
        m_job.info.gradientBytesPerStep = m_sync->gradientBytesPerStep();
        std::vector<torch::Tensor> state;
        for (const auto& [name, tensor] : m_setup->optimizer->state()) state.push_back(tensor);
        if (!state.empty()) m_sync->broadcastFromRankZero(state);
    } else {
        m_sync = std::make_unique<LocalGradientSync>();
        // Several CPU threads in one process: by default each trains its share of every batch
        // (ThreadShards.h), each with one BLAS thread; validation keeps the intra-op threads.
        const int threads = m_device.is_cpu() ? currentCpuThreads() : 1;
        if (threads >= 2 && m_config.device.threadSplit == ThreadSplit::Batch) {
            m_shards = std::make_unique<ThreadShards>(threads);
            applyBlasThreads(1);
        }
    }
    m_trainSplit = m_job.data.train.to(m_device);
    const auto classes = m_config.task == Task::Classifier ? outputs : 0;
    m_validator = std::make_unique<Validator>(*m_setup, m_job.data.validation.to(m_device), classes, m_config,
                                              *m_sync, m_job.stopRequested);
    m_checkpointer = std::make_unique<Checkpointer>(m_writer, *m_setup, m_config, m_state, m_sink, m_job.info,
                                                    m_tokensPerSample, m_stepsPerEpoch);
    m_lossSum = torch::zeros({}, torch::TensorOptions(torch::kFloat32).device(m_device));
    // A stop cut the last train-loss window short: carry on with it (ProgressState::openLossSum). The sum
    // was read from this float32 accumulator, so it goes back into it unrounded.
    if (m_state.openLossCount > 0) {
        m_lossSum.fill_(m_state.openLossSum);
        m_lossCount = m_state.openLossCount;
        m_state.openLossSum = 0;
        m_state.openLossCount = 0;
    }
}

// The n-gram baseline of a character language model (baseline.json), before the clock starts: the number a
// user reads the network's bits per character against. Computed once per corpus and split (cached beside
// the prepared corpora); a resumed run keeps the one it has.
void TrainingSession::measureBaseline() {
    if (!m_writer.enabled() || !hasBitsPerCharacter(m_config)) return;
    std::error_code ec;
    if (fs::exists(m_writer.dir() / runfiles::kBaseline, ec)) return;
    // Fitted on at most kBaselineFitTokens of the training stream (runs spread evenly over it: a large
    // corpus's fit takes seconds, not minutes), scored on the validation windows the network is scored on.
    const auto& validationSplit = m_job.data.validation;
    if (validationSplit.size() == 0) return;
    const bool sampled = validationSplit.sampled();
    const auto validation =
        sampled ? validationSplit.windowIds() : validationSplit.streamIds(validationSplit.streamSize(), 1);
    const auto train = m_job.data.train.streamIds(kBaselineFitTokens, kBaselineFitPieces);
    NgramBaseline b = computeBaseline(
        train, validation, static_cast<std::int64_t>(m_job.data.vocabulary.size()), m_config.data.seqLen,
        baselineCacheDir(), KneserNeyModel::kMaxOrder, sampled ? m_config.data.seqLen + 1 : 0);
    b.trainSplitTokens = m_job.data.train.streamSize();
    b.validationSampled = sampled;
    m_writer.writeBaseline(b);
    std::ostringstream os;
    os.precision(3);
    os << std::fixed << "baseline: a " << b.order << "-gram model (" << b.method << ") scores "
       << b.bitsPerToken << " bits per character on the validation split";
    if (b.trainSplitTokens > b.trainTokens)
        os << ", fitted on " << b.trainTokens << " of the training split's " << b.trainSplitTokens
           << " tokens";
    if (b.cached)
        os << " (cached)";
    else
        os << " (fitted in " << std::setprecision(1) << b.seconds << " s)";
    log(os.str());
}

void TrainingSession::trainLoop() {
    // The validation a stop dropped at the checkpoint's step, before the next step (ProgressState).
    bool stoppedEarly = false;
    if (m_state.validationOwed && !stopping()) {
        m_state.validationOwed = false;
        stoppedEarly = validateAndCheckpoint();
    }
    while (!stoppedEarly && !stopping()) {
        if (m_tc.epochs > 0 && m_state.epochIndex >= m_tc.epochs) break;
        if (m_tc.maxSteps > 0 && m_state.step >= m_tc.maxSteps) break;
        // The order of an epoch depends only on the seed and the epoch: a resumed run sees the same batches.
        const SeededOrder order(m_trainSplit.size(),
                                m_tc.seed * 1000003ULL + static_cast<std::uint64_t>(m_state.epochIndex));
        bool hitMaxSteps = false, earlyStopped = false;
        while (m_state.batchInEpoch < m_stepsPerEpoch && !stopping()) {
            waitWhilePaused();
            if (stopping()) break;
            trainBatch(order);
            const bool endOfEpoch = m_state.batchInEpoch == m_stepsPerEpoch;
            if (m_state.step % std::max<std::int64_t>(m_tc.logEvery, 1) == 0 || endOfEpoch) recordTrainLoss();
            report("training", false);
            if (m_tc.maxSteps > 0 && m_state.step >= m_tc.maxSteps) {
                hitMaxSteps = true;
                break;
            }
            if (m_tc.validateEvery > 0 && m_state.step % m_tc.validateEvery == 0 && !endOfEpoch &&
                validateAndCheckpoint()) {
                earlyStopped = true;
                break;
            }
        }
        if (stopping() || earlyStopped) break;
        if (m_state.batchInEpoch >= m_stepsPerEpoch) {
            m_state.batchInEpoch = 0;
            ++m_state.epochIndex;
        }
        if (validateAndCheckpoint() || hitMaxSteps) break;
    }
    if (stopping()) {
        keepOpenLossWindow();
        saveCheckpoint();
    }
}

// One global batch: this rank trains on its shard, the synchroniser makes the gradients the global batch's.
void TrainingSession::trainBatch(const SeededOrder& order) {
    if (m_job.info.summary.startupSeconds == 0)
        m_job.info.summary.startupSeconds =
            std::chrono::duration<double>(Clock::now() - m_job.madeAt).count();
    const auto begin = m_state.batchInEpoch * m_tc.batchSize;
    const auto size = std::min(m_tc.batchSize, m_trainSplit.size() - begin);
    // Dropout draws from the global generator: seeding it per step makes a resumed run exact, and every
    // rank (every thread of a batch split) draws the global batch's masks (ShardedDropout.h).
    const std::uint64_t dropoutSeed = m_tc.seed + 7919ULL * static_cast<std::uint64_t>(m_state.step + 1);
    seedTrainingStep(m_device, dropoutSeed, m_state.step);
    m_setup->optimizer->setLearningRate(scheduledLearningRate(m_tc, m_state.step, m_plannedSteps));
    if (m_shards) {
        const auto batch = m_trainSplit.batch(order.slice(begin, size));
        m_lossSum += m_shards->step(*m_setup, batch, m_config, dropoutSeed).to(torch::kFloat32);
    } else {
        const auto [first, last] = m_sync->shard(size);
        const auto batch = m_trainSplit.batch(order.slice(begin + first, last - first));
        ScopedDropoutShard dropoutShard(dataParallel() ? size : 0, first);
        m_lossSum +=
            trainStep(*m_setup, batch, m_config, m_sync.get(), m_sync->lossWeight(last - first, size))
                .to(torch::kFloat32);
    }
    if (m_setup->graph && m_setup->graph->failed() && !m_graphFailureLogged) {
        m_graphFailureLogged = true;
        log("CUDA steps: " + m_setup->graph->describe());
    }
    ++m_lossCount;
    ++m_state.step;
    ++m_state.batchInEpoch;  // counted before any checkpoint, which must resume after this batch
    m_state.samples += size;
    m_meter->afterStep();
}

void TrainingSession::waitWhilePaused() {
    if (!m_job.pausedFlag) return;
    if (dataParallel()) {  // the other ranks would wait inside a collective until it timed out
        if (!m_pauseRefused) log("a run over several processes cannot pause: stop it and resume it instead");
        m_pauseRefused = true;
        return;
    }
    report("paused", true);
    ThroughputMeter::Excluded paused(*m_meter, ThroughputMeter::Excluded::Pause);
    std::unique_lock<std::mutex> lock(m_job.pauseMutex);
    m_job.pauseChanged.wait(lock, [&] { return !m_job.pausedFlag || m_job.stopRequested; });
}

bool TrainingSession::validateAndCheckpoint() {
    recordTrainLoss();  // also guarantees the weights about to be saved are finite
    Validation v;
    if (!m_validator->empty()) {
        report("validating", true);
        ThroughputMeter::Excluded excluded(*m_meter, ThroughputMeter::Excluded::Work);
        const auto start = Clock::now();
        v = m_validator->run();
        m_job.info.summary.validationSeconds = std::chrono::duration<double>(Clock::now() - start).count();
    }
    bool stopEarly = false, improved = false;
    m_state.validationOwed = !m_validator->empty() && !v.done;  // a stop dropped it: the resume validates
    if (v.done && !std::isfinite(v.loss))
        throw TrainingError(
            "the validation loss became " + std::string(std::isnan(v.loss) ? "NaN" : "infinite") +
            " at step " + std::to_string(m_state.step) +
            ": lower the learning rate (resume with a lower one); the last good checkpoint is kept");
    if (v.done) {
        const double wall = m_meter->wall();
        emit("val", "loss", v.loss, wall);
        emit("val", "accuracy", v.accuracy, wall);
        if (m_config.task == Task::LanguageModel)
            emit("val", "perplexity", std::exp(std::min(v.loss, 50.0)), wall);
        if (hasBitsPerCharacter(m_config)) emit("val", "bpc", bitsFromNats(v.loss), wall);
        if (m_config.task == Task::Classifier) recordEvaluation(v, wall);
        m_sink.flush();
        m_state.finalValLoss = v.loss;
        m_state.finalValAccuracy = v.accuracy;
        m_state.bestValAccuracy = std::max(m_state.bestValAccuracy, v.accuracy);
        if (m_state.bestValLoss == 0 || v.loss < m_state.bestValLoss) {
            improved = true;
            m_state.bestValLoss = v.loss;
            m_state.badValidations = 0;
        } else if (++m_state.badValidations >= m_tc.earlyStopPatience && m_tc.earlyStopPatience > 0) {
            log("early stopping: validation loss has not improved for " +
                std::to_string(m_state.badValidations) + " validations");
            stopEarly = true;
        }
    }
    saveCheckpoint();
    if (improved) {
        ThroughputMeter::Excluded excluded(*m_meter, ThroughputMeter::Excluded::Work);
        m_checkpointer->saveBest(v.loss);
    }
    if (v.done) takeSamples(v.loss);
    return stopEarly;
}

// A language model's samples of this validation, from the checkpoint just saved (ValidationSamples.h). A
// failure to generate never stops training: the samples stop, and the log says why.
void TrainingSession::takeSamples(double valLoss) {
    if (!m_samples || !m_samples->enabled()) return;
    ThroughputMeter::Excluded excluded(*m_meter, ThroughputMeter::Excluded::Work);
    try {
        for (const auto& line : m_samples->take(m_state.step, m_meter->wall(), valLoss)) log(line);
        m_events.samples(m_state.step, m_samples->lastSamples());
    } catch (const std::exception& e) {
        m_samples->disable();
        log(std::string("warning: no more samples at validation: ") + e.what());
    }
}

// The class-by-class view of this validation, in evaluation.json (its majority baseline is a property of the
// split, not of training progress, so it is no metric).
void TrainingSession::recordEvaluation(const Validation& v, double wall) {
    const auto evaluation = evaluateConfusion(m_job.data.classes, v.confusion, m_state.step);
    emit("val", "macro_f1", evaluation.macroF1, wall);
    m_writer.writeEvaluation(evaluation);
}

void TrainingSession::saveCheckpoint() {
    report("checkpointing", true);
    ThroughputMeter::Excluded excluded(*m_meter, ThroughputMeter::Excluded::Work);
    m_checkpointer->save(m_meter->wall());
}

RunSummary TrainingSession::finish() {
    synchronize(m_device);
    m_meter->update();
    m_state.wallSeconds = m_meter->wall();
    m_job.status = stopping() ? RunStatus::Stopped : RunStatus::Completed;
    RunInfo& info = m_job.info;
    info.status = m_job.status;
    info.endedAt = nowIso();
    info.peakGpuMemoryBytes = cudaPeakMemoryBytes(m_device);
    info.cudaGraph = describeCudaGraph(*m_setup, m_config);
    if (!info.cudaGraph.empty()) log("CUDA steps: " + info.cudaGraph);
    if (const auto cudnn = cudnnLstmReport(); !cudnn.empty())
        log("cuDNN LSTM (algorithm timed per shape): " + cudnn);
    m_writer.writeMetrics(m_sink.records());
    m_checkpointer->writeSummary();
    m_events.end(m_job.status);
    report("done", true);
    log(std::string(m_job.status == RunStatus::Stopped ? "stopped" : "finished") + " after " +
        std::to_string(m_state.step) + " steps");
    return info.summary;
}

void TrainingSession::fail(const std::exception& e) {
    m_job.status = RunStatus::Failed;
    if (dynamic_cast<const InputError*>(&e)) {
        if (m_context) m_context->reportFailure(e.what(), true);
        if (m_createdDir) {
            std::error_code ec;
            wb::removeAll(m_writer.dir(), ec);  // nothing of a run that never started is left behind
        }
        throw;
    }
    std::string message = e.what();
    if (isOutOfMemory(e)) {
        message = "out of memory on " + m_config.device.spec.id() + ": lower the batch size (now " +
                  std::to_string(m_tc.batchSize) + ") or the model size";
    } else if (m_context && isTransportError(message)) {
        message = m_context->explainLostPeer(message);
    } else if (dynamic_cast<const TrainingError*>(&e) == nullptr) {
        message = "training failed: " + message.substr(0, message.find('\n'));
    }
    if (m_context) {
        if (isTransportError(e.what()))
            m_context->reportLostPeer(message);
        else
            m_context->reportFailure(message, false);
    }
    RunInfo& info = m_job.info;
    info.status = RunStatus::Failed;
    m_events.end(info.status);
    info.error = message;
    info.endedAt = nowIso();
    try {
        m_writer.writeMetrics(m_sink.records());
        m_writer.writeRunInfo(info);
    } catch (const std::exception&) {
        // The disk may be what failed; the checkpoint files were not touched.
    }
    throw TrainingError(message);
}

bool TrainingSession::stopping() const { return dataParallel() ? m_stopAgreed : m_job.stopRequested.load(); }

double TrainingSession::epochAt(std::int64_t step) const {
    return static_cast<double>(step) / static_cast<double>(std::max<std::int64_t>(m_stepsPerEpoch, 1));
}

void TrainingSession::emit(const std::string& split, const std::string& metric, double value, double wall) {
    m_sink.emit({m_state.step, epochAt(m_state.step), m_state.samples, wall, split, metric, value});
}

void TrainingSession::report(const std::string& phase, bool force) {
    if (!m_callbacks.onProgress) return;
    const auto now = Clock::now();
    if (!force && now - m_lastProgress < std::chrono::milliseconds(200)) return;
    m_lastProgress = now;
    TrainingProgress p;
    p.phase = phase;
    p.step = m_state.step;
    p.totalSteps = m_plannedSteps;
    p.epoch = epochAt(m_state.step);
    p.samples = m_state.samples;
    p.wallSeconds = m_meter->wall();
    p.lastTrainLoss = m_state.lastTrainLoss;
    p.samplesPerSecond = m_meter->samplesPerSecond();
    p.etaSeconds = m_meter->etaSeconds(m_plannedSteps);
    m_callbacks.onProgress(p);
}

void TrainingSession::log(const std::string& line) const {
    if (m_callbacks.onLog) m_callbacks.onLog(line);
}

}  // namespace wb
