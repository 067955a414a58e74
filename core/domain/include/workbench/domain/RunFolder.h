// The run folder shared by GUI and CLI (docs/architecture.md): config.json, run.json, metrics.csv,
// vocab.json, model.safetensors, optimizer.safetensors, evaluation.json (classifiers). Reading a run needs
// no tensors, so the GUI lists runs cheaply.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workbench/domain/Baseline.h"
#include "workbench/domain/Config.h"
#include "workbench/domain/Metrics.h"

namespace wb {

// Interrupted is never written: run.json says "running" but no process holds the run's lock any more (it was
// killed, crashed, or its machine went down), which the readers derive (loadRunFolder).
enum class RunStatus { Created, Running, Completed, Stopped, Failed, Interrupted };
// "created" | "running" | "completed" | "stopped" | "failed" | "interrupted"
std::string toString(RunStatus s);
RunStatus runStatusFromString(const std::string& s);

// Throughput and quality, as stored in run.json's "summary".
struct RunSummary {
    std::int64_t steps = 0;
    double epochs = 0;
    std::int64_t samples = 0;
    double trainSeconds = 0;      // wall time of training steps, validation excluded
    double samplesPerSecond = 0;  // warm-up steps excluded
    double usPerSample = 0;
    double tokensPerSecond = 0;
    double finalTrainLoss = 0;
    // The validation numbers are 0 in memory and null in run.json while the run was never validated: a loss
    // is never 0, so bestValLoss > 0 is what "validated" means (validated()), in old files with 0.0 too.
    double bestValLoss = 0;
    double bestValAccuracy = 0;
    double finalValLoss = 0;
    double finalValAccuracy = 0;
    std::int64_t parameters = 0;
    // From the job's making (opening or tokenizing the corpus, the splits, the model) to its first training
    // step, and the wall time of the last validation: what a corpus's size must not grow (issue #30).
    double startupSeconds = 0;
    double validationSeconds = 0;

    bool validated() const { return bestValLoss > 0; }

    // The "summary" object of run.json, which `train --json` prints too: one writer, so that neither lacks
    // a field the other has. NaN and infinite numbers are written as null.
    std::string toJson() const;
};

// How a run's length was chosen when a time budget chose it (`train --fit-minutes`, the app's first launch):
// a short calibration here timed its steps and validations (workbench/engine/SweepEstimate.h), and the
// experiment's steps were cut to the most that fit the budget. run.json's "plan"; null when nothing was
// fitted.
struct RunPlan {
    double budgetSeconds = 0;           // 0: no budget chose the run's length
    std::int64_t steps = 0;             // the steps planned to fit the budget (the config's max_steps)
    std::int64_t stepsAsked = 0;        // what the experiment asked for before it was fitted
    double estimatedSeconds = 0;        // the time model's estimate of the fitted run, start to end
    double calibrationUsPerSample = 0;  // the calibration's measured training time per sample
    bool fitted() const { return budgetSeconds > 0; }
    // "1980 of the 4200 steps asked, to fit 10.0 min on this machine (timed here: 9400 µs a sample;
    // estimate 9.9 min)"; "" when not fitted.
    std::string describe() const;
};

struct RunInfo {
    std::string id;
    // The run's number among the runs of its folder (1, 2, …: one more than the highest there when it
    // started), leading its default name ("run N · …") wherever runs are listed; 0 in runs from before the
    // field.
    std::int64_t number = 0;
    RunStatus status = RunStatus::Created;
    std::string device;  // "cpu", "cuda:0"
    std::string deviceName;
    std::int64_t threads = 0;  // per process
    std::string precision;
    std::string precisionChoice;  // why, when the config asked for auto ("auto: bf16 (...)"); else empty
    // Data-parallel runs (train --nproc, torchrun): processes, their backend ("gloo", "nccl") and the host of
    // each rank; 1, "" and {} for a run in one process.
    std::int64_t worldSize = 1;
    std::string backend;
    std::vector<std::string> hosts;
    // The Slurm job whose sitting wrote this (SLURM_JOB_ID; workbench/engine/SlurmJob.h): a job Slurm starts
    // again after a time limit or a preemption continues the run it finds here under its own id. "" outside
    // Slurm and in runs from before the field.
    std::string slurmJob;
    // The gradient bytes each rank puts into the all-reduces of one step (fp32 or, compressed, fp16); a ring
    // all-reduce sends 2(N-1)/N of them out of each rank. 0 in one process and in runs from before the field.
    std::int64_t gradientBytesPerStep = 0;
    // The most GPU memory the caching allocator had allocated at once (rank 0's device), at the end of the
    // sitting; 0 on a CPU and in runs from before the field.
    std::int64_t peakGpuMemoryBytes = 0;
    // A CUDA run's training step (train/CudaGraphStep.h): "graph (N shapes captured)", or "op by op" and why
    // not; empty on a CPU and in runs from before the field. tf32: its fp32 products ran in TF32.
    std::string cudaGraph;
    bool tf32 = false;
    // The corpus's token store (workbench/domain/TokenStore.h) the run read: its .json, whether it was there
    // already or made for this run, the seconds to open or make it, the source's bytes and checksum. Empty
    // path: the corpus was encoded in memory (the app's loaded corpus), or the run is from before token
    // stores.
    std::string tokenStore;
    bool tokenStoreReused = false;
    double tokenStoreSeconds = 0;
    std::int64_t corpusBytes = 0;
    std::string corpusChecksum;
    std::string libtorchVersion;
    std::string blas;
    // OpenBLAS's threads per process as OpenBLAS reports them (1 with the batch split over threads: each
    // thread calls BLAS single-threaded); -1 for another BLAS, whose threads the run cannot set; 0 when not
    // recorded (a GPU run, a run from before this field).
    std::int64_t blasThreads = 0;
    std::string host;
    // The host's 1-minute load average and online CPUs when the run started (-1, 0: not recorded): a run
    // slower than it should be on a busy machine says so in the comparison.
    double loadAverage = -1;
    std::int64_t hostCpus = 0;
    std::string startedAt, endedAt;  // ISO 8601 UTC
    std::string timingMethod;
    std::string error;  // why it failed, when it did
    // What the run could not do as asked, in a sentence each (a thread count the BLAS cannot take).
    std::vector<std::string> warnings;
    RunPlan plan;  // how the run's length was fitted to a time budget, when it was
    RunSummary summary;

    std::string toJson() const;
    static RunInfo fromJson(const std::string& json, const std::string& sourceName);
};

// What the user says about a run: its name, notes and tags (annotations.json). Only the user's actions write
// it (the app's Rename and Notes, `train --name`), never the training, so renaming a live run cannot race
// the trainer's writes of run.json.
struct RunAnnotations {
    std::string name;  // "" = the default name (RunRecord::defaultName)
    std::string notes;
    std::vector<std::string> tags;

    bool empty() const { return name.empty() && notes.empty() && tags.empty(); }
    std::string toJson() const;
    static RunAnnotations fromJson(const std::string& json, const std::string& sourceName);
};

struct RunRecord {
    std::string dir;
    ExperimentConfig config;
    RunInfo info;
    RunAnnotations annotations;
    std::vector<MetricRecord> metrics;
    std::optional<NgramBaseline> baseline;  // a language model's baseline.json
    bool hasCheckpoint = false;
    // An interrupted run (RunStatus::Interrupted): the step Resume continues from, its last checkpoint's
    // (resumeFromCheckpoint), or without a checkpoint the last step metrics.csv holds. A failed run: its last
    // checkpoint's step (resumeFromCheckpoint), or -1 when it has none. -1 otherwise.
    std::int64_t interruptedAt = -1;
    bool resumeFromCheckpoint = false;
    // What the Status column and the CLI say: "completed", "interrupted at step 154", "disk full · resumes
    // at step 200" (a run that failed on a full disk: its error says "No space left on device").
    std::string statusText() const;
    // The same in a sentence or two, for a tooltip: why a run is interrupted and what Resume does with it.
    std::string statusDetail() const;
    // "cpu · 2 threads · fp32" style label of the device.
    std::string label() const;
    // The corpus as a short name: a prepared corpus's name, else the file or folder name without extension.
    std::string corpusName() const;
    // "#12 · tang-quatrains-7 LM · cpu · 2 threads · fp32 · 11-24 14:05" (the run's number, the start in
    // local time): tells two runs of one experiment on one device apart, and reads first what a cut title
    // keeps.
    std::string defaultName() const;
    std::string numberPrefix() const;  // "#12 · ", "" for a run from before numbers
    // The user's name after the run's number when set ("run 12 · baseline"), else the default: what every
    // legend, table and export shows.
    std::string name() const;
    // For a list whose other columns show the device, the task and the state: the run's number, then the
    // user's name when set (as name()), else "#12 · 11-24 14:05:09 · tang-quatrains-7" (the start, to the
    // second, in local time, then the corpus): short enough to read whole in a side pane, and different for
    // two runs started a second apart.
    std::string shortName() const;
    // Runs whose curves and speeds can be compared: the same task, corpus and model. Two runs with equal keys
    // differ only in device, precision, batch, schedule or length.
    std::string comparabilityKey() const;
    std::string comparabilityLabel() const;  // "tang-quatrains-7 · LM · 2×256, emb 64"
};

namespace runfiles {
inline constexpr const char* kConfig = "config.json";
inline constexpr const char* kRun = "run.json";
inline constexpr const char* kMetrics = "metrics.csv";
inline constexpr const char* kVocab = "vocab.json";
inline constexpr const char* kModel = "model.safetensors";
inline constexpr const char* kOptimizer = "optimizer.safetensors";
// The weights of the validation with the lowest loss so far (for generation and classification only: no
// optimizer state, so a resume continues from the last checkpoint).
inline constexpr const char* kBestModel = "best-model.safetensors";
inline constexpr const char* kEvaluation = "evaluation.json";  // classifiers (workbench/domain/Evaluation.h)
inline constexpr const char* kBaseline = "baseline.json";  // language models (workbench/domain/Baseline.h)
// Language models: a few samples generated at every validation, one JSON object per line.
inline constexpr const char* kSamples = "samples.jsonl";
// The validation samples every validation scores (inputs, targets, a classifier's lengths; int32), so that a
// run is scored again elsewhere (python/: lstm_workbench's validate()) without its corpus.
inline constexpr const char* kValidation = "validation.safetensors";
// TensorBoard's event files (workbench/domain/TensorBoard.h), one per sitting:
// events.out.tfevents.<time>.<host>...
inline constexpr const char* kEventsPrefix = "events.out.tfevents.";
// Held (flock) by the process training the run, for as long as it trains (workbench/domain/RunLock.h).
inline constexpr const char* kLock = "run.lock";
inline constexpr const char* kAnnotations = "annotations.json";
// Held while annotations.json is read, merged and written, by whichever process saves it.
inline constexpr const char* kAnnotationsLock = "annotations.lock";
}  // namespace runfiles

bool isRunFolder(const std::string& dir);  // has config.json and run.json
// The number a new run in parentDir gets: one more than the highest of the run folders there (0 counts as
// none). The caller holds runNumberLockPath(parentDir) until the new run's run.json is written, so that two
// runs started at once (two devices, two windows) never share one.
std::int64_t nextRunNumber(const std::string& parentDir);
// The same for a run whose number was shown before it started (the app's queued runs: issue #63, a queued
// run's row changed its name when it started): `reserved` when no run in parentDir has it, else
// nextRunNumber. Under the same lock.
std::int64_t runNumberFor(const std::string& parentDir, std::int64_t reserved);
std::string runNumberLockPath(const std::string& parentDir);
// annotations.json of a run folder: {} when there is none; InputError naming the file when it is malformed.
RunAnnotations readRunAnnotations(const std::string& dir);
// What saving a dialog's edits did: the annotations now in the file, and the fields ("name", "notes") that
// another writer had changed too since the dialog read them, whose value this save replaced (theirs).
struct AnnotationsSaved {
    RunAnnotations annotations;
    std::vector<std::string> overwritten;
    RunAnnotations theirs;  // what the other writer had saved, for the fields in overwritten
};
// Saves edits made on `base` (what the editor read): under an exclusive lock on annotations.lock, the file is
// read again and only what the editor changed is applied to it. A field the editor left alone keeps what
// another process saved meanwhile; tags are merged as a set (the tags the editor added, less the ones it
// removed); a name or notes both changed take the editor's (the later write) and are listed in overwritten.
AnnotationsSaved saveRunAnnotations(const std::string& dir, const RunAnnotations& base,
                                    const RunAnnotations& edited);
// Replaces every field (the same lock): `train --name` on a run it made.
void writeRunAnnotations(const std::string& dir, const RunAnnotations& annotations);
// Deletes a run folder and everything in it. Refuses (InputError) a path that is not a run folder, so that a
// wrong path can never delete anything else.
void removeRunFolder(const std::string& dir);
// Reads config, run info and metrics. Throws InputError naming the file for anything missing or malformed.
RunRecord loadRunFolder(const std::string& dir);

// Writes bytes to path via a temporary file in the same folder, flushed and renamed over the target.
// Throws TrainingError on failure, leaving the old file (if any) intact and no temporary behind.
void writeFileAtomic(const std::string& path, const std::string& bytes);
// A whole file. Throws InputError naming path when it is missing, not a regular file or unreadable; what,
// when given, says what the file is for in that message ("PATH: cannot read the tone table: no such file").
std::string readFile(const std::string& path, const std::string& what = {});

// One row per run for the comparison table.
struct ComparisonRow {
    std::string runId, label, device;
    std::string name;  // RunRecord::name()
    double samplesPerSecond = 0, usPerSample = 0;
    double secondsToTarget = -1;  // wall seconds until the row's target was first reached; -1: not reached
    std::string target;           // "val loss ≤ 5.210", "val accuracy ≥ 85.0 %"
    // Why secondsToTarget is -1: "not reached", or "not validated" for a run without the curve its group's
    // target is read from (it is no part of "the level every validated run reached"); "" when reached.
    std::string missed;
    std::string status;  // RunRecord::statusText(): "completed", "interrupted at step 154"
    // 0 when the run was never validated (validated is false): shown as "–" / "none", null in JSON.
    double bestValLoss = 0, bestValAccuracy = 0;
    bool validated = false;
    // Character models: the best val loss in bits per character, and the run's n-gram baseline on the same
    // split (baseline.json); -1 when the run has none.
    double bestValBpc = -1, baselineBpc = -1;
    double speedup = 1;       // samples/s relative to the baseline of its group; 0 when not measured
    int group = 0;            // runs with one comparabilityKey share a group (numbered from 0 in order)
    std::string groupLabel;   // RunRecord::comparabilityLabel()
    bool baseline = false;    // the run the group's speed-ups are relative to
    std::string note;         // why a number may surprise (a busy machine, runs that trained at once)
    bool overlapped = false;  // it trained while another compared run trained on the same host
};

struct CompareOptions {
    // > 0: one target loss for every run (val loss, train loss when never validated). 0: a target per group
    // and task: a language model by the val loss the slowest-learning run of its group reached (its best),
    // a classifier by the val accuracy every run of its group reached.
    double targetLoss = 0;
    int baseline = -1;  // index of the run speed-ups are relative to, in its group; -1: each group's slowest
};
std::vector<ComparisonRow> compareRuns(const std::vector<RunRecord>& runs, const CompareOptions& options);
inline std::vector<ComparisonRow> compareRuns(const std::vector<RunRecord>& runs, double targetLoss) {
    return compareRuns(runs, CompareOptions{targetLoss, -1});
}
// Every metric of every run, long format: metrics.csv's columns, then run_name and device (RunRecord::name()
// and label(): what the charts and tables call the run).
std::string comparisonCsv(const std::vector<RunRecord>& runs);
// For each run, the others that trained on the same host while it did (their startedAt-endedAt intervals
// overlap; a run still running lasts until now): they shared the host's cores.
std::vector<std::vector<std::size_t>> overlappingRuns(const std::vector<RunRecord>& runs);
// One loss every run reached on the curve its time to target is read from (val loss, train loss when never
// validated): the highest of their best losses on those curves, as metrics.csv holds them (it rounds what
// run.json keeps exact, so run.json's bests could lie a hair below a curve). 0 when no run has a loss.
double commonLossTarget(const std::vector<RunRecord>& runs);

}  // namespace wb
