// Runs one TrainingJob on the worker thread.
#include "training/TrainingWorker.h"

#include <filesystem>

#include "workbench/domain/CorpusCatalog.h"
#include "workbench/domain/TokenStore.h"
#include "workbench/engine/Training.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

TrainingWorker::TrainingWorker(wb::ExperimentConfig config, QString runDir,
                               std::shared_ptr<const wb::Corpus> corpus,
                               std::shared_ptr<TrainingChannel> channel, std::optional<ResumeRequest> resume,
                               NewRunPlan newRun)
    : m_config(std::move(config)),
      m_runDir(std::move(runDir)),
      m_corpus(std::move(corpus)),
      m_channel(std::move(channel)),
      m_resume(resume),
      m_newRun(newRun) {}

// A corpus on disk (a file, a folder, a prepared corpus) trains from its token store, so that the run reads
// it as the CLI does and a large one is not encoded in memory; the app's loaded copy is used only for a
// corpus that is not on disk.
std::shared_ptr<const wb::Corpus> TrainingWorker::corpusInMemory() const {
    try {
        std::error_code ec;
        if (!m_config.data.corpus.empty() &&
            std::filesystem::exists(wb::resolveCorpusPath(m_config.data.corpus), ec))
            return nullptr;
    } catch (const std::exception&) {
        // Not a path nor a prepared corpus: the loaded copy is all there is.
    }
    return m_corpus;
}

void TrainingWorker::run() {
    auto status = wb::RunStatus::Failed;
    try {
        if (m_channel->stopRequested()) {
            Q_EMIT finished(static_cast<int>(wb::RunStatus::Stopped));
            return;
        }
        // The corpus's tokenization (a first run on it) shows in the run's bar; Stop cancels it.
        const auto tokenizing = [this](std::uint64_t done, std::uint64_t total) {
            wb::TrainingProgress p;
            p.phase = kTokenizingPhase;
            p.phaseFraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0;
            if (m_channel->pushProgress(p)) Q_EMIT dataAvailable();
            return !m_channel->stopRequested();
        };
        std::unique_ptr<wb::TrainingJob> owned =
            m_resume
                ? wb::TrainingJob::resume(toStd(m_runDir), m_resume->epochs, m_resume->maxSteps,
                                          m_resume->learningRate)
                : std::make_unique<wb::TrainingJob>(m_config, toStd(m_runDir), corpusInMemory(), tokenizing);
        wb::TrainingJob& job = *owned;
        if (!m_resume) {
            job.setPlan(m_newRun.plan);
            job.reserveNumber(m_newRun.reservedNumber);
        }
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
    } catch (const wb::Cancelled&) {
        status = wb::RunStatus::Stopped;  // stopped while the corpus was tokenized: nothing was made
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
