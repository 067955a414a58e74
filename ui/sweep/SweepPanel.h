// The Sweep tab: the experiment trained over a grid (devices x batch sizes x data sizes x any field) as one
// object. The user edits the grid (SweepGridEditor) and sees the run count and an estimate before starting;
// the sweep runs in the CLI (SweepRunner), and the tab shows its folder as it changes: the live grid of cells
// and the sortable result table (SweepResultsView) and the plots (SweepPlotTabs). Pause lets the running cell
// finish; Cancel stops at once (the cell is redone on Resume). A sweep folder opened from the File menu or
// dropped on the window is shown the same way.
#pragma once

#include <QString>
#include <QWidget>

#include <functional>
#include <optional>
#include <vector>

#include "sweep/SweepRunner.h"
#include "workbench/domain/SweepResults.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;
class QTabWidget;

namespace wbui {

class ElidedLabel;
class SweepChart;
class SweepGridEditor;
class SweepPlotTabs;
class SweepResultsView;

class SweepPanel : public QWidget {
    Q_OBJECT
public:
    using State = SweepRunner::State;

    explicit SweepPanel(QWidget* parent = nullptr);

    // The experiment a new sweep starts from (the Experiment page and the loaded corpus). Returns false with
    // *why set when there is none (no corpus, invalid settings).
    using BaseProvider = std::function<bool(wb::ExperimentConfig* config, QString* why)>;
    void setBaseProvider(BaseProvider provider);
    // New sweeps go to ROOT/sweep-YYYYMMDD-HHMMSS.
    void setSweepsRoot(const QString& root) { m_sweepsRoot = root; }
    // The lstm-workbench-cli that runs sweeps (default: the one beside this program).
    void setCliProgram(const QString& program);

    void setAxes(const std::vector<wb::SweepAxis>& axes);
    std::vector<wb::SweepAxis> axes() const;  // the rows with a field and values, as typed
    void setRepeats(int repeats);
    void setStepsPerCell(int steps);  // 0: the experiment's epochs
    int stepsPerCell() const;

    // Re-plans from the axes: the run count, or the first problem. Updates the plan line and Start.
    bool replan();
    QString planText() const { return m_planText; }
    // Estimates the sweep's duration with a short calibration run (`sweep --plan`), asynchronously.
    void estimate();
    void useRunOn();

    bool start(const QString& dir = QString());  // a new sweep; false with the reason in lastError()
    void pause();                                // the running cell finishes, then the sweep stops
    void keepGoing();                            // a pause not taken yet is withdrawn
    bool resume();                               // runs the cells not done
    void cancel();                               // stops now; the running cell is redone on resume
    State state() const { return m_runner->state(); }
    bool isRunning() const { return m_runner->isRunning(); }
    QString lastError() const { return m_lastError; }
    // What quitting the app now would do to a running or pausing sweep, for the question asked before it
    // quits; "" when no sweep runs.
    QString quitConsequence() const;
    QPushButton* pauseButton() const { return m_pauseButton; }
    // Where Start and Resume run the cells: 0 this machine, 1 the Slurm cluster this machine submits to.
    QComboBox* runOnBox() const;
    QPushButton* slurmSettingsButton() const;

    // Shows a sweep folder (made here or by the CLI elsewhere). False with *error set when it is not one.
    bool openSweep(const QString& dir, QString* error);
    QString sweepDir() const { return m_runner->dir(); }
    // Re-reads sweep.json and the finished cells' run folders.
    void refresh() { m_runner->reload(); }

    // Everything a sweep shows in one folder: sweep.json, results.csv, the plots as PNG and CSV, each cell's
    // config.json, run.json and metrics.csv, and environment.json.
    bool exportBundle(const QString& dir, QString* error);

    QTableWidget* cellTable() const;
    QTableWidget* resultTable() const;
    SweepChart* chart(int i) const;
    QComboBox* baselineBox() const;
    QTabWidget* plotTabs() const;

Q_SIGNALS:
    void stateChanged(State state);
    void openRunRequested(const QString& runDir);

private:
    QWidget* buildControls();
    void connectRunner();
    void onSweepChanged();
    void onStopped(const QString& error, bool someFailed);
    void onStateChanged();
    void updateProgress();
    std::optional<wb::ExperimentConfig> baseConfig(QString* why) const;
    QString newSweepFolder() const;

    BaseProvider m_provider;
    QString m_sweepsRoot, m_lastError, m_planText, m_stopNote;
    SweepRunner* m_runner;
    wb::SweepResults m_results;
    int m_shownDone = -1;  // finished cells the result table and plots show

    SweepGridEditor* m_grid;
    SweepResultsView* m_tables;
    SweepPlotTabs* m_plots;
    ElidedLabel* m_folder;
    ElidedLabel* m_progress;
    QPushButton* m_startButton;
    QPushButton* m_pauseButton;
    QPushButton* m_resumeButton;
    QPushButton* m_cancelButton;
    QPushButton* m_exportButton;
};

}  // namespace wbui
