// TrainingJob: the training facade (see Training.h). It builds a job (a new run, a resumed one, or a rank of
// a data-parallel job) and hands each run() to a TrainingSession, which holds the loop.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "data/TextDatasets.h"
#include "device/DeviceSetup.h"
#include "train/JobState.h"
#include "train/TrainingSession.h"
#include "workbench/domain/CorpusCatalog.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Format.h"
#include "workbench/domain/MemoryBudget.h"
#include "workbench/domain/ModelSummary.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/RunLock.h"
#include "workbench/domain/RunState.h"
#include "workbench/domain/TokenStore.h"
#include "workbench/engine/Devices.h"
#include "workbench/engine/Training.h"

namespace fs = std::filesystem;

namespace wb {

struct TrainingJob::Impl : JobState {};

// The configured corpus's token store: opened from the corpus cache, or tokenized into it now.
static std::shared_ptr<const TokenStore> configuredStore(const ExperimentConfig& config,
                                                         const TokenizeProgress& tokenizing) {
    return TokenStore::forConfiguredCorpus(config.data, tokenizing);
}

// What training holds in memory, counted before it starts, against what the machine has free: the model's
// weights, gradients and optimizer state, one batch's activations (workbench/domain/ModelSummary.h), and the
// corpus's index (where its documents start, their order) with any store held in memory rather than read from
// disk. Refused with the parts and the setting that shrinks the largest, instead of run until the kernel
// kills it.
static void checkTrainingMemory(const ExperimentConfig& config, const PreparedData& data) {
    const auto available = availableMemoryBytes();
    if (available == 0) return;  // unknown
    auto batchOf = config;       // a batch holds at most the training split
    batchOf.train.batchSize = std::max<std::int64_t>(1, std::min(config.train.batchSize, data.train.size()));
    const auto summary = summarizeModel(batchOf, static_cast<std::int64_t>(data.vocabulary.size()),
                                        static_cast<std::int64_t>(data.classes.size()));
    const double model = 16.0 * static_cast<double>(summary.totalParameters);
    const double batch = summary.trainingMemoryBytes - model;
    const double corpus = static_cast<double>(data.indexBytes + data.store->residentBytes());
    const double needed = model + batch + corpus;
    if (needed <= static_cast<double>(available)) return;
    std::string remedy;
    if (batch >= model && batch >= corpus)
        remedy = "lower the batch size (--batch-size) or the sequence length (--seq-len)";
    else if (model >= corpus)
        remedy = "make the model smaller (--hidden, --embedding, --layers, or --vocab-size)";
    else
        remedy = data.store->residentBytes() > 0
                     ? "train from the corpus's file, whose token store is read from disk, not held"
                     : "use a corpus of fewer documents";
    throw InputError(config.data.corpus, 0,
                     "training needs about " + humanBytes(needed) +
                         " (the model's weights and optimizer state " + humanBytes(model) +
                         ", one batch's activations " + humanBytes(batch) + ", the corpus's index " +
                         humanBytes(corpus) + "), " + humanBytes(static_cast<double>(available)) +
                         " available: " + remedy);
}

// The splits of the configured corpus (or of the one given in memory), and the corpus itself where a poem
// corpus's validation samples are checked as verse (poems JSON: small, and loaded whole).
static void prepareJobData(JobState& m, const std::shared_ptr<const Corpus>& given,
                           const Vocabulary* vocabulary = nullptr, const TokenizeProgress& tokenizing = {}) {
    if (given) {
        m.corpus = given;
        m.data = prepareData(m.config, *given, vocabulary);
        checkTrainingMemory(m.config, m.data);
        return;
    }
    m.data = prepareData(m.config, configuredStore(m.config, tokenizing), vocabulary);
    checkTrainingMemory(m.config, m.data);
    if (m.config.task == Task::LanguageModel && m.config.train.validationSamples > 0 &&
        m.data.store->format() == CorpusFormat::Poems)
        m.corpus = std::make_shared<const Corpus>(
            loadCorpus(resolveCorpusPath(m.config.data.corpus), CorpusFormat::Poems));
}

TrainingJob::TrainingJob() : m(std::make_unique<Impl>()) {}

TrainingJob::TrainingJob(ExperimentConfig config, std::string runDir, std::shared_ptr<const Corpus> corpus,
                         const TokenizeProgress& tokenizing)
    : TrainingJob() {
    config.ensureValid();
    m->precisionChoice = settleDeviceSettings(config);
    if (runDir.empty()) throw InputError("no run folder given (--out)");
    std::error_code ec;
    if (fs::exists(runDir, ec) && !(fs::is_directory(runDir, ec) && fs::is_empty(runDir, ec)))
        throw InputError(runDir, 0,
                         "the run folder already exists and is not empty (resume it, or choose another)");
    m->config = std::move(config);
    m->runDir = std::move(runDir);
    prepareJobData(*m, corpus, nullptr, tokenizing);
}

std::unique_ptr<TrainingJob> TrainingJob::resume(const std::string& runDir, std::int64_t epochs,
                                                 std::int64_t maxSteps, double learningRate,
                                                 std::int64_t processes) {
    // Another process training it would have its checkpoint renamed under it (the session takes the lock).
    if (runHasLiveOwner(runDir))
        throw InputError(runDir, 0,
                         "another process is training this run: stop it there, or wait until it ends");
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
    if (processes > 0) m.config.device.spec.processes = processes;
    m.config.ensureValid((fs::path(runDir) / runfiles::kConfig).string());
    // A run's config.json holds the precision it chose; one written by hand with auto chooses now.
    m.precisionChoice = settleDeviceSettings(m.config);
    m.runDir = runDir;
    m.resuming = true;

    const auto vocabPath = (fs::path(runDir) / runfiles::kVocab).string();
    std::vector<std::string> classes;
    const auto vocabulary = readVocabularyFile(vocabPath, &classes);
    prepareJobData(m, nullptr, &vocabulary);
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

std::unique_ptr<TrainingJob> TrainingJob::joinAsWorker(const DistributedSpec& spec,
                                                       const std::string& corpus) {
    if (spec.rank == 0) throw InputError("rank 0 is not a worker: it trains as an ordinary job");
    std::unique_ptr<TrainingJob> job(new TrainingJob());
    auto& m = *job->m;
    m.workerContext = std::make_unique<DistributedContext>(spec);
    try {
        m.config = ExperimentConfig::fromJson(m.workerContext->fetch("config"), "rank 0's config");
        if (!corpus.empty()) m.config.data.corpus = corpus;
        settleDeviceSettings(m.config);  // rank 0's, chosen already
        std::vector<std::string> classes;
        const auto vocabulary =
            parseVocabularyFile(m.workerContext->fetch("vocabulary"), "rank 0's vocabulary", &classes);
        const auto progress = nlohmann::json::parse(m.workerContext->fetch("progress"));
        m.progress = ProgressState::fromMetadata(progress.get<std::map<std::string, std::string>>(),
                                                 "rank 0's progress");
        m.resuming = m.progress.step > 0;
        prepareJobData(m, nullptr, &vocabulary);
        if (m.config.task == Task::Classifier && m.data.classes != classes)
            throw InputError(m.config.data.corpus, 0, "the corpus's classes differ from rank 0's");
    } catch (const InputError& e) {
        m.workerContext->reportFailure(e.what(), true);
        throw;
    } catch (const std::exception& e) {
        m.workerContext->reportFailure(e.what(), false);
        throw;
    }
    return job;
}

void TrainingJob::joinAsRankZero(const DistributedSpec& spec) {
    if (spec.rank != 0) throw InputError("joinAsRankZero needs rank 0, got " + std::to_string(spec.rank));
    m->joinSpec = spec;
    m->config.device.spec.processes = spec.worldSize;
}

void TrainingJob::setPlan(const RunPlan& plan) { m->plan = plan; }

void TrainingJob::reserveNumber(std::int64_t number) { m->reservedNumber = number; }

RunSummary TrainingJob::run(const TrainingCallbacks& callbacks) {
    TrainingSession session(*m, callbacks);
    return session.run();
}

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
std::int64_t TrainingJob::stepsDone() const { return m->progress.step; }
int TrainingJob::rank() const { return m->workerContext ? m->workerContext->rank() : 0; }
int TrainingJob::worldSize() const {
    if (m->workerContext) return m->workerContext->worldSize();
    return m->joinSpec ? m->joinSpec->worldSize : static_cast<int>(m->config.device.spec.processes);
}

std::int64_t TrainingJob::stepsPerEpoch() const {
    const auto n = m->data.train.size(), b = m->config.train.batchSize;
    return (n + b - 1) / b;
}

}  // namespace wb
