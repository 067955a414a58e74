// lstm-workbench-cli: the headless face of the workbench (its contract: docs/architecture.md). Parses flags
// with CLI11 into option structs and dispatches to Commands.cpp. Exit codes: 0 ok, 1 runtime failure, 2 bad input.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "Commands.h"
#include "workbench/Allocator.h"
#include "workbench/Distributed.h"
#include "workbench/Errors.h"
#include "workbench/RunFolder.h"

namespace {

// Flags that override the experiment config only when given on the command line.
struct TrainFlags {
    std::string task, format, tokens, optimizer, device, precision, pooling, preset, configFile, name;
    std::int64_t embedding = 0, hidden = 0, layers = 0, seqLen = 0, stride = 0, batchSize = 0, epochs = 0,
                 maxSteps = 0, vocabSize = 0, minCount = 0, validateEvery = 0, patience = 0, logEvery = 0,
                 warmup = 0, threads = 0, processes = 0;
    std::uint64_t seed = 0;
    double dropout = 0, lr = 0, valFraction = 0, gradClip = 0;
    bool bidirectional = false;
};

void addTrainFlags(CLI::App* cmd, TrainFlags& f) {
    cmd->add_option("--preset", f.preset, "Start from a reference model: imdb, charrnn, poems");
    cmd->add_option("--config", f.configFile, "Start from a config.json (e.g. of another run)");
    cmd->add_option("--name", f.name, "A name for the run");
    cmd->add_option("--task", f.task, "lm or classify")->check(CLI::IsMember({"lm", "classify"}));
    cmd->add_option("--format", f.format, "auto, text, poems, tsv, csv or folder");
    cmd->add_option("--tokens", f.tokens, "char or word")->check(CLI::IsMember({"char", "word"}));
    cmd->add_option("--embedding", f.embedding, "Embedding size");
    cmd->add_option("--hidden", f.hidden, "LSTM hidden size");
    cmd->add_option("--layers", f.layers, "LSTM layers");
    cmd->add_flag("--bidirectional", f.bidirectional, "Bidirectional LSTM (classifiers)");
    cmd->add_option("--pooling", f.pooling, "Classifier pooling: last, mean, max");
    cmd->add_option("--dropout", f.dropout, "Dropout between layers and before the head");
    cmd->add_option("--seq-len", f.seqLen, "LM window / classifier max tokens");
    cmd->add_option("--stride", f.stride, "LM window stride (default: the sequence length)");
    cmd->add_option("--batch-size", f.batchSize, "Batch size");
    cmd->add_option("--lr", f.lr, "Learning rate");
    cmd->add_option("--optimizer", f.optimizer, "adam, sgd or rmsprop");
    cmd->add_option("--epochs", f.epochs, "Epochs");
    cmd->add_option("--max-steps", f.maxSteps, "Stop after this many steps");
    cmd->add_option("--grad-clip", f.gradClip, "Max gradient L2 norm (0 = off)");
    cmd->add_option("--validate-every", f.validateEvery, "Validate every N steps (default: every epoch)");
    cmd->add_option("--patience", f.patience, "Early stopping after N validations without improvement");
    cmd->add_option("--log-every", f.logEvery, "Steps between train-loss records");
    cmd->add_option("--warmup", f.warmup, "Steps excluded from throughput");
    cmd->add_option("--device", f.device, "cpu, cpu:THREADS or cuda:N");
    cmd->add_option("--threads", f.threads, "CPU threads (LibTorch and OpenBLAS), per process");
    cmd->add_option("--nproc", f.processes,
                    "Data-parallel processes on this machine (c10d Gloo), each with its share of every batch");
    cmd->add_option("--precision", f.precision, "fp32, bf16 or fp16");
    cmd->add_option("--seed", f.seed, "Random seed (weights, split, order, dropout)");
    cmd->add_option("--val-fraction", f.valFraction, "Fraction held out for validation");
    cmd->add_option("--vocab-size", f.vocabSize, "Vocabulary size, special tokens included (0 = all)");
    cmd->add_option("--min-count", f.minCount, "Drop tokens seen fewer times");
}

wb::ExperimentConfig buildConfig(const CLI::App* cmd, const TrainFlags& f, const std::string& corpus) {
    auto given = [&](const char* flag) { return cmd->count(flag) > 0; };
    wb::ExperimentConfig c;
    if (given("--config")) {
        c = wb::ExperimentConfig::fromJson(wb::readFile(f.configFile), f.configFile);
    } else if (given("--preset")) {
        c = wb::presetConfig(f.preset);
    } else {
        c = wb::defaultConfig(given("--task") ? wb::taskFromString(f.task) : wb::Task::LanguageModel);
        // Defaults are for the default corpus; a file of another kind keeps its own detected format.
        c.data.format = wb::CorpusFormat::Auto;
    }
    if (given("--task") && (given("--config") || given("--preset"))) c.task = wb::taskFromString(f.task);
    c.data.corpus = corpus;
    if (given("--name")) c.name = f.name;
    if (given("--format")) c.data.format = wb::corpusFormatFromString(f.format);
    if (given("--tokens")) c.data.tokens = wb::tokenLevelFromString(f.tokens);
    if (given("--embedding")) c.model.embedding = f.embedding;
    if (given("--hidden")) c.model.hidden = f.hidden;
    if (given("--layers")) c.model.layers = f.layers;
    if (given("--bidirectional")) c.model.bidirectional = f.bidirectional;
    if (given("--pooling")) c.model.pooling = wb::poolingFromString(f.pooling);
    if (given("--dropout")) c.model.dropout = f.dropout;
    if (given("--seq-len")) c.data.seqLen = f.seqLen;
    if (given("--stride")) c.data.stride = f.stride;
    if (given("--batch-size")) c.train.batchSize = f.batchSize;
    if (given("--lr")) c.train.learningRate = f.lr;
    if (given("--optimizer")) c.train.optimizer = wb::optimizerFromString(f.optimizer);
    if (given("--epochs")) c.train.epochs = f.epochs;
    if (given("--max-steps")) {
        c.train.maxSteps = f.maxSteps;
        if (!given("--epochs")) c.train.epochs = 0;  // --max-steps alone means "this many steps"
    }
    if (given("--grad-clip")) c.train.gradClip = f.gradClip;
    if (given("--validate-every")) c.train.validateEvery = f.validateEvery;
    if (given("--patience")) c.train.earlyStopPatience = f.patience;
    if (given("--log-every")) c.train.logEvery = f.logEvery;
    if (given("--warmup")) c.train.warmupSteps = f.warmup;
    if (given("--device")) c.device.device = f.device;
    if (given("--threads")) c.device.threads = f.threads;
    if (given("--nproc")) c.device.processes = f.processes;
    if (given("--precision")) c.device.precision = wb::precisionFromString(f.precision);
    if (given("--seed")) c.train.seed = f.seed;
    if (given("--val-fraction")) c.data.valFraction = f.valFraction;
    if (given("--vocab-size")) c.data.vocabSize = f.vocabSize;
    if (given("--min-count")) c.data.minCount = f.minCount;
    // A bad value that came from the --config file names the file; one a flag brought is named by the
    // message itself (TrainingJob validates again).
    if (given("--config")) {
        const auto problems = c.validate();
        if (!problems.empty()) {
            auto fromFile = wb::ExperimentConfig::fromJson(wb::readFile(f.configFile), f.configFile);
            fromFile.data.corpus = corpus;
            const auto inFile = fromFile.validate();
            if (std::find(inFile.begin(), inFile.end(), problems.front()) != inFile.end())
                throw wb::InputError(f.configFile, 0, problems.front());
        }
    }
    return c;
}

}  // namespace

int main(int argc, char** argv) {
    wb::tuneAllocatorForTraining();  // before any thread starts (workbench/Allocator.h)
    CLI::App app{"LSTM Workbench, headless: train small LSTM text models and compare devices"};
    app.set_version_flag("--version", std::string("lstm-workbench-cli ") + WORKBENCH_VERSION);
    app.require_subcommand(1);

    bool json = false;
    auto* devices = app.add_subcommand("devices", "List what this machine can train on");
    devices->add_flag("--json", json, "Machine-readable output");

    InspectOptions inspect;
    auto* inspectCmd = app.add_subcommand("inspect", "Check a corpus: format, statistics, a preview");
    inspectCmd->add_option("CORPUS", inspect.corpus, "File, folder or prepared corpus name")->required();
    inspectCmd->add_option("--format", inspect.format, "auto, text, poems, tsv, csv or folder");
    inspectCmd->add_option("--preview", inspect.preview, "Documents to preview");
    inspectCmd->add_flag("--json", inspect.json, "Machine-readable output");

    TrainOptions train;
    TrainFlags trainFlags;
    auto* trainCmd = app.add_subcommand("train", "Train a model on a corpus into a new run folder");
    trainCmd->add_option("CORPUS", train.corpus, "File, folder or prepared corpus name")->required();
    trainCmd->add_option("--out", train.out, "Run folder to create")->required();
    addTrainFlags(trainCmd, trainFlags);
    trainCmd->add_flag("--json", train.json, "Print the run summary as JSON on stdout");
    trainCmd->add_flag("--quiet", train.quiet, "No progress output");

    ResumeOptions resume;
    auto* resumeCmd = app.add_subcommand("resume", "Continue a run from its last checkpoint");
    resumeCmd->add_option("RUN_DIR", resume.runDir, "Run folder")->required();
    resumeCmd->add_option("--epochs", resume.epochs, "New total epochs");
    resumeCmd->add_option("--max-steps", resume.maxSteps, "New total steps");
    resumeCmd->add_option("--lr", resume.learningRate, "New learning rate (e.g. after a NaN loss)");
    resumeCmd->add_option("--nproc", resume.processes, "Data-parallel processes (the same or another number)");
    resumeCmd->add_flag("--json", resume.json, "Print the run summary as JSON on stdout");
    resumeCmd->add_flag("--quiet", resume.quiet, "No progress output");

    GenerateCliOptions gen;
    std::string form = "free";
    auto* genCmd = app.add_subcommand("generate", "Generate text (or poems) with a trained language model");
    genCmd->add_option("RUN_DIR", gen.runDir, "Run folder")->required();
    genCmd->add_option("--seed-text", gen.generate.seedText, "Text to start from");
    genCmd->add_option("--length", gen.generate.length, "Tokens to generate (free form)");
    genCmd->add_option("--temperature", gen.generate.temperature, "Sampling temperature (0 = greedy)");
    genCmd->add_option("--top-k", gen.generate.topK, "Sample among the k likeliest tokens (0 = all)");
    genCmd->add_option("--top-p", gen.generate.topP, "Nucleus sampling threshold (1 = off)");
    genCmd->add_option("--form", form, "free, quatrain5, quatrain7, regulated5 or regulated7 (8 lines)");
    genCmd->add_option("--acrostic", gen.generate.acrostic, "Characters that start each line");
    genCmd->add_option("--samples", gen.generate.samples, "How many samples");
    genCmd->add_option("--rng-seed", gen.generate.rngSeed, "Sampling seed (0 = random)");
    genCmd->add_flag("--json", gen.json, "Machine-readable output");

    ClassifyOptions cls;
    auto* clsCmd = app.add_subcommand("classify", "Classify text with a trained classifier");
    clsCmd->add_option("RUN_DIR", cls.runDir, "Run folder")->required();
    auto* textOpt = clsCmd->add_option("--text", cls.text, "Text to classify");
    auto* fileOpt = clsCmd->add_option("--file", cls.file, "File whose content is classified");
    textOpt->excludes(fileOpt);
    clsCmd->add_option("--top-k", cls.topK, "Classes to show");
    clsCmd->add_flag("--explain", cls.explain, "Show which tokens pushed the decision");
    clsCmd->add_flag("--json", cls.json, "Machine-readable output");

    BenchCliOptions bench;
    std::string presetList = "imdb";
    auto* benchCmd =
        app.add_subcommand("bench", "Time training steps of a reference model on synthetic data");
    benchCmd->add_option("--preset", presetList,
                         "imdb, charrnn, poems or all (comma-separated list allowed)");
    benchCmd->add_option("--device", bench.device, "cpu, cpu:THREADS or cuda:N");
    benchCmd->add_option("--precision", bench.precision, "fp32, bf16 or fp16");
    benchCmd->add_option("--steps", bench.steps, "Timed steps");
    benchCmd->add_option("--warmup", bench.warmup, "Untimed warm-up steps");
    benchCmd->add_option("--batch-size", bench.batchSize, "Override the preset's batch size");
    benchCmd->add_option("--backend", bench.backend, "LSTM backend: auto, torch or fused")
        ->check(CLI::IsMember({"auto", "torch", "fused"}));
    benchCmd->add_flag("--json", bench.json, "Machine-readable output");

    // Ranks 1..N-1 of `train --nproc N` (and of the app's multi-process device): everything comes from rank 0
    // through the torchrun variables the launcher sets. Not for people, so not listed in --help.
    auto* workerCmd = app.add_subcommand("worker", "A worker process of a data-parallel run (started by rank 0)");
    workerCmd->group("");

    CompareOptions cmp;
    auto* cmpCmd = app.add_subcommand("compare", "Compare run folders: table, chart PNG, metrics CSV");
    cmpCmd->add_option("RUN_DIR", cmp.runDirs, "Run folders")->required();
    cmpCmd->add_option("--png", cmp.png, "Write the overlay loss chart here");
    cmpCmd->add_option("--csv", cmp.csv, "Write all metrics (long format) here");
    cmpCmd->add_option("--target-loss", cmp.targetLoss, "Loss for the time-to-target column");
    cmpCmd->add_flag("--json", cmp.json, "Machine-readable output");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        printError(e.what() + std::string(" (see --help)"));
        return 2;
    }

    try {
        if (devices->parsed()) return runDevices(json);
        if (inspectCmd->parsed()) return runInspect(inspect);
        if (trainCmd->parsed()) {
            train.config = buildConfig(trainCmd, trainFlags, train.corpus);
            train.nprocGiven = trainCmd->count("--nproc") > 0;
            train.threadsGiven = trainCmd->count("--threads") > 0 ||
                                 (trainCmd->count("--device") > 0 && trainFlags.device.find(':') != std::string::npos);
            return runTrain(std::move(train));
        }
        if (resumeCmd->parsed()) return runResume(resume);
        if (genCmd->parsed()) {
            gen.generate.form = wb::poemFormFromString(form);
            return runGenerate(gen);
        }
        if (clsCmd->parsed()) {
            if (cls.text.empty() && cls.file.empty()) throw wb::InputError("classify needs --text or --file");
            return runClassify(cls);
        }
        if (benchCmd->parsed()) {
            std::stringstream list(presetList == "all" ? std::string("imdb,charrnn,poems") : presetList);
            for (std::string p; std::getline(list, p, ',');) bench.presets.push_back(p);
            return runBench(bench);
        }
        if (cmpCmd->parsed()) return runCompare(cmp);
        if (workerCmd->parsed()) {
            const auto spec = wb::distributedSpecFromEnvironment();
            if (!spec || spec->rank == 0)
                throw wb::InputError("worker is started by rank 0 of a data-parallel run, with RANK > 0 and "
                                     "WORLD_SIZE set (use train --nproc N)");
            return runWorker(*spec, {});
        }
    } catch (const wb::InputError& e) {
        printError(e.what());
        return 2;
    } catch (const std::exception& e) {
        std::string what = e.what();
        printError(what.substr(0, what.find('\n')));
        return 1;
    }
    return 2;
}
