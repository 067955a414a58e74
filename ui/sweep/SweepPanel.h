// The Sweep tab: the experiment trained over a grid (devices x batch sizes x data sizes x any field) as one
// object. The user picks axes and values and sees the run count and an estimate before starting; the grid
// runs in `lstm-workbench-cli sweep` as a child process (each cell is itself a child `train` process, so
// the cells' timings and peak memory are their own and the app stays responsive); the tab follows the
// sweep folder's sweep.json, showing the live grid of cells, the sortable result table (mean ± std over
// repeats) and the four plots. Pause lets the running cell finish; Cancel stops at once (the cell is redone
// on Resume). A sweep folder opened from the File menu or dropped on the window is shown the same way.
#pragma once

#include <QElapsedTimer>
#include <QProcess>
#include <QStringList>
#include <QWidget>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "workbench/Sweep.h"
#include "workbench/SweepPlots.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTabWidget;
class QTemporaryDir;
class QTimer;
class QVBoxLayout;

namespace wbui {

class ElidedLabel;
class SweepChart;

class SweepPanel : public QWidget {
    Q_OBJECT
public:
    enum class State { Idle, Running, Pausing, Stopped, Finished };

    explicit SweepPanel(QWidget* parent = nullptr);
    ~SweepPanel() override;

    // The experiment a new sweep starts from (the Experiment page and the loaded corpus). Returns false with
    // *why set when there is none (no corpus, invalid settings).
    using BaseProvider = std::function<bool(wb::ExperimentConfig* config, QString* why)>;
    void setBaseProvider(BaseProvider provider);
    // New sweeps go to ROOT/sweep-YYYYMMDD-HHMMSS.
    void setSweepsRoot(const QString& root) { m_sweepsRoot = root; }
    // The lstm-workbench-cli that runs sweeps (default: the one beside this program).
    void setCliProgram(const QString& program) { m_cli = program; }

    void setAxes(const std::vector<wb::SweepAxis>& axes);
    std::vector<wb::SweepAxis> axes() const;  // the rows with a field and values, as typed
    void setRepeats(int repeats);
    void setStepsPerCell(int steps);  // 0: the experiment's epochs

    // Re-plans from the axes: the run count, or the first problem. Updates the plan label and Start.
    bool replan();
    QString planText() const;
    // Estimates the sweep's duration with a short calibration run (`sweep --plan`), asynchronously.
    void estimate();

    bool start(const QString& dir = QString());  // a new sweep; false with the reason in lastError()
    void pause();                                // the running cell finishes, then the sweep stops
    bool resume();                               // runs the cells not done
    void cancel();                               // stops now; the running cell is redone on resume
    State state() const { return m_state; }
    bool isRunning() const { return m_state == State::Running || m_state == State::Pausing; }
    QString lastError() const { return m_lastError; }

    // Shows a sweep folder (made here or by the CLI elsewhere). False with *error set when it is not one.
    bool openSweep(const QString& dir, QString* error);
    QString sweepDir() const { return m_dir; }
    // Re-reads sweep.json and the finished cells' run folders.
    void refresh();

    // Everything a sweep shows in one folder: sweep.json, results.csv, the plots as PNG and CSV, each cell's
    // config.json, run.json and metrics.csv, and environment.json.
    bool exportBundle(const QString& dir, QString* error);

    QTableWidget* cellTable() const { return m_cells; }
    QTableWidget* resultTable() const { return m_results; }
    SweepChart* chart(int i) const { return m_charts.at(static_cast<std::size_t>(i)); }
    QComboBox* baselineBox() const { return m_baseline; }
    QTabWidget* plotTabs() const { return m_plotTabs; }

signals:
    void stateChanged(State state);
    void openRunRequested(const QString& runDir);

private:
    void addAxisRow(const QString& field, const QString& values);
    bool launch(const QStringList& arguments);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void setState(State s);
    void fillCells();
    void fillResults();
    void fillPlots();
    void updateProgress();
    std::optional<wb::ExperimentConfig> baseConfig(QString* why) const;

    BaseProvider m_provider;
    QString m_sweepsRoot, m_cli, m_dir, m_lastError, m_planText;
    State m_state = State::Idle;
    QProcess* m_process = nullptr;
    QProcess* m_estimator = nullptr;
    std::unique_ptr<QTemporaryDir> m_scratch;  // the base config of a starting sweep
    QByteArray m_stderr;
    QTimer* m_poll;
    QElapsedTimer m_clock;  // since the process started
    int m_doneAtLaunch = 0;
    bool m_cancelRequested = false;

    std::optional<wb::Sweep> m_sweep;
    wb::SweepResults m_resultsData;
    int m_shownDone = -1;  // finished cells the result table and plots show

    QVBoxLayout* m_axisRows;
    QSpinBox* m_repeats;
    QSpinBox* m_steps;
    QLabel* m_plan;
    QLabel* m_estimate;
    ElidedLabel* m_folder;
    QLabel* m_progress;
    QPushButton* m_startButton;
    QPushButton* m_estimateButton;
    QPushButton* m_pauseButton;
    QPushButton* m_resumeButton;
    QPushButton* m_cancelButton;
    QPushButton* m_exportButton;
    QTableWidget* m_cells;
    QTableWidget* m_results;
    QComboBox* m_baseline;
    std::vector<SweepChart*> m_charts;
    QTabWidget* m_plotTabs;
    int m_cellsSized = -1;
};

}  // namespace wbui
