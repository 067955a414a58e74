// A sweep run by the app: `lstm-workbench-cli sweep` in a child process (each cell is itself a child `train`
// process, so the cells' timings and peak memory are their own and the app stays responsive), paused (the
// running cell finishes) or cancelled (the cell is redone on resume), and followed through its folder: the
// CLI rewrites sweep.json atomically at every change of a cell, and a watch on the folder re-reads it. Also
// the sweep's time estimate (`sweep --plan --json`). What it shows is the Sweep tab's business.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

#include "workbench/Sweep.h"

class QFileSystemWatcher;
class QTemporaryDir;

namespace wbui {

class CliProcess;

class SweepRunner : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Running, Pausing, Stopped, Finished };

    explicit SweepRunner(QObject* parent = nullptr);
    ~SweepRunner() override;  // a running sweep stops at once; its running cell is redone on resume

    void setCliProgram(const QString& program);

    // A new sweep of `base` over the grid into dir (created by the CLI). False with *error set.
    bool start(const wb::ExperimentConfig& base, const std::vector<wb::SweepAxis>& grid, int repeats,
               const QString& dir, QString* error);
    bool resume(QString* error);  // the cells not done, in the sweep shown
    void pause();                 // the running cell finishes, then the sweep stops
    void keepGoing();             // a pause not taken yet is withdrawn: the sweep goes on after the cell
    void cancel();                // stops now

    // Shows a sweep folder (made here or by the CLI elsewhere). False with *error set when it is not one;
    // the sweep shown before stays.
    bool open(const QString& dir, QString* error);
    // Re-reads sweep.json; sweepChanged() when it could.
    void reload();

    State state() const { return m_state; }
    bool isRunning() const { return m_state == State::Running || m_state == State::Pausing; }
    QString dir() const { return m_dir; }
    const std::optional<wb::Sweep>& sweep() const { return m_sweep; }
    int doneCells() const;  // of the sweep shown
    // Seconds left by the wall time per cell finished since the start or resume; < 0 before one finished.
    double secondsLeft() const;

    // Estimates the grid's time in a planner process; estimated() or estimateFailed() follows.
    void estimate(const wb::ExperimentConfig& base, const std::vector<wb::SweepAxis>& grid, int repeats);
    bool isEstimating() const;

Q_SIGNALS:
    void stateChanged(State state);
    void sweepChanged();
    // The sweep process ended: error is its one-line error ("" when none); someFailed when cells failed.
    void stopped(const QString& error, bool someFailed);
    void estimated(double seconds);
    void estimateFailed(const QString& why);

private:
    bool launch(const QStringList& arguments, QString* error);
    void onFinished(int exitCode, bool crashed);
    void setState(State state);
    void watch(const QString& dir);
    QString writeConfig(const wb::ExperimentConfig& config, const QString& name, QString* error);

    CliProcess* m_cli;
    CliProcess* m_planner;
    QFileSystemWatcher* m_watcher;
    std::unique_ptr<QTemporaryDir> m_scratch;  // the base config of a starting sweep or estimate
    QString m_dir;
    std::optional<wb::Sweep> m_sweep;
    State m_state = State::Idle;
    QElapsedTimer m_clock;  // since the process started
    int m_doneAtLaunch = 0;
    bool m_cancelRequested = false;
};

}  // namespace wbui
