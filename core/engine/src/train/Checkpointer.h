// Saving a run's checkpoint: only finite weights replace a good checkpoint; metrics.csv is written before the
// checkpoint pair (a resume drops records past its checkpoint, so a kill anywhere loses none it covers);
// run.json follows with the summary so far.
#pragma once

#include <string>

#include "train/MetricSink.h"
#include "train/RunFolderWriter.h"
#include "train/TrainingStep.h"
#include "workbench/domain/RunState.h"

namespace wb {

class Checkpointer {
public:
    Checkpointer(const RunFolderWriter& writer, TrainingSetup& setup, const ExperimentConfig& config,
                 ProgressState& state, const MetricSink& sink, RunInfo& info, std::int64_t tokensPerSample,
                 std::int64_t stepsPerEpoch)
        : m_writer(writer),
          m_setup(setup),
          m_config(config),
          m_state(state),
          m_sink(sink),
          m_info(info),
          m_tokensPerSample(tokensPerSample),
          m_stepsPerEpoch(stepsPerEpoch) {}

    // wall: the run's training seconds so far. Throws TrainingError when the weights are not finite (every
    // rank checks: their weights are equal, so they stop together).
    void save(double wall);
    // The current weights as the run's best (after save(), which checked they are finite).
    void saveBest(double valLoss);
    // The summary so far into run.json (and the info kept in memory).
    void writeSummary();

private:
    const RunFolderWriter& m_writer;
    TrainingSetup& m_setup;
    const ExperimentConfig& m_config;
    ProgressState& m_state;
    const MetricSink& m_sink;
    RunInfo& m_info;
    std::int64_t m_tokensPerSample, m_stepsPerEpoch;
};

}  // namespace wb
