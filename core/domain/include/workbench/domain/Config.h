// The experiment configuration: everything that defines a run. Stored as config.json in the run folder,
// edited by the GUI's experiment panel and the CLI's flags. Plain data; validate() explains bad values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workbench/domain/Corpus.h"
#include "workbench/domain/DeviceSpec.h"
#include "workbench/domain/Vocabulary.h"

namespace wb {

enum class Task { LanguageModel, Classifier };
enum class Pooling { Last, Mean, Max };
enum class OptimizerKind { Adam, Sgd, RmsProp };
// The learning rate over a run: Constant after the warm-up, or Cosine, falling from it to 0 at the last
// planned step (train/LrSchedule.h).
enum class LrSchedule { Constant, Cosine };
// Auto: the fastest precision whose accuracy is checked for the task on the device (device/Autocast.h,
// choosePrecision); a run records what it chose and why (run.json "precision_choice").
enum class Precision { Fp32, Bf16, Fp16, Auto };
enum class LstmBackend { Auto, Torch, Fused };
// How a CPU step uses several threads: Batch, each thread trains its share of the batch's rows for the whole
// step (train/ThreadShards.h); Ops, LibTorch and OpenBLAS split every operation between the threads.
enum class ThreadSplit { Batch, Ops };
// What data-parallel processes send each other every step: fp32 gradients (None), or fp16 ones (half the
// bytes: the Reducer's built-in FP16_COMPRESS hook, as DDP's fp16_compress_hook).
enum class GradCompression { None, Fp16 };  // Fused: reserved for the fused CPU LSTM (PERF issue)
// A training step on a CUDA device as one CUDA graph, captured once per batch shape and replayed
// (train/CudaGraphStep.h): Auto wherever it can run (a CUDA device, one process), Off never.
enum class CudaGraphMode { Auto, Off };

std::string toString(Task v);               // "lm" | "classify"
std::string toString(Pooling v);            // "last" | "mean" | "max"
std::string toString(OptimizerKind v);      // "adam" | "sgd" | "rmsprop"
std::string toString(LrSchedule v);         // "constant" | "cosine"
std::string toString(Precision v);          // "fp32" | "bf16" | "fp16" | "auto"
std::string toString(ThreadSplit v);        // "batch" | "ops"
std::string toString(GradCompression v);    // "none" | "fp16"
std::string toString(LstmBackend v);        // "auto" | "torch" | "fused"
std::string toString(CudaGraphMode v);      // "auto" | "off"
Task taskFromString(const std::string& s);  // these throw InputError naming the accepted values
Pooling poolingFromString(const std::string& s);
OptimizerKind optimizerFromString(const std::string& s);
LrSchedule lrScheduleFromString(const std::string& s);
Precision precisionFromString(const std::string& s);
ThreadSplit threadSplitFromString(const std::string& s);
GradCompression gradCompressionFromString(const std::string& s);
LstmBackend lstmBackendFromString(const std::string& s);
CudaGraphMode cudaGraphModeFromString(const std::string& s);

// Values, ranges, names and defaults of every field below live in one table, configFields()
// (workbench/domain/ConfigFields.h): a new ExperimentConfig takes the table's initial values; the members
// here are only zero-initialised.
struct DataConfig {
    std::string corpus;  // path (or catalog name) of the corpus
    CorpusFormat format{};
    TokenLevel tokens{};
    std::int64_t vocabSize{};  // 0 = every token (chars); words default to 15000
    std::int64_t minCount{};
    std::int64_t seqLen{};  // LM window / classifier max tokens (pad or truncate)
    std::int64_t stride{};  // LM window stride; 0 = seqLen (non-overlapping)
    double valFraction{};
    double dataFraction{};   // share of the training split used (a sweep's data-size axis); 1 = all
    std::int64_t valSize{};  // validation samples scored each time, a fixed sample; 0 = the whole split
};

struct ModelConfig {
    std::int64_t embedding{};
    std::int64_t hidden{};
    std::int64_t layers{};
    bool bidirectional{};  // classifier only
    double dropout{};      // between LSTM layers and before the head
    Pooling pooling{};     // classifier only
    LstmBackend backend{};
};

struct TrainConfig {
    std::int64_t batchSize{};
    double learningRate{};
    OptimizerKind optimizer{};
    std::int64_t epochs{};
    std::int64_t maxSteps{};  // 0 = no limit; otherwise stops after this many steps
    LrSchedule lrSchedule{};
    std::int64_t lrWarmupSteps{};  // linear warm-up from 0 to learningRate; 0 = none
    // The steps the cosine schedule spans at least (0: the run's planned steps): a run cut short of a longer
    // plan (fitToSeconds) keeps that plan's learning rates, which learn faster than the same steps decayed.
    std::int64_t lrScheduleSteps{};
    double weightDecay{};              // decoupled (AdamW): weights shrink by lr * decay each step; 0 = off
    double gradClip{};                 // max L2 norm; 0 = off
    std::int64_t validateEvery{};      // steps; 0 = once per epoch
    std::int64_t earlyStopPatience{};  // validations without improvement; 0 = off
    std::int64_t validationSamples{};  // language models: samples generated at each validation; 0 = none
    std::uint64_t seed{};
    std::int64_t warmupSteps{};  // excluded from throughput
    std::int64_t logEvery{};     // steps between train-loss records
    bool tensorboard{};          // TensorBoard event files in the run folder (workbench/domain/TensorBoard.h)
};

// The device rows of config.json.
struct DeviceConfig {
    // The device, the CPU threads of each process (0 = every core) and the data-parallel processes (c10d:
    // Gloo on CPUs, NCCL on GPUs; each with a shard of every global batch; docs/architecture.md,
    // "Scale-out"): config.json's device, threads and processes rows. The device row reads "cpu:4" as the
    // CPU with 4 threads, so config.json holds "cpu" and 4, which older readers read alike.
    DeviceSpec spec{};
    Precision precision{};
    ThreadSplit threadSplit{};          // with threads >= 2 on a CPU, in one process
    GradCompression gradCompression{};  // with processes >= 2 (or a torchrun launch)
    CudaGraphMode cudaGraph{};          // on a CUDA device
    bool tf32{};  // CUDA fp32 matrix products in TF32 (cuBLAS; cuDNN's LSTM always may, as in PyTorch)
};

struct ExperimentConfig {
    ExperimentConfig();  // the table's initial values

    std::string name;  // free text shown in lists; may be empty
    Task task{};
    DataConfig data;
    ModelConfig model;
    TrainConfig train;
    DeviceConfig device;

    std::string toJson() const;  // pretty JSON, with the format version (workbench/domain/FormatVersion.h)
    // Wrong types throw InputError(sourceName). Format 1 (no "format_version"): missing keys take the table's
    // initial values. Format 2: a missing field that changes what the model computes (shapesModel) throws,
    // others take the initial values. A newer major format throws, naming both versions. Unknown keys are
    // ignored, each named in `warnings` when given.
    static ExperimentConfig fromJson(const std::string& json, const std::string& sourceName,
                                     std::vector<std::string>* warnings = nullptr);

    // Human-readable problems ("hidden size must be at least 1"), empty when the config is usable.
    std::vector<std::string> validate() const;
    // Throws InputError with the first problem; sourceName (a config.json the values came from) is named
    // in the message when given.
    void ensureValid(const std::string& sourceName = {}) const;
};

// Defaults per task (the GUI's "sensible defaults"): small enough to train on 2 CPU cores.
ExperimentConfig defaultConfig(Task task);

// Validation runs in batches of the training batch size, but never fewer than this many rows: a small
// training batch would make validation slow for no gain (the engine's validationBatchSize; the Python
// package reads it from its rules, workbench/domain/PackageRules.h).
inline constexpr std::int64_t kMinValidationBatch = 64;

// The reference models of docs/performance.md: "imdb", "charrnn", "poems" (shapes and hyper-parameters only).
std::vector<std::string> presetNames();
ExperimentConfig presetConfig(const std::string& name);  // throws InputError for unknown names

}  // namespace wb
