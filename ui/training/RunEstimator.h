// How long the experiment will take on the ticked devices, before it starts. Each device's run is planned by
// the CLI's sweep planner (`sweep --plan --json` on a one-cell grid), which times a few steps of that very
// configuration in a child process and scales them to the planned steps and validations (docs/benchmarks.md,
// "Sweep estimate": within 10 % of the measured time there). Out of process, like sweeps: the GUI thread
// never waits, and a cancelled estimate is a killed process.
#pragma once

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

#include "workbench/Config.h"

class QTemporaryDir;

namespace wbui {

class CliProcess;

class RunEstimator : public QObject {
    Q_OBJECT
public:
    explicit RunEstimator(QString cli, QObject* parent = nullptr);
    ~RunEstimator() override;

    // Estimates the runs one after another (an estimate in flight is cancelled first); finished() or
    // failed() follows.
    void estimate(const std::vector<wb::ExperimentConfig>& runs);
    // Kills the planner, if any (a run about to start must not share the cores with its calibration).
    void cancel();
    bool busy() const;

Q_SIGNALS:
    // Seconds for all the runs, one after another.
    void finished(double seconds);
    void failed(const QString& why);

private:
    void startNext();
    void onPlannerFinished(int code);

    QString m_cli;
    CliProcess* m_process = nullptr;
    std::unique_ptr<QTemporaryDir> m_scratch;
    std::vector<wb::ExperimentConfig> m_runs;
    std::size_t m_next = 0;
    double m_seconds = 0;
};

}  // namespace wbui
