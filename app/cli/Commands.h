// The CLI's subcommands as plain functions over option structs; CliMain.cpp only parses flags into them. Each
// is defined in a file of its own, NAMECommand.cpp (train, resume and worker share TrainingRun.h), and
// returns the process exit code: 0 success, 1 runtime failure, 2 bad usage or bad input.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workbench/domain/Config.h"
#include "workbench/engine/Distributed.h"
#include "workbench/engine/Inference.h"

struct InspectOptions {
    std::string corpus;
    std::string format = "auto";
    std::int64_t preview = 3;
    bool json = false;
};

struct TrainOptions {
    std::string corpus;
    std::string out;
    wb::ExperimentConfig config;  // defaults/preset/config file with the flags applied
    bool nprocGiven = false;      // --nproc on the command line (refused under torchrun)
    bool threadsGiven = false;    // --threads or --device cpu:N
    std::string runName;          // --name: also the run's name in annotations.json (what lists show)
    double fitMinutes = 0;        // --fit-minutes: max steps cut to fit this time, from a calibration here
    bool json = false;
    bool quiet = false;
};

struct ResumeOptions {
    std::string runDir;
    std::int64_t epochs = 0, maxSteps = 0, processes = 0;
    double learningRate = 0;
    bool json = false;
    bool quiet = false;
};

struct GenerateCliOptions {
    std::string runDir;
    std::string checkpoint = "last";  // or "best"
    wb::GenerateOptions generate;
    bool json = false;
};

struct ClassifyOptions {
    std::string runDir;
    std::string checkpoint = "last";  // or "best"
    std::string text, file;
    std::string lines;            // a file of texts, one per line, classified in padded batches
    std::int64_t batchSize = 64;  // with lines
    std::int64_t topK = 5;
    bool explain = false;
    bool json = false;
};

struct ExportOptions {
    std::string runDir;
    std::string checkpoint = "last";  // or "best"
    std::string onnx;                 // the model file to write
    bool json = false;
};

struct BenchCliOptions {
    std::vector<std::string> presets;
    std::string device = "cpu";
    std::string precision = "fp32";
    std::string backend = "auto";  // LSTM backend: auto, torch or fused
    std::string threadSplit;       // batch or ops; "" = the config's default
    std::int64_t steps = 20, warmup = 3, batchSize = 0;
    std::string cudaGraph = "auto";  // CUDA: auto or off
    bool tf32 = false, profile = false;
    bool json = false;
};

struct SweepOptions {
    std::string target;  // a corpus (with out) or a sweep folder to resume
    std::string out;
    std::vector<std::string> grid;  // "FIELD=V1,V2,…"
    int repeats = 1;
    double targetLoss = 0;
    bool plan = false, json = false, quiet = false;
    std::string on = "this-machine";            // or "slurm": where the cells run
    std::string partition, account, timeLimit;  // on Slurm
};

struct CompareOptions {
    std::vector<std::string> runDirs;
    std::string png, csv;
    double targetLoss = 0;
    std::string baseline;  // one of runDirs
    bool json = false;
};

struct VerseOptions {
    std::string poems;   // a poems JSON or a text file of poems separated by blank lines
    std::string tables;  // the prepared corpus whose tones.json and rhymes.json check them; "" = poems' own
    bool mix = false;    // --mix: poems of random real lines instead (the baseline of docs/verse.md)
    unsigned mixSeed = 1;
    bool json = false;
};

struct PrepareOptions {
    std::vector<std::string> names;  // corpora to prepare, or "all"
    bool list = false, json = false, latest = false, force = false;
    std::vector<std::string> verify;
    std::string dest, offlineSource, chinese;
};

int runDevices(bool json);
int runInspect(const InspectOptions& o);
// `tokenize`: the corpus tokenized into its token store for these data settings (or the store opened when it
// is there), with the bytes per second; what `train` does first, done ahead (on a bigger machine, say).
int runTokenize(const wb::ExperimentConfig& config, const std::string& corpus, bool json, bool quiet);
int runTrain(TrainOptions o);
int runResume(const ResumeOptions& o);
// Rank r > 0 of a data-parallel job (`worker`, or `train`/`resume` started by torchrun): trains its shards
// quietly; corpus, when given, is this machine's path to the corpus rank 0 names.
int runWorker(const wb::DistributedSpec& spec, const std::string& corpus);
int runGenerate(const GenerateCliOptions& o);
int runClassify(const ClassifyOptions& o);
// `export RUN --onnx FILE`: the trained network as ONNX with its vocabulary beside it
// (TrainedModel::exportOnnx).
int runExport(const ExportOptions& o);
int runBench(const BenchCliOptions& o);
int runCompare(const CompareOptions& o);
int runVerse(const VerseOptions& o);
// Replaces this process with the corpus preparer; returns only when that cannot start.
int runPrepare(const PrepareOptions& o);
std::vector<std::string> prepareArguments(const PrepareOptions& o);
// base: the train flags applied to the defaults (new sweeps only).
int runSweep(const SweepOptions& o, const wb::ExperimentConfig& base);

// Prints wb::kCliErrorPrefix and the message on one line to stderr.
void printError(const std::string& message);
// Prints "warning: " and the message on one line to stderr.
void printWarning(const std::string& message);
// A run's model for generate, classify and export: checkpoint "last" or "best"; what loading read past
// (TrainedModel::warnings) printed as warnings.
std::unique_ptr<wb::TrainedModel> loadTrainedModel(const std::string& runDir, const std::string& checkpoint);
