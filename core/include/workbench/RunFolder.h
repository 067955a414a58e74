// The run folder shared by GUI and CLI (docs/architecture.md): config.json, run.json, metrics.csv,
// vocab.json, model.safetensors, optimizer.safetensors. Reading a run needs no tensors, so the GUI lists runs cheaply.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workbench/Config.h"
#include "workbench/Metrics.h"
#include "workbench/Training.h"

namespace wb {

struct RunInfo {
    std::string id;
    RunStatus status = RunStatus::Created;
    std::string device;        // "cpu", "cuda:0"
    std::string deviceName;
    std::int64_t threads = 0;          // per process
    std::string precision;
    // Data-parallel runs (train --nproc, torchrun): processes, their backend ("gloo", "nccl") and the host of
    // each rank; 1, "" and {} for a run in one process.
    std::int64_t worldSize = 1;
    std::string backend;
    std::vector<std::string> hosts;
    std::string libtorchVersion;
    std::string blas;
    // OpenBLAS's threads per process as OpenBLAS reports them (1 with the batch split over threads: each
    // thread calls BLAS single-threaded); -1 for another BLAS, whose threads the run cannot set; 0 when not
    // recorded (a GPU run, a run from before this field).
    std::int64_t blasThreads = 0;
    std::string host;
    std::string startedAt, endedAt;  // ISO 8601 UTC
    std::string timingMethod;
    std::string error;         // why it failed, when it did
    // What the run could not do as asked, in a sentence each (a thread count the BLAS cannot take).
    std::vector<std::string> warnings;
    RunSummary summary;

    std::string toJson() const;
    static RunInfo fromJson(const std::string& json, const std::string& sourceName);
};

struct RunRecord {
    std::string dir;
    ExperimentConfig config;
    RunInfo info;
    std::vector<MetricRecord> metrics;
    bool hasCheckpoint = false;
    // "cpu · 2 threads · fp32" style label for legends and tables.
    std::string label() const;
};

namespace runfiles {
inline constexpr const char* kConfig = "config.json";
inline constexpr const char* kRun = "run.json";
inline constexpr const char* kMetrics = "metrics.csv";
inline constexpr const char* kVocab = "vocab.json";
inline constexpr const char* kModel = "model.safetensors";
inline constexpr const char* kOptimizer = "optimizer.safetensors";
}  // namespace runfiles

bool isRunFolder(const std::string& dir);  // has config.json and run.json
// Reads config, run info and metrics. Throws InputError naming the file for anything missing or malformed.
RunRecord loadRunFolder(const std::string& dir);

// Writes bytes to path via a temporary file in the same folder, flushed and renamed over the target.
// Throws TrainingError on failure, leaving the old file (if any) intact and no temporary behind.
void writeFileAtomic(const std::string& path, const std::string& bytes);
std::string readFile(const std::string& path);  // throws InputError when missing or unreadable

// One row per run for the comparison table.
struct ComparisonRow {
    std::string runId, label, device;
    double samplesPerSecond = 0, usPerSample = 0;
    double secondsToTarget = -1;  // wall seconds until val loss (train loss when never validated) <= target
    double bestValLoss = 0, bestValAccuracy = 0;
    double speedup = 1;           // samples/s relative to the slowest run
};
std::vector<ComparisonRow> compareRuns(const std::vector<RunRecord>& runs, double targetLoss);
std::string comparisonCsv(const std::vector<RunRecord>& runs);  // all metrics, long format, every run

}  // namespace wb
