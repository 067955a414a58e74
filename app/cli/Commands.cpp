// The CLI's subcommands (see Commands.h). Human output on stdout, progress and errors on stderr; --json
// prints one JSON document on stdout and nothing else there.
#include "Commands.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "ProgressPrinter.h"
#include "workbench/Benchmark.h"
#include "workbench/CorpusCatalog.h"
#include "workbench/CorpusOverview.h"
#include "workbench/DeviceSpec.h"
#include "workbench/Devices.h"
#include "workbench/Errors.h"
#include "workbench/Evaluation.h"
#include "workbench/Format.h"
#include "workbench/ModelSummary.h"
#include "workbench/RunFolder.h"
#include "workbench/TokenStore.h"
#include "workbench/Training.h"
#include "workbench/Utf8.h"
#include "workbench/Verse.h"

#ifdef WORKBENCH_HAVE_UI
#include "export/HeadlessCompare.h"
#endif

using nlohmann::json;

void printError(const std::string& message) {
    std::string oneLine = message;
    for (auto& ch : oneLine)
        if (ch == '\n' || ch == '\r') ch = ' ';
    std::fprintf(stderr, "%s%s\n", wb::kCliErrorPrefix, oneLine.c_str());
}

namespace {

json summaryJson(const wb::RunSummary& s) {
    return {{"steps", s.steps},
            {"epochs", s.epochs},
            {"samples", s.samples},
            {"train_seconds", s.trainSeconds},
            {"samples_per_second", s.samplesPerSecond},
            {"us_per_sample", s.usPerSample},
            {"tokens_per_second", s.tokensPerSecond},
            {"final_train_loss", s.finalTrainLoss},
            {"best_val_loss", s.bestValLoss},
            {"best_val_accuracy", s.bestValAccuracy},
            {"final_val_loss", s.finalValLoss},
            {"final_val_accuracy", s.finalValAccuracy},
            {"parameters", s.parameters}};
}

// "2.314 (5-gram 2.520)": a character model's bits per character next to its n-gram baseline's.
std::string bitsVersusBaseline(double bpc, double baseline) {
    char buf[64];
    if (bpc < 0 && baseline < 0) return "-";
    if (baseline < 0)
        std::snprintf(buf, sizeof buf, "%.3f", bpc);
    else if (bpc < 0)
        std::snprintf(buf, sizeof buf, "- (5-gram %.3f)", baseline);
    else
        std::snprintf(buf, sizeof buf, "%.3f (5-gram %.3f)", bpc, baseline);
    return buf;
}

// The class-by-class evaluation of a classifier's last validation, with the baseline its accuracy is read
// against: an accuracy near the majority share means the model learned little beyond the class sizes.
void printEvaluation(const wb::ClassifierEvaluation& e) {
    std::printf(
        "validation at step %lld, %lld samples: accuracy %.1f %% vs majority baseline %.1f %% "
        "(always '%s'); macro F1 %.3f\n",
        static_cast<long long>(e.step), static_cast<long long>(e.total()), 100 * e.accuracy,
        100 * e.majorityAccuracy, e.majorityClass.c_str(), e.macroF1);
    std::printf("  %-20s %9s %9s %9s %9s\n", "class", "precision", "recall", "F1", "support");
    for (std::size_t c = 0; c < e.classes.size(); ++c)
        std::printf("  %-20s %9.3f %9.3f %9.3f %9lld\n", e.classes[c].c_str(), e.precision[c], e.recall[c],
                    e.f1[c], static_cast<long long>(e.support[c]));
}

// SIGINT/SIGTERM during training: ask the job to stop after the current batch (it saves a checkpoint).
wb::TrainingJob* g_activeJob = nullptr;
extern "C" void onInterrupt(int) {
    if (g_activeJob) g_activeJob->requestStop();  // an atomic store: async-signal-safe
}

int trainJob(wb::TrainingJob& job, bool jsonOut, bool quiet, bool printSummary = true) {
    ProgressPrinter printer(quiet);
    wb::TrainingCallbacks cb;
    cb.onProgress = [&](const wb::TrainingProgress& p) { printer.update(p); };
    cb.onLog = [&](const std::string& line) { printer.line(line); };
    g_activeJob = &job;
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    wb::RunSummary summary;
    try {
        summary = job.run(cb);
    } catch (...) {
        g_activeJob = nullptr;
        printer.finish();
        throw;
    }
    g_activeJob = nullptr;
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    printer.finish();
    const bool stopped = job.status() == wb::RunStatus::Stopped;
    if (!printSummary) return stopped ? 130 : 0;
    // Read back from the run folder: what the app shows for this run, whoever trained it.
    const auto evaluation =
        job.config().task == wb::Task::Classifier ? wb::loadEvaluation(job.runDir()) : std::nullopt;
    if (jsonOut) {
        json out = {{"run_dir", job.runDir()},
                    {"status", wb::toString(job.status())},
                    {"summary", summaryJson(summary)}};
        if (evaluation) out["evaluation"] = json::parse(evaluation->toJson());
        if (wb::hasBitsPerCharacter(job.config())) {
            out["summary"]["best_val_bpc"] =
                summary.bestValLoss > 0 ? json(wb::bitsFromNats(summary.bestValLoss)) : json();
            if (const auto baseline = wb::loadBaseline(job.runDir()))
                out["baseline"] = json::parse(baseline->toJson());
        }
        std::cout << out.dump(2) << "\n";
    } else {
        std::printf("%s: %s after %lld steps, %.1f s; %.0f samples/s (%.1f us/sample); train loss %.4f",
                    job.runDir().c_str(), wb::toString(job.status()).c_str(),
                    static_cast<long long>(summary.steps), summary.trainSeconds, summary.samplesPerSecond,
                    summary.usPerSample, summary.finalTrainLoss);
        if (summary.bestValLoss > 0) std::printf("; best val loss %.4f", summary.bestValLoss);
        if (summary.bestValLoss > 0 && wb::hasBitsPerCharacter(job.config())) {
            const auto baseline = wb::loadBaseline(job.runDir());
            std::printf(" = %.3f bits per character", wb::bitsFromNats(summary.bestValLoss));
            if (baseline) std::printf(" (5-gram baseline %.3f)", baseline->bitsPerToken);
        }
        if (job.config().task == wb::Task::Classifier)
            std::printf("; best val accuracy %.3f", summary.bestValAccuracy);
        std::printf("\n");
        if (evaluation) printEvaluation(*evaluation);
    }
    return stopped ? 130 : 0;
}

}  // namespace

int runDevices(bool jsonOut) {
    const auto devices = wb::listDevices();
    const auto cuda = wb::cudaSupport();
    const auto blasCaveat = wb::blasThreadsCaveat();
    if (jsonOut) {
        json list = json::array();
        for (const auto& d : devices)
            list.push_back({{"id", d.id},
                            {"name", d.name},
                            {"kind", d.kind},
                            {"threads", d.threads},
                            {"memory_bytes", d.memoryBytes},
                            {"bf16", d.bf16},
                            {"fp16", d.fp16}});
        std::cout << json{{"devices", list},
                          {"libtorch", wb::libtorchVersion()},
                          {"cuda",
                           {{"compiled", cuda.compiled}, {"nccl", cuda.nccl}, {"devices", cuda.devices}}},
                          {"blas", wb::blasLibrary()},
                          {"blas_threads_settable", blasCaveat.empty()}}
                         .dump(2)
                  << "\n";
        return 0;
    }
    std::printf("LibTorch %s, BLAS: %s\n", wb::libtorchVersion().c_str(), wb::blasLibrary().c_str());
    std::printf("CUDA: %s\n", cuda.summary().c_str());
    if (!blasCaveat.empty()) std::printf("warning: %s\n", blasCaveat.c_str());
    for (const auto& d : devices) {
        std::printf("%-8s %s", d.id.c_str(), d.name.c_str());
        if (d.memoryBytes > 0) std::printf(", %.1f GiB", static_cast<double>(d.memoryBytes) / (1 << 30));
        std::printf("\n");
    }
    return 0;
}

int runInspect(const InspectOptions& o) {
    const auto path = wb::resolveCorpusPath(o.corpus);
    // Plain text is read streamed on every core (a corpus larger than memory is inspected too), with a bar.
    ProgressPrinter progress(o.json);
    const auto overview =
        wb::readCorpusOverview(path, wb::corpusFormatFromString(o.format),
                               static_cast<std::size_t>(std::max<std::int64_t>(o.preview, 0)), 200,
                               [&](std::uint64_t done, std::uint64_t total) {
                                   progress.reading(o.corpus, done, total);
                                   return true;
                               });
    progress.finish();
    const auto& stats = overview.stats;
    const auto& preview = overview.preview;
    if (o.json) {
        json docs = json::array();
        for (const auto& d : preview)
            docs.push_back({{"text", d.text}, {"label", d.label}, {"title", d.title}, {"author", d.author}});
        json out = {{"path", path},
                    {"format", wb::toString(overview.format)},
                    {"documents", stats.documents},
                    {"characters", stats.characters},
                    {"distinct_characters", stats.distinctCharacters},
                    {"words", stats.words},
                    {"distinct_words", stats.distinctWords},
                    {"min_document_chars", stats.minDocumentChars},
                    {"max_document_chars", stats.maxDocumentChars},
                    {"mean_document_chars", stats.meanDocumentChars},
                    {"classes", stats.classCounts},
                    {"preview", docs}};
        if (auto entry = wb::findPreparedCorpus(o.corpus))
            out["manifest"] = json::parse(entry->manifestJson, nullptr, false);
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    std::printf("%s (%s)\n", path.c_str(), wb::toString(overview.format).c_str());
    std::printf("  documents   %lld\n", static_cast<long long>(stats.documents));
    std::printf("  characters  %lld (%lld distinct)\n", static_cast<long long>(stats.characters),
                static_cast<long long>(stats.distinctCharacters));
    std::printf("  words       %lld (%lld distinct)\n", static_cast<long long>(stats.words),
                static_cast<long long>(stats.distinctWords));
    std::printf("  document length  min %lld, mean %.1f, max %lld characters\n",
                static_cast<long long>(stats.minDocumentChars), stats.meanDocumentChars,
                static_cast<long long>(stats.maxDocumentChars));
    for (const auto& [label, count] : stats.classCounts)
        std::printf("  class %-20s %lld (%.1f%%)\n", label.c_str(), static_cast<long long>(count),
                    100.0 * static_cast<double>(count) /
                        static_cast<double>(std::max<std::int64_t>(stats.documents, 1)));
    for (const auto& d : preview) {
        std::string text = d.text;
        for (auto& ch : text)
            if (ch == '\n') ch = ' ';
        std::printf("  > %s%s\n", d.label.empty() ? "" : ("[" + d.label + "] ").c_str(), text.c_str());
    }
    return 0;
}

int runTokenize(const wb::ExperimentConfig& config, const std::string& corpus, bool json, bool quiet) {
    ProgressPrinter progress(quiet || json);
    const auto store = wb::TokenStore::forCorpusFile(wb::resolveCorpusPath(corpus), config.data,
                                                     wb::tokenStoreDir(wb::corporaCacheDir()),
                                                     [&](std::uint64_t done, std::uint64_t total) {
                                                         progress.tokenizing(corpus, done, total);
                                                         return true;
                                                     });
    progress.finish();
    const auto& info = store->info();
    const double rate =
        !info.reused && info.seconds > 0 ? static_cast<double>(info.sourceBytes) / info.seconds : 0;
    if (json) {
        std::cout << json::object({{"corpus", corpus},
                                   {"store", info.path},
                                   {"reused", info.reused},
                                   {"seconds", info.seconds},
                                   {"source_bytes", info.sourceBytes},
                                   {"bytes_per_second", rate},
                                   {"checksum", info.checksum},
                                   {"documents", store->documentCount()},
                                   {"tokens", store->tokenCount()},
                                   {"vocabulary", store->vocabulary().size()},
                                   {"classes", store->classes()}})
                         .dump(2)
                  << "\n";
        return 0;
    }
    std::printf(
        "%s: %s; %s tokens in %s documents, a vocabulary of %zu\n  %s\n", corpus.c_str(),
        info.reused
            ? ("its token store was there (opened in " + wb::clockDuration(info.seconds) + ")").c_str()
            : (wb::humanBytes(static_cast<double>(info.sourceBytes)) + " tokenized in " +
               wb::clockDuration(info.seconds) + ", " + wb::humanBytes(rate) + "/s")
                  .c_str(),
        wb::humanCount(static_cast<double>(store->tokenCount())).c_str(),
        wb::humanCount(static_cast<double>(store->documentCount())).c_str(), store->vocabulary().size(),
        info.path.c_str());
    return 0;
}

// The torchrun variables, when this process was started as one rank of a job; nullopt otherwise.
std::optional<wb::DistributedSpec> torchrunRank(std::int64_t processesFlag) {
    auto spec = wb::distributedSpecFromEnvironment();
    if (spec && processesFlag > 0)
        throw wb::InputError(
            "--nproc starts its own processes; under torchrun (RANK and WORLD_SIZE are set) "
            "leave it out");
    return spec;
}

int runTrain(TrainOptions o) {
    o.config.data.corpus = o.corpus;
    const auto spec = torchrunRank(o.nprocGiven ? o.config.device.processes : 0);
    if (spec && spec->rank > 0) return runWorker(*spec, o.corpus);
    // Processes sharing this machine share its cores: unless told otherwise, each gets its share.
    const auto localProcesses = spec ? spec->localWorldSize : o.config.device.processes;
    if (localProcesses > 1 && !o.threadsGiven && wb::isCpuDevice(o.config.device.device))
        o.config.device.threads = std::max<std::int64_t>(
            1, static_cast<std::int64_t>(std::thread::hardware_concurrency()) / localProcesses);
    // A corpus not tokenized before is tokenized into its store first: minutes for a few GB, so it shows.
    ProgressPrinter tokenizing(o.quiet || o.json);
    wb::TrainingJob job(o.config, o.out, nullptr, [&](std::uint64_t done, std::uint64_t total) {
        tokenizing.tokenizing(o.corpus, done, total);
        return true;
    });
    tokenizing.finish();
    if (spec) job.joinAsRankZero(*spec);
    if (!o.quiet && !o.json) {
        const auto summary = wb::summarizeModel(job.config(), job.vocabularySize(), job.classCount());
        std::fprintf(stderr, "%s: %lld parameters, %s train FLOPs/sample, %lld steps/epoch\n", o.out.c_str(),
                     static_cast<long long>(summary.totalParameters),
                     wb::humanCount(summary.trainFlopsPerSample).c_str(),
                     static_cast<long long>(job.stepsPerEpoch()));
    }
    // The name a user gives on the command line names the run in every list, as the app's Rename does. The
    // run folder exists only once training starts, so the name is written when it ends, however it ends.
    const auto nameTheRun = [&] {
        if (!o.runName.empty() && wb::isRunFolder(o.out)) {
            wb::RunAnnotations annotations = wb::readRunAnnotations(o.out);
            annotations.name = o.runName;
            wb::writeRunAnnotations(o.out, annotations);
        }
    };
    int code = 0;
    try {
        code = trainJob(job, o.json, o.quiet);
    } catch (...) {
        nameTheRun();
        throw;
    }
    nameTheRun();
    return code;
}

int runResume(const ResumeOptions& o) {
    const auto spec = torchrunRank(o.processes);
    if (spec && spec->rank > 0) return runWorker(*spec, {});
    auto job = wb::TrainingJob::resume(o.runDir, o.epochs, o.maxSteps, o.learningRate, o.processes);
    if (spec) job->joinAsRankZero(*spec);
    return trainJob(*job, o.json, o.quiet);
}

// A worker's errors say which rank they come from (most of the scale-out's own messages already do).
std::string namingRank(int rank, const std::string& message) {
    return message.rfind("rank ", 0) == 0 ? message : "rank " + std::to_string(rank) + ": " + message;
}

int runWorker(const wb::DistributedSpec& spec, const std::string& corpus) {
    try {
        auto job = wb::TrainingJob::joinAsWorker(spec, corpus);
        return trainJob(*job, /*jsonOut=*/false, /*quiet=*/true, /*printSummary=*/false);
    } catch (const wb::InputError& e) {
        throw wb::InputError(namingRank(spec.rank, e.what()));
    } catch (const std::exception& e) {
        throw wb::TrainingError(namingRank(spec.rank, e.what()));
    }
}

namespace {

json verseJson(const wb::VerseReport& r) {
    json rules = json::object();
    for (const auto& rule : r.rules)
        rules[wb::verseRuleName(rule.rule)] = {{"checks", rule.checks}, {"violations", rule.violations}};
    json violations = json::array();
    for (const auto& v : r.violations)
        violations.push_back({{"line", v.line},
                              {"position", v.position},
                              {"rule", wb::verseRuleName(v.rule)},
                              {"character", v.character},
                              {"explanation", v.explanation}});
    return {{"form", wb::verseFormName(r.form)}, {"passed", r.passed}, {"score", r.score},
            {"summary", wb::verseSummary(r)},    {"rules", rules},     {"violations", violations}};
}

}  // namespace

int runGenerate(const GenerateCliOptions& o) {
    const auto model =
        wb::TrainedModel::load(o.runDir, o.checkpoint == "best" ? wb::TrainedModel::Checkpoint::Best
                                                                : wb::TrainedModel::Checkpoint::Last);
    // Poems are checked against the tone and rhyme tables of the corpus the run was trained on, when this
    // machine has them (a prepared Tang corpus); strict meter writes them to follow those tables.
    std::optional<wb::VerseChecker> checker;
    if (o.generate.form != wb::PoemForm::Free)
        checker = wb::verseCheckerForCorpus(model->config().data.corpus);
    wb::GenerateOptions options = o.generate;
    if (checker) options.verse = &*checker;
    const auto samples = model->generate(options);
    const bool strict = options.meter == wb::Meter::Strict;
    std::vector<wb::VerseReport> reports;
    if (checker)
        for (const auto& s : samples) reports.push_back(checker->check(s.text));
    const auto passing =
        std::count_if(reports.begin(), reports.end(), [](const auto& r) { return r.passed; });
    if (o.json) {
        json scores = json::array();
        for (const auto& s : samples) {
            json score = {{"log_probability", s.logProbability},
                          {"tokens", s.tokens},
                          {"bits_per_token", s.bitsPerToken()}};
            if (strict) score["pattern"] = wb::toString(s.pattern);
            scores.push_back(score);
        }
        json out = {{"run_dir", o.runDir},
                    {"form", wb::toString(o.generate.form)},
                    {"meter", wb::toString(options.meter)},
                    {"samples", wb::textsOf(samples)},
                    {"scores", scores}};
        // How good the model is, in the units a user compares with the n-gram baseline.
        const auto row = wb::compareRuns({wb::loadRunFolder(o.runDir)}, 0).front();
        if (row.bestValBpc >= 0) out["val_bpc"] = row.bestValBpc;
        if (row.baselineBpc >= 0) out["baseline_bpc"] = row.baselineBpc;
        if (checker) {
            json verse = json::array();
            for (const auto& r : reports) verse.push_back(verseJson(r));
            out["verse"] = verse;
            out["verse_passed"] = passing;
        }
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    for (std::size_t i = 0; i < samples.size(); ++i) {
        if (i) std::printf("\n---\n");
        std::printf("%s\n", samples[i].text.c_str());
        if (!checker) continue;
        // The poem's verdict, its pattern under strict meter, and what the model thinks of it.
        std::printf("[%s%s%s · %.2f bits/char]\n", wb::verseSummary(reports[i]).c_str(), strict ? " · " : "",
                    strict ? wb::meterPatternLabel(samples[i].pattern) : "", samples[i].bitsPerToken());
        for (const auto& v : reports[i].violations)
            std::printf("  line %d%s%s: %s\n", v.line + 1, v.character.empty() ? "" : ", ",
                        v.character.c_str(), v.explanation.c_str());
    }
    if (checker)
        std::printf("\nverse: %lld of %zu poems pass every rule\n", static_cast<long long>(passing),
                    samples.size());
    return 0;
}

int runClassify(const ClassifyOptions& o) {
    const auto model =
        wb::TrainedModel::load(o.runDir, o.checkpoint == "best" ? wb::TrainedModel::Checkpoint::Best
                                                                : wb::TrainedModel::Checkpoint::Last);
    const std::string text = o.file.empty() ? o.text : wb::readFile(o.file);
    const auto result = model->classify(text, o.topK, o.explain);
    if (o.json) {
        json top = json::array(), attributions = json::array();
        for (const auto& c : result.top) top.push_back({{"label", c.label}, {"probability", c.probability}});
        for (const auto& a : result.attributions)
            attributions.push_back({{"token", a.token}, {"score", a.score}});
        json out = {{"predicted", result.predicted}, {"top", top}};
        if (o.explain) out["attributions"] = attributions;
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    std::printf("%s\n", result.predicted.c_str());
    for (const auto& c : result.top) std::printf("  %-20s %6.2f%%\n", c.label.c_str(), 100 * c.probability);
    if (o.explain) {
        std::printf("tokens (+ pushed toward %s):\n", result.predicted.c_str());
        for (const auto& a : result.attributions) std::printf("  %-20s %+.4f\n", a.token.c_str(), a.score);
    }
    return 0;
}

int runBench(const BenchCliOptions& o) {
    json results = json::array();
    // The bench's thread count reaches LibTorch only with another BLAS: said before any number.
    if (const auto caveat = wb::blasThreadsCaveat(); !caveat.empty())
        std::fprintf(stderr, "warning: %s\n", caveat.c_str());
    for (const auto& preset : o.presets) {
        wb::BenchOptions b;
        b.preset = preset;
        std::int64_t threads = 0;
        b.device = wb::parseDeviceSpec(o.device, &threads);
        b.threads = threads;
        b.precision = o.precision;
        b.steps = o.steps;
        b.warmup = o.warmup;
        b.batchSize = o.batchSize;
        b.backend = o.backend;
        b.threadSplit = o.threadSplit;
        const auto r = wb::runBenchmark(b);
        if (o.json) {
            results.push_back(json::parse(r.toJson()));
            continue;
        }
        std::printf(
            "%-8s %-6s %2lld thr %-5s %s %-5s batch %lld x %lld: %8.1f us/sample  %10.0f tokens/s  %6.1f "
            "GFLOP/s "
            "of %6.1f measured peak (%4.1f%%)\n",
            r.preset.c_str(), r.device.c_str(), static_cast<long long>(r.threads), r.threadSplit.c_str(),
            r.precision.c_str(), r.backend.c_str(), static_cast<long long>(r.batchSize),
            static_cast<long long>(r.seqLen), r.usPerSample, r.tokensPerSecond, r.gflops, r.peakGflops,
            r.percentOfPeak);
        if (r.preset == "imdb")
            std::printf(
                "         reference 004 (Keras, imdb): TPU 680 us/sample, Colab GPU 12000 us/sample\n");
    }
    if (o.json) std::cout << (results.size() == 1 ? results[0] : results).dump(2) << "\n";
    return 0;
}

int runCompare(const CompareOptions& o) {
    std::vector<wb::RunRecord> runs;
    for (const auto& dir : o.runDirs) runs.push_back(wb::loadRunFolder(dir));
    wb::CompareOptions options;
    options.targetLoss = o.targetLoss;
    if (!o.baseline.empty()) {
        const auto it = std::find(o.runDirs.begin(), o.runDirs.end(), o.baseline);
        if (it == o.runDirs.end())
            throw wb::InputError("--baseline " + o.baseline + " is not one of the RUN_DIRs given");
        options.baseline = int(it - o.runDirs.begin());
    }
    const auto rows = wb::compareRuns(runs, options);
    if (!o.csv.empty()) wb::writeFileAtomic(o.csv, wb::comparisonCsv(runs));
    if (!o.png.empty()) {
#ifdef WORKBENCH_HAVE_UI
        std::string error;
        const int rc = wbui::exportComparison(o.runDirs, o.png, "", &error);
        if (rc != 0) {
            printError(error);
            return rc;
        }
#else
        throw wb::InputError("--png needs the GUI libraries: this lstm-workbench-cli was built without Qt");
#endif
    }
    if (o.json) {
        json list = json::array();
        for (const auto& r : rows)
            list.push_back({{"run_id", r.runId},
                            {"name", r.name},
                            {"label", r.label},
                            {"device", r.device},
                            {"group", r.group},
                            {"group_label", r.groupLabel},
                            {"baseline", r.baseline},
                            {"samples_per_second", r.samplesPerSecond},
                            {"us_per_sample", r.usPerSample},
                            {"target", r.target},
                            {"seconds_to_target", r.secondsToTarget},
                            {"best_val_loss", r.bestValLoss},
                            {"best_val_accuracy", r.bestValAccuracy},
                            {"best_val_bpc", r.bestValBpc >= 0 ? json(r.bestValBpc) : json()},
                            {"baseline_bpc", r.baselineBpc >= 0 ? json(r.baselineBpc) : json()},
                            {"speedup", r.speedup},
                            {"note", r.note}});
        std::cout << json{{"runs", list}}.dump(2) << "\n";
        return 0;
    }
    // One block per group of comparable runs: speed-ups and targets never cross groups.
    const int groups =
        rows.empty() ? 0 : 1 + std::max_element(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
                                   return a.group < b.group;
                               })->group;
    int nameWidth = 8;
    for (const auto& r : rows) nameWidth = std::max(nameWidth, int(wb::countCodePoints(r.name)));
    for (int g = 0; g < groups; ++g) {
        bool first = true;
        // A character model's group also says how far each run got in bits per character, next to its
        // n-gram baseline (the same split for every run of the group).
        bool bits = false;
        for (const auto& r : rows) bits = bits || (r.group == g && (r.bestValBpc >= 0 || r.baselineBpc >= 0));
        for (const auto& r : rows) {
            if (r.group != g) continue;
            if (first) {
                std::printf("%s%s\n", g > 0 ? "\n" : "", r.groupLabel.c_str());
                std::printf("  %-*s  %-26s %11s %11s %10s %10s %9s%s\n", nameWidth, "run", "device",
                            "samples/s", "us/sample", "best val", "to target", "speed-up",
                            bits ? "   val bpc (5-gram)" : "");
                first = false;
            }
            char target[32] = "-";
            if (r.secondsToTarget >= 0) std::snprintf(target, sizeof target, "%.1f s", r.secondsToTarget);
            // printf pads by bytes; "·" is two, so pad the name by its characters.
            const int pad = nameWidth - int(wb::countCodePoints(r.name));
            std::string quality;
            if (bits) quality = "   " + bitsVersusBaseline(r.bestValBpc, r.baselineBpc);
            std::printf("  %s%*s  %-26s %11.1f %11.1f %10.4f %10s %8.2fx%s%s\n", r.name.c_str(), pad, "",
                        r.label.c_str(), r.samplesPerSecond, r.usPerSample, r.bestValLoss, target, r.speedup,
                        quality.c_str(), r.baseline ? " (baseline)" : "");
            if (!r.note.empty()) std::printf("    note: %s\n", r.note.c_str());
        }
        for (const auto& r : rows)
            if (r.group == g && !r.target.empty()) {
                std::printf("  target: %s\n", r.target.c_str());
                break;
            }
    }
    return 0;
}
