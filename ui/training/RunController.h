// Owns the thread of one run (Qt's Worker/Controller pattern): moves a TrainingWorker onto a QThread,
// drains the worker's channel on the GUI thread and re-emits typed signals. Stop and pause are plain
// methods that set the job's atomic flags. The destructor stops the run and waits for the thread, so
// closing the window mid-run leaves a consistent run folder.
#pragma once

#include <QObject>
#include <QString>
#include <QThread>

#include <memory>
#include <optional>
#include <vector>

#include "training/TrainingChannel.h"
#include "training/TrainingWorker.h"
#include "workbench/domain/Config.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/DeviceSpec.h"
#include "workbench/domain/Metrics.h"
#include "workbench/engine/Training.h"

namespace wbui {

class RunController : public QObject {
    Q_OBJECT
public:
    enum class State { Queued, Running, Paused, Completed, Stopped, Failed };

    RunController(wb::ExperimentConfig config, QString runDir, QString label,
                  std::shared_ptr<const wb::Corpus> corpus, QObject* parent = nullptr);
    // Continues the run in runDir from its last checkpoint with new totals (the Runs list's Resume).
    void setResume(const ResumeRequest& request) { m_resume = request; }
    // What was settled about a new run before it started: its number while queued, how its length was fitted.
    void setNewRun(const NewRunPlan& plan) { m_newRun = plan; }
    bool resuming() const { return m_resume.has_value(); }
    ~RunController() override;

    void start();
    void setPaused(bool paused);
    void stop();
    // Blocks until the worker thread has ended (after stop(): within one batch).
    void waitForFinished();

    State state() const { return m_state; }
    bool isActive() const { return m_state == State::Running || m_state == State::Paused; }
    bool isDone() const {
        return m_state == State::Completed || m_state == State::Stopped || m_state == State::Failed;
    }
    bool isCpu() const { return m_config.device.spec.isCpu(); }
    const QString& runDir() const { return m_runDir; }
    const QString& label() const { return m_label; }
    const wb::ExperimentConfig& config() const { return m_config; }
    const wb::TrainingProgress& lastProgress() const { return m_progress; }
    const QString& lastError() const { return m_lastError; }
    static QString stateName(State state);

Q_SIGNALS:
    void stateChanged(wbui::RunController::State state);
    void progressChanged(const wb::TrainingProgress& progress);
    void metricsReceived(const std::vector<wb::MetricRecord>& records);
    void logLine(const QString& line);
    void errorOccurred(const QString& message);
    void finished();

private:
    void drain();
    void onWorkerFinished(int status);
    void setState(State state);

    wb::ExperimentConfig m_config;
    QString m_runDir;
    QString m_label;
    std::shared_ptr<const wb::Corpus> m_corpus;
    std::shared_ptr<TrainingChannel> m_channel = std::make_shared<TrainingChannel>();
    QThread m_thread;
    State m_state = State::Queued;
    wb::TrainingProgress m_progress;
    QString m_lastError;
    std::optional<ResumeRequest> m_resume;
    NewRunPlan m_newRun;
};

}  // namespace wbui
