// TrainingSession's train-loss records (see TrainingSession.h): the loss summed on the device between
// records, read every logEvery steps (one synchronisation, and in a data-parallel run the all-reduce that
// carries the ranks' stop votes), and the window a stop cuts short, kept in the checkpoint so that a resumed
// run's records are a run never stopped's. Apart from the loop, so that each file holds one idea.
#include "train/TrainingSession.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "distributed/ReducerSync.h"
#include "workbench/domain/Baseline.h"
#include "workbench/domain/Errors.h"

namespace wb {

// The train loss summed since the last record, over every rank: one synchronisation; in a data-parallel run
// one small all-reduce that also carries every rank's stop vote. Stops on NaN/Inf.
double TrainingSession::takeLossSum() {
    double total = m_lossSum.item<double>();
    m_lossSum.zero_();
    if (dataParallel()) {
        auto votes = torch::tensor({total, m_job.stopRequested ? 1.0 : 0.0}, torch::kFloat64);
        m_sync->sum(votes);
        total = votes[0].item<double>() / m_sync->worldSize();
        m_stopAgreed = m_stopAgreed || votes[1].item<double>() > 0;
    }
    if (!std::isfinite(total)) {
        std::ostringstream os;
        os << "the training loss became " << (std::isnan(total) ? "NaN" : "infinite") << " at step "
           << m_state.step << ": lower the learning rate (now " << m_tc.learningRate << ")"
           << (m_tc.gradClip > 0 ? "" : " or enable gradient clipping")
           << "; the last good checkpoint is kept";
        throw TrainingError(os.str());
    }
    return total;
}

// At a stop, the steps since the last record go into the checkpoint, not into a record of their own: the
// resumed run finishes the window, and its record is the uninterrupted run's. Checks the loss as a record
// does (the weights about to be saved are finite).
void TrainingSession::keepOpenLossWindow() {
    if (m_lossCount == 0) return;
    m_state.openLossSum = takeLossSum();
    m_state.openLossCount = m_lossCount;
    m_lossCount = 0;
}

// Records the mean train loss since the last record.
void TrainingSession::recordTrainLoss() {
    if (m_lossCount == 0) return;
    const double mean = takeLossSum() / static_cast<double>(m_lossCount);
    m_lossCount = 0;
    m_state.lastTrainLoss = mean;
    m_meter->update();
    const double wall = m_meter->wall();
    emit("train", "loss", mean, wall);
    emit("train", "lr", m_setup->optimizer->learningRate(), wall);
    if (m_config.task == Task::LanguageModel)
        emit("train", "perplexity", std::exp(std::min(mean, 50.0)), wall);
    if (hasBitsPerCharacter(m_config)) emit("train", "bpc", bitsFromNats(mean), wall);
    if (m_meter->measuring() && m_state.measuredSeconds > 0) {
        const double sps = m_meter->samplesPerSecond();
        emit("speed", "samples_per_s", sps, wall);
        emit("speed", "tokens_per_s", sps * static_cast<double>(m_tokensPerSample), wall);
        emit("speed", "us_per_sample", 1e6 / sps, wall);
    }
    m_sink.flush();
}

}  // namespace wb
