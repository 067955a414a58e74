// The presenter between the panels that describe an experiment (the loaded corpus, the Experiment form, the
// ticked devices) and the runs: it checks that an experiment can run, names and makes each run's folder,
// enters it in the RunCollection (charts, tables) and hands a RunController per device to the RunScheduler
// (worker threads); it resumes, pauses, stops and clears runs. The window only lays out and wires, and the
// tests drive this object instead of the window's widgets.
#pragma once

#include <QColor>
#include <QObject>
#include <QString>

#include <cstdint>
#include <vector>

#include "training/RunController.h"
#include "workbench/domain/Config.h"

namespace wbui {

class CorpusPanel;
class DeviceList;
class ErrorPresenter;
class ExperimentPanel;
class RunCollection;
class RunScheduler;

class RunLauncher : public QObject {
    Q_OBJECT
public:
    // The views the launcher reads the experiment from; none is owned.
    struct Views {
        CorpusPanel* corpus = nullptr;
        ExperimentPanel* experiment = nullptr;
        DeviceList* devices = nullptr;
    };
    RunLauncher(const Views& views, ErrorPresenter* errors, QObject* parent = nullptr);
    ~RunLauncher() override;

    RunCollection* runs() const { return m_runs; }
    RunScheduler* scheduler() const { return m_scheduler; }

    // Where new runs go (made if missing; kept canonical so that folders compare equal).
    void setRunsDirectory(const QString& dir);
    QString runsDirectory() const { return m_runsRoot; }

    // The experiment as set on the Experiment page, on the loaded corpus. False with *why (one sentence)
    // when there is no corpus or the form has a problem. Runs, finders and sweeps all start from this.
    bool experimentOnCorpus(wb::ExperimentConfig* config, QString* why) const;
    // The same for a finder (named in the message): it measures on one device, the last one ticked. False
    // after telling the user.
    bool finderExperiment(const QString& finder, wb::ExperimentConfig* config) const;

    // The experiment's config on each ticked device, as startRuns would train them (no folder made). False
    // with *why (one sentence) when there is nothing to run.
    bool plannedRuns(std::vector<wb::ExperimentConfig>* runs, QString* why) const;
    // The first run fitted to this machine (RunControls): the Experiment page takes its length (max steps and
    // the learning-rate schedule's steps),
    // and a run that trains `fitted` (as plannedRuns makes it) records the plan in its run.json. Kept in the
    // settings, so that a run started after a relaunch records it too.
    void applyFittedPlan(const wb::ExperimentConfig& fitted, const wb::RunPlan& plan);
    // The plan a run of this config records: the fitted one for that very config, else none.
    wb::RunPlan fittedPlanFor(const wb::ExperimentConfig& planned) const;
    // Starts the experiment on every ticked device. False (with an error shown) when it cannot start.
    bool startRuns();
    // Continues a stopped or finished run from its last checkpoint with new totals (Runs list → Resume…).
    bool resumeRun(const QString& dir, const ResumeRequest& request);
    // Puts a run's settings on the Experiment page, keeping the corpus loaded here. False after telling.
    bool adoptSettingsOf(const QString& dir);
    // Takes the runs that are not training off the charts and tables (they stay in the Runs list).
    void clearFinishedRuns();
    void pauseAll(bool paused);
    void stopAll();
    // Window close: stops every run and waits for its thread (the run folders are then complete); no error
    // dialog is shown after this.
    void shutdown();

Q_SIGNALS:
    // A run for the progress rows: every run with a chart has one (a finished run's says how it ended) until
    // it leaves the charts (RunCollection::runRemoved).
    void runQueued(wbui::RunController* controller, const QColor& color);
    void logLine(const QString& line);
    void statusMessage(const QString& text, int milliseconds);
    // The experiment the Run button would start changed: its settings, its devices, or (corpusLoaded) the
    // corpus it trains on.
    void experimentEdited(bool corpusLoaded);
    // Runs were started or resumed: the window shows the Training tab.
    void runsStarted();
    // The Experiment page needs fixing (its problems are in the error shown).
    void experimentRejected();
    void settingsAdopted();
    // A run ended and its folder was read back; hasModel: it saved a model the playground can load.
    void runFinished(const QString& dir, bool hasModel);

private:
    // The Experiment page's config on the loaded corpus, unchecked.
    wb::ExperimentConfig experimentAsSet() const;
    // Wires a run's signals to the collection, the log and the error dialog, and queues it.
    void launch(RunController* controller, const QColor& color);
    void onRunFinished(RunController* controller);
    // Lets go of the controllers of finished runs that left the charts (those on the charts keep their row).
    void releaseFinishedRuns();
    QString uniqueRunDir(const QString& base) const;

    Views m_views;
    ErrorPresenter* m_errors;
    RunCollection* m_runs;
    RunScheduler* m_scheduler;
    QString m_runsRoot;
    std::int64_t m_lastReserved = 0;  // the highest number a run started here was given
    bool m_closing = false;
};

}  // namespace wbui
