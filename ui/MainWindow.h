// The main window of LSTM Workbench: corpus, experiment and runs on the left; live training charts, the
// comparison (overlay chart, table, throughput bars) and the playground on the right. Files and run
// folders can be dropped anywhere on it. Owns the RunScheduler, so closing the window stops and waits for
// every training thread (their run folders stay consistent).
#pragma once

#include <QMainWindow>
#include <QStringList>

#include <vector>

#include "training/RunController.h"

class QAction;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QSplitter;
class QTabWidget;

namespace wbui {

class ComparisonTable;
class CorpusPanel;
class DeviceList;
class ErrorPresenter;
class ExperimentPanel;
class OverlayChart;
class PlaygroundPanel;
class RunChartGrid;
class RunCollection;
class RunProgressPanel;
class RunScheduler;
class RunsPanel;
class SweepPanel;
class ThroughputChart;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // First launch (or every launch): the last corpus, else the default tang-quatrains-7 when prepared,
    // else a hint saying how to prepare it.
    void startFirstLaunch();

    // A dropped or opened path: a run folder goes to the comparison, a sweep folder to the Sweep tab,
    // anything else is loaded as a corpus.
    bool openPath(const QString& path);
    // Starts the experiment on every ticked device. False (with an error shown) when it cannot start.
    bool startRuns();
    // Continues a stopped or finished run from its last checkpoint with new totals (Runs list → Resume…).
    bool resumeRun(const QString& dir, const wbui::ResumeRequest& request);
    // Takes the runs that are not training off the charts and tables (they stay in the Runs list).
    void clearFinishedRuns();
    void pauseAll(bool paused);
    void stopAll();

    bool exportChart(const QString& path);
    bool exportCsv(const QString& path);
    bool exportBundle(const QString& dir);

    // Where new runs go (default: AppDataLocation/runs; $LSTM_WORKBENCH_RUNS overrides).
    void setRunsDirectory(const QString& dir);
    QString runsDirectory() const { return m_runsRoot; }

    ErrorPresenter* errors() const { return m_errors; }
    CorpusPanel* corpusPanel() const { return m_corpus; }
    ExperimentPanel* experimentPanel() const { return m_experiment; }
    DeviceList* deviceList() const { return m_devices; }
    RunScheduler* scheduler() const { return m_scheduler; }
    RunCollection* runs() const { return m_runs; }
    RunChartGrid* chartGrid() const { return m_grid; }
    OverlayChart* overlayChart() const { return m_overlay; }
    ComparisonTable* comparisonTable() const { return m_table; }
    ThroughputChart* throughputChart() const { return m_throughput; }
    PlaygroundPanel* playground() const { return m_playground; }
    SweepPanel* sweepPanel() const { return m_sweep; }
    RunsPanel* runsPanel() const { return m_runsPanel; }
    QTabWidget* mainTabs() const { return m_mainTabs; }
    QTabWidget* sideTabs() const { return m_sideTabs; }

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    // File drops load wherever they land, child widgets included (see the .cpp).
    bool eventFilter(QObject* watched, QEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void buildMenus();
    void buildLayout();
    void connectPanels();
    void restoreSettings();
    void saveSettings();
    void updateActions();
    void updateRecentMenu();
    void addRecent(const QString& path);
    void onCorpusLoaded(const QString& path);
    void onRunFinished(RunController* controller);
    // Wires a run's signals to the charts, the log and the error dialog, and queues it.
    void launch(RunController* controller, const QColor& color);
    void refreshPlaygroundRuns();
    void openCorpusDialog();
    void openRunDialog();
    void exportChartDialog();
    void exportCsvDialog();
    void exportBundleDialog();
    // The experiment as a finder should try it; false (after telling the user) when there is no corpus.
    bool finderConfig(const QString& finder, wb::ExperimentConfig* config);
    void runLrFinder();
    void runBatchSizeFinder();
    QString uniqueRunDir(const QString& base) const;
    void appendLog(const QString& line);

    ErrorPresenter* m_errors = nullptr;
    RunCollection* m_runs = nullptr;
    RunScheduler* m_scheduler = nullptr;
    QString m_runsRoot;
    QStringList m_recent;

    QSplitter* m_splitter = nullptr;
    QTabWidget* m_sideTabs = nullptr;
    QTabWidget* m_mainTabs = nullptr;
    CorpusPanel* m_corpus = nullptr;
    ExperimentPanel* m_experiment = nullptr;
    RunsPanel* m_runsPanel = nullptr;
    DeviceList* m_devices = nullptr;
    RunProgressPanel* m_progress = nullptr;
    RunChartGrid* m_grid = nullptr;
    OverlayChart* m_overlay = nullptr;
    ComparisonTable* m_table = nullptr;
    ThroughputChart* m_throughput = nullptr;
    PlaygroundPanel* m_playground = nullptr;
    SweepPanel* m_sweep = nullptr;
    QPlainTextEdit* m_log = nullptr;
    QLabel* m_statusRuns = nullptr;

    QMenu* m_recentMenu = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_pauseAction = nullptr;
    QAction* m_stopAction = nullptr;
    bool m_closing = false;
};

}  // namespace wbui
