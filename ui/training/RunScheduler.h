// Starts the runs of one comparison: GPU runs at once, CPU runs one after another by default so that they do
// not steal cores from each other (and LibTorch's CPU thread count is per process). Also the "all" controls.
#pragma once

#include <QList>
#include <QObject>
#include <QPointer>

#include <functional>

#include "training/RunController.h"

namespace wbui {

class RunScheduler : public QObject {
    Q_OBJECT
public:
    explicit RunScheduler(QObject* parent = nullptr);
    ~RunScheduler() override;

    void setSequentialCpu(bool sequential) { m_sequentialCpu = sequential; }
    bool sequentialCpu() const { return m_sequentialCpu; }

    // Takes ownership; the run starts now or when the CPU before it ends.
    void submit(RunController* controller);

    void pauseAll(bool paused);
    void stopAll();
    // Stops everything and waits for every worker thread (window close).
    void shutdown();
    // Lets go of the runs that have ended (their folders stay on disk), those `which` picks or all of them,
    // so that a long session of runs does not keep every finished controller, its thread and the corpus it
    // trained on in memory.
    void removeFinished(const std::function<bool(const RunController*)>& which = {});

    bool anyActive() const;
    bool anyPending() const;  // active or queued
    bool allPaused() const;
    // "2 running · 1 paused · 0 queued" for the status bar ("" when nothing is pending).
    QString summary() const;
    const QList<RunController*>& controllers() const { return m_controllers; }

Q_SIGNALS:
    void runSubmitted(wbui::RunController* controller);
    void activityChanged();
    void allFinished();

private:
    void startNext();
    bool cpuBusy() const;

    QList<RunController*> m_controllers;
    bool m_sequentialCpu = true;
};

}  // namespace wbui
