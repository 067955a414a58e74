// Runs one TrainingJob on the worker thread.
#include "training/TrainingWorker.h"

#include "common/QtConversions.h"
#include "workbench/Training.h"

namespace wbui {

TrainingWorker::TrainingWorker(wb::ExperimentConfig config, QString runDir,
                               std::shared_ptr<const wb::Corpus> corpus,
                               std::shared_ptr<TrainingChannel> channel, std::optional<ResumeRequest> resume)
    : m_config(std::move(config)),
      m_runDir(std::move(runDir)),
      m_corpus(std::move(corpus)),
      m_channel(std::move(channel)),
      m_resume(resume) {}

void TrainingWorker::run() {
    auto status = wb::RunStatus::Failed;
    try {
        if (m_channel->stopRequested()) {
            Q_EMIT finished(static_cast<int>(wb::RunStatus::Stopped));
            return;
        }
        std::unique_ptr<wb::TrainingJob> owned =
            m_resume ? wb::TrainingJob::resume(toStd(m_runDir), m_resume->epochs, m_resume->maxSteps,
                                               m_resume->learningRate)
                     : std::make_unique<wb::TrainingJob>(m_config, toStd(m_runDir), m_corpus);
        wb::TrainingJob& job = *owned;
        m_channel->attach(&job);
        // The callbacks run here, on the worker thread: copy into the channel, signal at most once per
        // drain, never touch the GUI.
        wb::TrainingCallbacks callbacks;
        callbacks.onMetrics = [this](const std::vector<wb::MetricRecord>& records) {
            if (m_channel->pushRecords(records)) Q_EMIT dataAvailable();
        };
        callbacks.onProgress = [this](const wb::TrainingProgress& progress) {
            if (m_channel->pushProgress(progress)) Q_EMIT dataAvailable();
        };
        callbacks.onLog = [this](const std::string& line) {
            if (m_channel->pushLog(toQt(line))) Q_EMIT dataAvailable();
        };
        try {
            job.run(callbacks);
            status = job.status();
        } catch (...) {
            m_channel->detach();
            throw;
        }
        m_channel->detach();
    } catch (const std::exception& e) {
        Q_EMIT errorOccurred(describeError(e));
        status = wb::RunStatus::Failed;
    } catch (...) {
        Q_EMIT errorOccurred(QStringLiteral("Training stopped with an unknown error."));
        status = wb::RunStatus::Failed;
    }
    Q_EMIT finished(static_cast<int>(status));
}

}  // namespace wbui
