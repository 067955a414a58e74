// One sitting of a training run, from its start (or last checkpoint) until it completes, is stopped or
// fails. The loop reads like pytorch/examples' train(): each concern is a named part — a ThroughputMeter, a
// Validator, a Checkpointer, a MetricSink, a RunFolderWriter and a GradientSync that shards every global
// batch and combines gradients. A data-parallel run is the same loop with the c10d synchroniser.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "device/DeviceSetup.h"
#include "train/Checkpointer.h"
#include "train/GradientSync.h"
#include "train/JobState.h"
#include "train/MetricSink.h"
#include "train/RunFolderWriter.h"
#include "train/TensorBoardLog.h"
#include "train/ThreadShards.h"
#include "train/ThroughputMeter.h"
#include "train/TrainingStep.h"
#include "train/ValidationSamples.h"
#include "train/Validator.h"

namespace wb {

class TrainingSession {
public:
    TrainingSession(JobState& job, const TrainingCallbacks& callbacks);
    ~TrainingSession();
    TrainingSession(const TrainingSession&) = delete;
    TrainingSession& operator=(const TrainingSession&) = delete;

    RunSummary run();

private:
    void openRunFolder();
    void joinDataParallelJob();
    void buildModel();
    void describeRun();
    void measureBaseline();
    void takeSamples(double valLoss);
    void trainLoop();
    void trainBatch(const SeededOrder& order);
    void waitWhilePaused();
    void recordTrainLoss();
    void keepOpenLossWindow();
    double takeLossSum();
    bool validateAndCheckpoint();  // true when early stopping fires
    void recordEvaluation(const Validation& v, double wall);
    void saveCheckpoint();
    RunSummary finish();
    [[noreturn]] void fail(const std::exception& e);

    bool stopping() const;
    bool dataParallel() const { return m_sync && m_sync->worldSize() > 1; }
    double epochAt(std::int64_t step) const;
    void emit(const std::string& split, const std::string& metric, double value, double wall);
    void report(const std::string& phase, bool force);
    void log(const std::string& line) const;

    JobState& m_job;
    const TrainingCallbacks& m_callbacks;
    const ExperimentConfig& m_config;
    const TrainConfig& m_tc;
    torch::Device m_device;  // a data-parallel rank on CUDA moves to its own GPU (joinDataParallelJob)
    ProgressState& m_state;
    const std::int64_t m_stepsPerEpoch, m_plannedSteps, m_tokensPerSample;

    RunFolderWriter m_writer;
    MetricSink m_sink;
    bool m_createdDir = false;
    std::unique_ptr<DistributedContext> m_ownContext;  // rank 0's (a worker's lives in the job)
    DistributedContext* m_context = nullptr;
    // The job's CPU threads, the process's previous ones back when the session ends (declared before what
    // trains, so that it is destroyed after it).
    std::unique_ptr<CpuThreadsScope> m_threads;
    std::unique_ptr<TrainingSetup> m_setup;
    std::unique_ptr<GradientSync> m_sync;
    std::unique_ptr<ThreadShards> m_shards;  // a CPU step split by batch over threads (one process)
    EncodedSplit m_trainSplit;
    std::unique_ptr<Validator> m_validator;
    std::unique_ptr<Checkpointer> m_checkpointer;
    std::unique_ptr<ThroughputMeter> m_meter;
    std::unique_ptr<ValidationSamples> m_samples;  // a language model's, on the rank that writes the folder
    // This sitting's TensorBoard event file (train.tensorboard, on the rank that writes the folder).
    TensorBoardLog m_events;

    torch::Tensor m_lossSum;  // this rank's weighted train loss since the last record, on the device
    std::int64_t m_lossCount = 0;
    bool m_stopAgreed = false;  // data-parallel: every rank voted on it at the last loss record
    bool m_pauseRefused = false;
    bool m_graphFailureLogged = false;  // a failed CUDA graph capture, said once
    std::chrono::steady_clock::time_point m_lastProgress;
};

}  // namespace wb
