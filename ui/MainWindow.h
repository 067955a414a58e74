// The main window of LSTM Workbench: corpus, experiment and runs on the left; live training charts, the
// comparison (overlay chart, table, throughput bars), the playground and sweeps on the right. Files and run
// folders can be dropped anywhere on it. The window lays out, wires and remembers; the RunLauncher it owns
// starts and stops the runs, so closing the window stops and waits for every training thread (their run
// folders stay consistent).
#pragma once

#include <QMainWindow>
#include <QStringList>

#include <functional>

#include "common/PageTabs.h"

class QAction;
class QLabel;
class QMenu;
class QSplitter;
class QTabWidget;

namespace wbui {

class CompareView;
class ComparisonExport;
class ComparisonTable;
class CorpusPanel;
class DeviceList;
class RunControls;
class ErrorPresenter;
class ExperimentPanel;
class OverlayChart;
class PlaygroundPanel;
class RunChartGrid;
class RunLauncher;
class RunsPanel;
class SweepPanel;
class ThroughputChart;
class TrainingView;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // First launch (or every launch): the last corpus, else the default tang-quatrains-7 when prepared,
    // else a hint saying how to prepare it.
    void startFirstLaunch();

    // A dropped or opened path: a run folder goes to the comparison, a sweep folder to the Sweep tab,
    // anything else is read as a corpus, on its own thread (the Corpus page says how it went). False when a
    // run or sweep folder cannot be opened.
    bool openPath(const QString& path);
    // Several dropped paths: run and sweep folders all open; of the rest, only the first loads as the corpus.
    void openPaths(const QStringList& paths);

    // Where new runs and sweeps go (default: AppDataLocation/runs; $LSTM_WORKBENCH_RUNS overrides).
    void setRunsDirectory(const QString& dir);
    QString runsDirectory() const;
    // The runs folder setting (File → Settings…): saved, and used now unless $LSTM_WORKBENCH_RUNS decides it.
    // False with *error set, nothing changed, when the folder cannot be made or written to.
    static constexpr const char* kRunsVariable = "LSTM_WORKBENCH_RUNS";
    static QString runsFolderSetting();  // the saved setting, or its default under the app's data folder
    bool setRunsFolderSetting(const QString& dir, QString* error);
    void showSettingsDialog();

    // The presenter that starts, stops and lists runs, and the Compare tab's exports.
    RunLauncher* launcher() const { return m_launcher; }
    ComparisonExport* comparisonExport() const { return m_export; }

    ErrorPresenter* errors() const { return m_errors; }
    CorpusPanel* corpusPanel() const { return m_corpus; }
    ExperimentPanel* experimentPanel() const { return m_experiment; }
    DeviceList* deviceList() const { return m_devices; }
    RunControls* runControls() const { return m_runControls; }
    RunChartGrid* chartGrid() const;
    TrainingView* trainingView() const { return m_training; }
    OverlayChart* overlayChart() const;
    ComparisonTable* comparisonTable() const;
    ThroughputChart* throughputChart() const;
    PlaygroundPanel* playground() const { return m_playground; }
    SweepPanel* sweepPanel() const { return m_sweep; }
    // Quitting while a sweep runs or pauses asks first, saying what happens to its running cell: the question
    // gets that text and answers true to quit. A message box by default; tests answer it themselves.
    using QuitQuestion = std::function<bool(const QString& consequence)>;
    void setQuitQuestion(QuitQuestion ask) { m_askToQuit = std::move(ask); }
    RunsPanel* runsPanel() const { return m_runsPanel; }
    PageTabs* mainTabs() const { return m_mainTabs; }
    PageTabs* sideTabs() const { return m_sideTabs; }

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    // The window manager's frame (title bar, borders) around the window, within the screen's available
    // area: it is added outside the size the window sets, and known only once the window is shown.
    void fitFrameOnScreen();
    void buildMenus();
    void buildFileMenu();
    void buildExperimentMenu();
    void buildViewAndHelpMenus();
    void buildToolbar();
    void buildLayout();
    QWidget* buildSide();
    void connectPanels();
    void restoreSettings();
    bool m_frameFitted = false;  // fitted after the first show
    QuitQuestion m_askToQuit;
    void saveSettings();
    void updateActions();
    void updateRecentMenu();
    void addRecent(const QString& path);
    void onCorpusLoaded(const QString& path);
    void openCorpusDialog();
    void openRunDialog();
    template <class Dialog>
    Dialog* openFinder(const QString& finder, const QString& errorTitle);
    void runLrFinder();
    void runBatchSizeFinder();
    void pauseAll(bool paused);
    void showStatus(const QString& text, int milliseconds);

    ErrorPresenter* m_errors = nullptr;
    RunLauncher* m_launcher = nullptr;
    ComparisonExport* m_export = nullptr;
    QStringList m_recent;

    QSplitter* m_splitter = nullptr;
    PageTabs* m_sideTabs = nullptr;
    PageTabs* m_mainTabs = nullptr;
    CorpusPanel* m_corpus = nullptr;
    ExperimentPanel* m_experiment = nullptr;
    RunsPanel* m_runsPanel = nullptr;
    DeviceList* m_devices = nullptr;
    RunControls* m_runControls = nullptr;
    TrainingView* m_training = nullptr;
    CompareView* m_compare = nullptr;
    PlaygroundPanel* m_playground = nullptr;
    SweepPanel* m_sweep = nullptr;
    QLabel* m_statusRuns = nullptr;

    QMenu* m_recentMenu = nullptr;
    QAction* m_openAction = nullptr;
    QAction* m_openRunAction = nullptr;
    QAction* m_exportChartAction = nullptr;
    QAction* m_exportCsvAction = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_pauseAction = nullptr;
    QAction* m_stopAction = nullptr;
};

}  // namespace wbui
