// The experiment configuration: everything that defines a run. Stored as config.json in the run folder,
// edited by the GUI's experiment panel and the CLI's flags. Plain data; validate() explains bad values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workbench/Corpus.h"
#include "workbench/Vocabulary.h"

namespace wb {

enum class Task { LanguageModel, Classifier };
enum class Pooling { Last, Mean, Max };
enum class OptimizerKind { Adam, Sgd, RmsProp };
enum class Precision { Fp32, Bf16, Fp16 };
enum class LstmBackend { Auto, Torch, Fused };  // Fused: reserved for the fused CPU LSTM (PERF issue)

std::string toString(Task v);       // "lm" | "classify"
std::string toString(Pooling v);    // "last" | "mean" | "max"
std::string toString(OptimizerKind v);  // "adam" | "sgd" | "rmsprop"
std::string toString(Precision v);  // "fp32" | "bf16" | "fp16"
Task taskFromString(const std::string& s);  // these throw InputError naming the accepted values
Pooling poolingFromString(const std::string& s);
OptimizerKind optimizerFromString(const std::string& s);
Precision precisionFromString(const std::string& s);

struct DataConfig {
    std::string corpus;                        // path (or catalog name) of the corpus
    CorpusFormat format = CorpusFormat::Auto;
    TokenLevel tokens = TokenLevel::Char;
    std::int64_t vocabSize = 0;                // 0 = every token (chars); words default to 15000
    std::int64_t minCount = 1;
    std::int64_t seqLen = 64;                  // LM window / classifier max tokens (pad or truncate)
    std::int64_t stride = 0;                   // LM window stride; 0 = seqLen (non-overlapping)
    double valFraction = 0.1;
};

struct ModelConfig {
    std::int64_t embedding = 64;
    std::int64_t hidden = 128;
    std::int64_t layers = 2;
    bool bidirectional = false;                // classifier only
    double dropout = 0.0;                      // between LSTM layers and before the head
    Pooling pooling = Pooling::Last;           // classifier only
    LstmBackend backend = LstmBackend::Auto;
};

struct TrainConfig {
    std::int64_t batchSize = 32;
    double learningRate = 2e-3;
    OptimizerKind optimizer = OptimizerKind::Adam;
    std::int64_t epochs = 1;
    std::int64_t maxSteps = 0;                 // 0 = no limit; otherwise stops after this many steps
    double gradClip = 5.0;                     // max L2 norm; 0 = off
    std::int64_t validateEvery = 0;            // steps; 0 = once per epoch
    std::int64_t earlyStopPatience = 0;        // validations without improvement; 0 = off
    std::uint64_t seed = 42;
    std::int64_t warmupSteps = 3;              // excluded from throughput
    std::int64_t logEvery = 10;                // steps between train-loss records
};

inline constexpr std::int64_t kMaxProcesses = 1024;  // a sanity bound on device.processes

struct DeviceConfig {
    std::string device = "cpu";                // "cpu" | "cuda:N"
    std::int64_t threads = 0;                  // CPU intra-op threads; 0 = library default
    Precision precision = Precision::Fp32;
    // Data-parallel processes (c10d: Gloo on CPUs, NCCL on GPUs), each with `threads` threads and a shard
    // of every global batch; 1 = this process alone. docs/architecture.md, "Scale-out".
    std::int64_t processes = 1;
};

struct ExperimentConfig {
    std::string name;                          // free text shown in lists; may be empty
    Task task = Task::LanguageModel;
    DataConfig data;
    ModelConfig model;
    TrainConfig train;
    DeviceConfig device;

    std::string toJson() const;  // pretty JSON
    // Missing keys take defaults; unknown keys are ignored; wrong types throw InputError(sourceName).
    static ExperimentConfig fromJson(const std::string& json, const std::string& sourceName);

    // Human-readable problems ("hidden size must be at least 1"), empty when the config is usable.
    std::vector<std::string> validate() const;
    // Throws InputError with the first problem; sourceName (a config.json the values came from) is named
    // in the message when given.
    void ensureValid(const std::string& sourceName = {}) const;
};

// Defaults per task (the GUI's "sensible defaults"): small enough to train on 2 CPU cores.
ExperimentConfig defaultConfig(Task task);

// The reference models of docs/performance.md: "imdb", "charrnn", "poems" (shapes and hyper-parameters only).
std::vector<std::string> presetNames();
ExperimentConfig presetConfig(const std::string& name);  // throws InputError for unknown names

}  // namespace wb
