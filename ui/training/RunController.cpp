// Owns the thread of one run and relays its progress to the GUI thread.
#include "training/RunController.h"

#include "training/TrainingWorker.h"

namespace wbui {

RunController::RunController(wb::ExperimentConfig config, QString runDir, QString label,
                             std::shared_ptr<const wb::Corpus> corpus, QObject* parent)
    : QObject(parent),
      m_config(std::move(config)),
      m_runDir(std::move(runDir)),
      m_label(std::move(label)),
      m_corpus(std::move(corpus)) {
    m_thread.setObjectName(QStringLiteral("training %1").arg(m_label));
}

RunController::~RunController() {
    m_channel->requestStop();
    m_thread.quit();
    m_thread.wait();
}

QString RunController::stateName(State state) {
    switch (state) {
        case State::Queued:
            return QStringLiteral("queued");
        case State::Running:
            return QStringLiteral("running");
        case State::Paused:
            return QStringLiteral("paused");
        case State::Completed:
            return QStringLiteral("completed");
        case State::Stopped:
            return QStringLiteral("stopped");
        case State::Failed:
            return QStringLiteral("failed");
    }
    return {};
}

void RunController::setState(State state) {
    if (m_state == state) return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void RunController::start() {
    if (m_state != State::Queued) return;
    auto* worker = new TrainingWorker(m_config, m_runDir, m_corpus, m_channel, m_resume, m_newRun);
    worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::started, worker, &TrainingWorker::run);
    connect(&m_thread, &QThread::finished, worker, &QObject::deleteLater);
    // Queued: these are emitted on the worker thread and handled here, on the GUI thread.
    connect(worker, &TrainingWorker::dataAvailable, this, &RunController::drain, Qt::QueuedConnection);
    connect(
        worker, &TrainingWorker::errorOccurred, this,
        [this](const QString& message) {
            m_lastError = message;
            Q_EMIT errorOccurred(message);
        },
        Qt::QueuedConnection);
    connect(worker, &TrainingWorker::finished, this, &RunController::onWorkerFinished, Qt::QueuedConnection);
    // Running until the worker says otherwise: a pause asked for before the start shows once it holds.
    setState(State::Running);
    m_thread.start();
}

void RunController::setPaused(bool paused) {
    if (isDone()) return;
    // Only asked for: the state follows what the worker reports (drain). A run over several processes
    // cannot pause, says so in its log and goes on; it must not read "paused" meanwhile.
    m_channel->setPaused(paused);
}

void RunController::stop() {
    m_channel->requestStop();
    if (m_state == State::Queued) {
        // Never started: nothing was written, nothing to wait for.
        setState(State::Stopped);
        Q_EMIT finished();
    }
}

void RunController::waitForFinished() {
    if (m_thread.isRunning()) {
        m_thread.quit();
        m_thread.wait();
    }
}

void RunController::drain() {
    TrainingChannel::Pending pending = m_channel->take();
    if (!pending.records.empty()) Q_EMIT metricsReceived(pending.records);
    if (pending.progress) {
        m_progress = *pending.progress;
        // The worker blocks with a "paused" report and reports again when it goes on.
        if (isActive()) setState(m_progress.phase == "paused" ? State::Paused : State::Running);
        Q_EMIT progressChanged(m_progress);
    }
    for (const QString& line : pending.log) Q_EMIT logLine(line);
}

void RunController::onWorkerFinished(int status) {
    drain();
    m_thread.quit();
    switch (static_cast<wb::RunStatus>(status)) {
        case wb::RunStatus::Completed:
            setState(State::Completed);
            break;
        case wb::RunStatus::Stopped:
            setState(State::Stopped);
            break;
        case wb::RunStatus::Failed:
            setState(State::Failed);
            break;
        default:
            setState(m_channel->stopRequested() ? State::Stopped : State::Completed);
            break;
    }
    Q_EMIT finished();
}

}  // namespace wbui
