// What a TrainingJob holds between its construction and its sittings (TrainingJob::Impl): the experiment,
// the prepared data, the progress restored from a checkpoint, the run's records and info, the thread-safe
// stop and pause flags, and its place in a data-parallel job.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "data/TextDatasets.h"
#include "distributed/DistributedContext.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/RunState.h"
#include "workbench/engine/Distributed.h"
#include "workbench/engine/Training.h"

namespace wb {

struct JobState {
    ExperimentConfig config;
    std::string runDir;
    std::shared_ptr<const Corpus> corpus;
    PreparedData data;
    bool resuming = false;
    ProgressState progress;  // restored from the checkpoint when resuming
    std::vector<MetricRecord> records;
    RunInfo info;
    RunPlan plan;  // how a time budget fitted the run's length (run.json's "plan"), if it did
    std::int64_t reservedNumber =
        0;                        // the number shown while the run was queued (TrainingJob::reserveNumber)
    std::string precisionChoice;  // why this precision, when the config asked for auto (run.json, the log)
    // When the job began to be made: its first step's time from here is run.json's startup_seconds.
    std::chrono::steady_clock::time_point madeAt = std::chrono::steady_clock::now();

    std::atomic<bool> stopRequested{false};
    std::atomic<bool> pausedFlag{false};
    std::mutex pauseMutex;
    std::condition_variable pauseChanged;
    std::atomic<RunStatus> status{RunStatus::Created};

    // Scale-out. Rank 0 joins a job started outside (torchrun) with joinSpec, or starts
    // config.device.spec.processes local processes itself; a worker (rank > 0) joined before it was built and
    // writes nothing.
    std::optional<DistributedSpec> joinSpec;
    std::unique_ptr<DistributedContext> workerContext;
    bool isWorker() const { return workerContext != nullptr; }
};

}  // namespace wb
