// How long the experiment will take on the ticked devices, before it starts: the engine's time model
// (workbench/engine/SweepEstimate.h), which times a few steps of each run's very configuration in a child
// lstm-workbench-cli process and scales them to the planned steps and validations (docs/benchmarks.md,
// "Sweep estimate": within 10 % of the measured time there). On a thread of its own: the GUI thread never
// waits, and a cancelled estimate's calibration run is stopped.
#pragma once

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

#include "workbench/domain/Config.h"
#include "workbench/engine/SweepEstimate.h"

class QThread;

namespace wb {
class CellLauncher;
}

namespace wbui {

class RunEstimator : public QObject {
    Q_OBJECT
public:
    explicit RunEstimator(QString cli, QObject* parent = nullptr);
    ~RunEstimator() override;

    // Estimates the runs one after another (an estimate in flight is cancelled first); finished() or
    // failed() follows.
    void estimate(const std::vector<wb::ExperimentConfig>& runs);
    // Stops the estimate, if any, and waits for it (a run about to start must not share the cores with its
    // calibration).
    void cancel();
    bool busy() const;
    // The last estimate that finished: each run's time model too (what fits a time budget).
    const wb::RunsEstimate& result() const { return m_result; }

Q_SIGNALS:
    // Seconds for all the runs, one after another.
    void finished(double seconds);
    void failed(const QString& why);

private:
    QString m_cli;
    QThread* m_thread = nullptr;
    std::unique_ptr<wb::CellLauncher> m_launcher;
    quint64 m_estimates = 0;  // started or cancelled; the thread's end says which it is of
    wb::RunsEstimate m_result;
    QString m_error;
};

}  // namespace wbui
