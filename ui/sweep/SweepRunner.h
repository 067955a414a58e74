// A sweep run by the app: the engine's sweep (workbench/engine/SweepRun.h) on a thread of its own, its cells
// child `train` processes of lstm-workbench-cli (so the cells' timings and peak memory are their own and the
// app stays responsive), paused (the running cell finishes) or cancelled (the cell is redone on resume), and
// followed through its folder: the sweep rewrites sweep.json atomically at every change of a cell, and a
// watch on the folder re-reads it (a sweep folder opened while the CLI runs it elsewhere is followed the
// same way). Also the sweep's time estimate (workbench/engine/SweepEstimate.h), on a thread too. What it
// shows is the Sweep tab's business.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

#include "workbench/domain/Sweep.h"
#include "workbench/engine/SweepRun.h"

class QFileSystemWatcher;

namespace wbui {

class SweepRunner : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Running, Pausing, Stopped, Finished };

    explicit SweepRunner(QObject* parent = nullptr);
    ~SweepRunner() override;  // a running sweep stops at once; its running cell is redone on resume

    // The program that trains the cells (default: the lstm-workbench-cli beside this program).
    void setCliProgram(const QString& program) { m_program = program; }
    // Where start() and resume() run the cells: this machine (nullopt), or each as a batch job of the Slurm
    // cluster this machine submits to (workbench/engine/SweepRun.h, makeSlurmLauncher).
    void setSlurm(std::optional<wb::SlurmSettings> slurm) { m_slurm = std::move(slurm); }

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

    // Estimates the grid's time (its calibration runs are child processes); estimated() or
    // estimateFailed() follows.
    void estimate(const wb::ExperimentConfig& base, const std::vector<wb::SweepAxis>& grid, int repeats);
    bool isEstimating() const;

Q_SIGNALS:
    void stateChanged(State state);
    void sweepChanged();
    // The sweep ended: error is its one-line error ("" when none); someFailed when cells failed.
    void stopped(const QString& error, bool someFailed);
    void estimated(double seconds);
    void estimateFailed(const QString& why);

private:
    struct Work;  // a sweep or an estimate on its thread
    bool launch(wb::Sweep sweep, QString* error);
    void onFinished(const QString& error, bool someFailed);
    void setState(State state);
    void watch(const QString& dir);
    static void finish(std::unique_ptr<Work>& work);

    QString m_program;
    std::optional<wb::SlurmSettings> m_slurm;
    QFileSystemWatcher* m_watcher;
    std::unique_ptr<Work> m_run, m_estimate;
    QString m_dir;
    std::optional<wb::Sweep> m_sweep;
    State m_state = State::Idle;
    QElapsedTimer m_clock;  // since the sweep started or resumed
    int m_doneAtLaunch = 0;
};

}  // namespace wbui
