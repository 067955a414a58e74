// The main window: layout, menus, drag and drop, settings, and the wiring between panels and runs.
#include "MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

#include "charts/CompareView.h"
#include "charts/ComparisonTable.h"
#include "charts/OverlayChart.h"
#include "charts/RunChartGrid.h"
#include "common/ErrorPresenter.h"
#include "common/FileDrops.h"
#include "common/PageTabs.h"
#include "common/ScrollArea.h"
#include "common/SettingsDialog.h"
#include "common/WheelGuard.h"
#include "common/WorkerThreads.h"
#include "corpus/CorpusPanel.h"
#include "experiment/BatchSizeFinderDialog.h"
#include "experiment/ExperimentPanel.h"
#include "experiment/LrFinderDialog.h"
#include "export/ComparisonExport.h"
#include "help/UserGuide.h"
#include "playground/PlaygroundPanel.h"
#include "runs/RunCollection.h"
#include "runs/RunsPanel.h"
#include "sweep/SweepPanel.h"
#include "training/DeviceList.h"
#include "training/RunControls.h"
#include "training/RunLauncher.h"
#include "training/RunProgressPanel.h"
#include "training/RunScheduler.h"
#include "training/TrainingView.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

namespace {
constexpr int kMaxRecent = 10;
constexpr const char* kDefaultCorpus = "tang-quatrains-7";
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("LSTM Workbench"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/lstm-workbench.svg")));
    setAcceptDrops(true);
    new FileDropRouter(this, [this](const QStringList& paths) { openPaths(paths); });
    new WheelGuard(this);
    m_errors = new ErrorPresenter(this, this);

    buildLayout();
    buildMenus();
    connectPanels();

    const QString root = qEnvironmentVariable(kRunsVariable);
    setRunsDirectory(root.isEmpty() ? runsFolderSetting() : root);
    m_devices->refresh();
    restoreSettings();
    updateActions();
    statusBar()->showMessage(tr("Ready. Drop a corpus or a run folder anywhere on the window."), 5000);
}

MainWindow::~MainWindow() {
    // Workers first: their controllers wait for the threads; the run folders are then complete.
    m_launcher->shutdown();
    // A finder closed mid-step left its thread to us; none may outlive the window.
    waitForRetiredWorkers(this);
}

void MainWindow::buildLayout() {
    m_splitter = new QSplitter(Qt::Horizontal, this);
    m_splitter->setObjectName(QStringLiteral("mainSplitter"));
    QWidget* side = buildSide();

    m_mainTabs = new PageTabs(m_splitter);
    m_training = new TrainingView(m_launcher->runs(), m_mainTabs);
    m_mainTabs->addPage(m_training, tr("&Training"));
    m_compare = new CompareView(m_launcher->runs(), m_mainTabs);
    m_mainTabs->addPage(m_compare, tr("C&ompare"));
    m_export = new ComparisonExport({m_launcher->runs(), m_compare->overlay(), m_training->grid(),
                                     m_compare->table(), m_compare->throughput()},
                                    m_errors, this);
    m_playground = new PlaygroundPanel(m_mainTabs);
    m_mainTabs->addPage(m_playground, tr("&Playground"));
    m_sweep = new SweepPanel(m_mainTabs);
    m_mainTabs->addPage(m_sweep, tr("S&weep"));

    m_splitter->addWidget(side);
    m_splitter->addWidget(m_mainTabs);
    // The side grows with the window, a quarter of what it gains: at 1920 px the Runs list shows whole names.
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 3);
    m_splitter->setSizes({420, 1100});  // the side just wide enough for the Corpus and Experiment pages
    setCentralWidget(m_splitter);

    m_statusRuns = new QLabel(this);
    statusBar()->addPermanentWidget(m_statusRuns);
}

// Left: the corpus, experiment and runs pages, the devices and the run buttons; and the launcher.
QWidget* MainWindow::buildSide() {
    auto* side = new QWidget(m_splitter);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(4, 4, 0, 4);
    m_sideTabs = new PageTabs(side);
    m_corpus = new CorpusPanel;
    m_experiment = new ExperimentPanel;
    m_devices = new DeviceList(side);
    m_launcher = new RunLauncher({m_corpus, m_experiment, m_devices}, m_errors, this);
    m_runsPanel = new RunsPanel(m_launcher->runs());
    m_sideTabs->addTab(verticallyScrolled(m_corpus, m_sideTabs), tr("&Corpus"));
    m_sideTabs->addTab(verticallyScrolled(m_experiment, m_sideTabs), tr("E&xperiment"));
    m_sideTabs->addTab(m_runsPanel, tr("R&uns"));
    sideLayout->addWidget(m_sideTabs, 1);
    sideLayout->addWidget(new QLabel(tr("<b>Devices</b>"), side));
    sideLayout->addWidget(m_devices);
    m_runControls = new RunControls(m_launcher, side);
    connect(m_runControls, &RunControls::pauseToggled, this, &MainWindow::updateActions);
    sideLayout->addWidget(m_runControls);
    return side;
}

void MainWindow::buildMenus() {
    buildFileMenu();
    buildExperimentMenu();
    buildViewAndHelpMenus();
    buildToolbar();
    updateRecentMenu();
}

void MainWindow::buildFileMenu() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    m_openAction = file->addAction(tr("&Open Corpus…"), this, &MainWindow::openCorpusDialog);
    m_openAction->setShortcut(QKeySequence::Open);
    m_openAction->setStatusTip(tr("Open a corpus file (text, poems JSON, TSV, CSV)"));
    QAction* openFolder = file->addAction(tr("Open Corpus &Folder…"), this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Open a folder with one sub-folder per class"));
        if (!dir.isEmpty()) openPath(dir);
    });
    openFolder->setStatusTip(tr("Open a folder-per-class corpus (aclImdb style)"));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_openRunAction = file->addAction(tr("Open Run Fol&der…"), this, &MainWindow::openRunDialog);
    m_openRunAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    file->addAction(tr("Open S&weep Folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a sweep folder"),
                                                              runsDirectory() + QStringLiteral("/sweeps"));
        if (!dir.isEmpty()) openPath(dir);
    });
    file->addSeparator();
    QMenu* exportMenu = file->addMenu(tr("&Export"));
    m_exportChartAction = exportMenu->addAction(tr("Overlay &Chart (PNG, SVG, PDF)…"), this,
                                                [this] { m_export->exportChartDialog(runsDirectory()); });
    m_exportChartAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_exportCsvAction = exportMenu->addAction(tr("All Series as &CSV…"), this,
                                              [this] { m_export->exportCsvDialog(runsDirectory()); });
    m_exportCsvAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    exportMenu->addAction(tr("Comparison &Bundle Folder…"), this,
                          [this] { m_export->exportBundleDialog(runsDirectory()); });
    file->addSeparator();
    QAction* settings = file->addAction(tr("&Settings…"), this, &MainWindow::showSettingsDialog);
    settings->setShortcut(QKeySequence::Preferences);
    settings->setStatusTip(tr("Where new runs and sweeps go"));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
}

void MainWindow::buildExperimentMenu() {
    QMenu* experiment = menuBar()->addMenu(tr("E&xperiment"));
    m_runAction = experiment->addAction(style()->standardIcon(QStyle::SP_MediaPlay),
                                        tr("&Run on Ticked Devices"), m_launcher, &RunLauncher::startRuns);
    m_runAction->setShortcuts({QKeySequence(Qt::Key_F5), QKeySequence(Qt::CTRL | Qt::Key_R)});
    m_pauseAction = experiment->addAction(style()->standardIcon(QStyle::SP_MediaPause), tr("&Pause All"));
    m_pauseAction->setCheckable(true);
    m_pauseAction->setShortcut(QKeySequence(Qt::Key_F6));
    connect(m_pauseAction, &QAction::toggled, this, [this](bool paused) { pauseAll(paused); });
    m_stopAction = experiment->addAction(style()->standardIcon(QStyle::SP_MediaStop), tr("&Stop All"),
                                         m_launcher, &RunLauncher::stopAll);
    m_stopAction->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    experiment->addSeparator();
    experiment->addAction(tr("Find &Learning Rate…"), this, &MainWindow::runLrFinder);
    experiment->addAction(tr("Find &Batch Size…"), this, &MainWindow::runBatchSizeFinder);
    m_experiment->addPresetActions(experiment->addMenu(tr("Pre&sets")));
}

void MainWindow::buildViewAndHelpMenus() {
    QMenu* view = menuBar()->addMenu(tr("&View"));
    const std::pair<QString, QWidget*> pages[] = {{tr("Training"), m_training},
                                                  {tr("Compare"), m_compare},
                                                  {tr("Playground"), m_playground},
                                                  {tr("Sweep"), m_sweep}};
    int key = 0;
    for (const auto& [title, page] : pages) {
        QAction* a = view->addAction(title, this, [this, page = page] { m_mainTabs->showPage(page); });
        a->setShortcut(QKeySequence(Qt::CTRL | (Qt::Key_1 + key++)));
    }
    view->addSeparator();
    const std::pair<QString, QWidget*> sides[] = {
        {tr("Corpus"), m_corpus}, {tr("Experiment"), m_experiment}, {tr("Runs"), m_runsPanel}};
    key = 0;
    for (const auto& [title, page] : sides) {
        QAction* a = view->addAction(title, this, [this, page = page] { m_sideTabs->showPage(page); });
        a->setShortcut(QKeySequence(Qt::ALT | (Qt::Key_1 + key++)));
    }
    view->addSeparator();
    view->addAction(tr("Clear finished runs from the charts"), m_launcher, &RunLauncher::clearFinishedRuns);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* guide = help->addAction(tr("&User guide"), this, [this] {
        auto* dialog = new UserGuideDialog(this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    guide->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&About LSTM Workbench"), this, [this] { showAboutBox(this, runsDirectory()); });
}

void MainWindow::buildToolbar() {
    QToolBar* toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->addAction(m_openAction);
    toolbar->addAction(m_openRunAction);
    toolbar->addSeparator();
    toolbar->addAction(m_runAction);
    toolbar->addAction(m_pauseAction);
    toolbar->addAction(m_stopAction);
    toolbar->addSeparator();
    toolbar->addAction(m_exportChartAction);
    toolbar->addAction(m_exportCsvAction);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_openAction->setIcon(style()->standardIcon(QStyle::SP_DialogOpenButton));
    m_openRunAction->setIcon(style()->standardIcon(QStyle::SP_DirOpenIcon));
    m_exportChartAction->setIcon(style()->standardIcon(QStyle::SP_DialogSaveButton));
    m_exportCsvAction->setIcon(style()->standardIcon(QStyle::SP_FileIcon));
}

void MainWindow::connectPanels() {
    connect(m_corpus, &CorpusPanel::corpusLoaded, this, &MainWindow::onCorpusLoaded);
    connect(m_corpus, &CorpusPanel::loadFailed, m_errors, &ErrorPresenter::showError);
    connect(m_corpus, &CorpusPanel::openRequested, this, &MainWindow::openCorpusDialog);
    connect(m_experiment, &ExperimentPanel::lrFinderRequested, this, &MainWindow::runLrFinder);
    connect(m_experiment, &ExperimentPanel::batchSizeFinderRequested, this, &MainWindow::runBatchSizeFinder);
    connect(m_runsPanel, &RunsPanel::loadFailed, m_errors, &ErrorPresenter::showError);
    connect(m_runsPanel, &RunsPanel::resumeRequested, m_launcher, &RunLauncher::resumeRun);
    connect(m_runsPanel, &RunsPanel::openFolderRequested, this, &MainWindow::openRunDialog);
    connect(m_runsPanel, &RunsPanel::listChanged, this,
            [this] { m_playground->setRuns(m_runsPanel->runsWithModel()); });
    connect(m_runsPanel, &RunsPanel::playgroundRequested, this, [this](const QString& dir) {
        m_playground->loadRun(dir);
        m_mainTabs->showPage(m_playground);
    });
    connect(m_runsPanel, &RunsPanel::configRequested, m_launcher, &RunLauncher::adoptSettingsOf);
    connect(m_playground, &PlaygroundPanel::errorOccurred, m_errors, &ErrorPresenter::showError);

    connect(m_launcher->runs(), &RunCollection::runRemoved, m_training->progress(),
            &RunProgressPanel::removeRun);
    connect(m_launcher, &RunLauncher::runQueued, m_training->progress(), &RunProgressPanel::addRun);
    connect(m_launcher->runs(), &RunCollection::runUpdated, this, [this](const QString& key) {
        const int i = m_launcher->runs()->indexOf(key);
        if (i >= 0) m_training->progress()->relabel(key, m_launcher->runs()->at(i).label);
    });
    connect(m_launcher, &RunLauncher::logLine, m_training, &TrainingView::appendLog);
    connect(m_launcher, &RunLauncher::statusMessage, this, &MainWindow::showStatus);
    connect(m_launcher, &RunLauncher::runsStarted, this, [this] { m_mainTabs->showPage(m_training); });
    connect(m_launcher, &RunLauncher::experimentRejected, this,
            [this] { m_sideTabs->showPage(m_experiment); });
    connect(m_launcher, &RunLauncher::settingsAdopted, this, [this] { m_sideTabs->showPage(m_experiment); });
    connect(m_launcher, &RunLauncher::runFinished, this, [this](const QString& dir, bool hasModel) {
        m_runsPanel->refresh();
        // The playground follows the newest finished run, so that Run → Playground just works.
        if (hasModel) m_playground->loadRun(dir);
    });
    connect(m_launcher->scheduler(), &RunScheduler::activityChanged, this, &MainWindow::updateActions);
    connect(m_export, &ComparisonExport::statusMessage, this, &MainWindow::showStatus);

    // A sweep starts from the experiment as set on the Experiment page, on the loaded corpus.
    m_sweep->setBaseProvider([this](wb::ExperimentConfig* config, QString* why) {
        if (m_launcher->experimentOnCorpus(config, why)) return true;
        *why = m_corpus->hasCorpus()
                   ? tr("Fix the Experiment page first: %1").arg(m_experiment->problems().front())
                   : tr("Load a corpus first: the sweep trains the Experiment page's model on it");
        return false;
    });
    connect(m_experiment, &ExperimentPanel::configChanged, m_sweep, [this] { m_sweep->replan(); });
    connect(m_corpus, &CorpusPanel::corpusLoaded, m_sweep, [this] { m_sweep->replan(); });
    connect(m_sweep, &SweepPanel::openRunRequested, this, [this](const QString& dir) { openPath(dir); });
    connect(m_errors, &ErrorPresenter::errorShown, this,
            [this](const QString& title, const QString&) { statusBar()->showMessage(title, 8000); });
}

void MainWindow::setRunsDirectory(const QString& dir) {
    m_launcher->setRunsDirectory(dir);
    m_runsPanel->setRunsRoot(runsDirectory());
    m_sweep->setSweepsRoot(runsDirectory() + QStringLiteral("/sweeps"));
}

QString MainWindow::runsDirectory() const { return m_launcher->runsDirectory(); }

QString MainWindow::runsFolderSetting() { return SettingsDialog::savedRunsFolder(); }

bool MainWindow::setRunsFolderSetting(const QString& dir, QString* error) {
    if (!SettingsDialog::saveRunsFolder(dir, error)) return false;
    if (qEnvironmentVariableIsEmpty(kRunsVariable)) setRunsDirectory(dir);
    return true;
}

void MainWindow::showSettingsDialog() {
    SettingsDialog dialog(runsFolderSetting(), qEnvironmentVariable(kRunsVariable), this);
    while (dialog.exec() == QDialog::Accepted) {
        QString why;
        if (setRunsFolderSetting(dialog.runsFolder(), &why)) {
            statusBar()->showMessage(tr("Runs folder: %1").arg(QDir::toNativeSeparators(runsDirectory())),
                                     5000);
            return;
        }
        m_errors->showError(tr("Runs folder not changed"), why);
    }
}
RunChartGrid* MainWindow::chartGrid() const { return m_training->grid(); }
OverlayChart* MainWindow::overlayChart() const { return m_compare->overlay(); }
ComparisonTable* MainWindow::comparisonTable() const { return m_compare->table(); }
ThroughputChart* MainWindow::throughputChart() const { return m_compare->throughput(); }

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (m_frameFitted) return;
    m_frameFitted = true;
    // The frame's size arrives from the window manager after the window maps, at a moment no event marks:
    // fit it as soon as the event loop runs, and again a little later (Openbox under Xvfb, issue #63).
    for (int ms : {0, 200, 800}) QTimer::singleShot(ms, this, [this] { fitFrameOnScreen(); });
}

void MainWindow::fitFrameOnScreen() {
    if (isMaximized() || isFullScreen() || !screen()) return;
    const QRect available = screen()->availableGeometry(), frame = frameGeometry(), client = geometry();
    const QSize frameExtra(frame.width() - client.width(), frame.height() - client.height());
    if (frameExtra.isNull()) return;  // no frame (yet): nothing of it to fit
    const QSize fits = size().boundedTo((available.size() - frameExtra).expandedTo(minimumSize()));
    if (fits != size()) resize(fits);
    // move() places the frame of a top-level window: its top left corner within the available area.
    const QSize whole = fits + frameExtra;
    const int x = std::clamp(frame.left(), available.left(),
                             std::max(available.left(), available.right() + 1 - whole.width()));
    const int y = std::clamp(frame.top(), available.top(),
                             std::max(available.top(), available.bottom() + 1 - whole.height()));
    if (QPoint(x, y) != frame.topLeft()) move(x, y);
}

void MainWindow::restoreSettings() {
    QSettings s;
    // First launch: 1500×940, or less on a smaller screen (the Run button was below a 1280×800 screen's
    // edge).
    const QSize screenSize = screen()->availableGeometry().size();
    if (!restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray()))
        resize(QSize(1500, 940).boundedTo(screenSize));
    // A window saved wider or taller than this screen (another monitor, a larger scale factor, or a minimum
    // width that once grew) opens within it.
    else if (width() > screenSize.width() || height() > screenSize.height())
        resize(size().boundedTo(screenSize));
    restoreState(s.value(QStringLiteral("window/state")).toByteArray());
    // First launch: the side a quarter of the window, not narrower than its pages need (420 px) and not
    // wider than 640 px.
    if (!m_splitter->restoreState(s.value(QStringLiteral("window/splitter")).toByteArray())) {
        const int side = std::clamp(width() / 4, 420, 640);
        m_splitter->setSizes({side, std::max(width() - side, 1)});
    }
    m_recent = s.value(QStringLiteral("recentCorpora")).toStringList();
    m_devices->setCheckedLabels(s.value(QStringLiteral("devices/checked")).toStringList());
    m_devices->setSequentialCpu(s.value(QStringLiteral("devices/sequentialCpu"), true).toBool());
    comparisonTable()->setTargetLoss(
        s.value(QStringLiteral("compare/fixedTargetLoss"), comparisonTable()->targetLoss()).toDouble());
    m_runsPanel->setOpenedFolders(s.value(QStringLiteral("runs/opened")).toStringList());
    // The sweep the Sweep tab showed, paused, cancelled or cut off by closing the app: Resume is one click.
    const QString sweep = s.value(QStringLiteral("sweep/shown")).toString();
    QString ignored;
    if (!sweep.isEmpty() && wb::isSweepFolder(toStd(sweep))) m_sweep->openSweep(sweep, &ignored);
    const QByteArray config = s.value(QStringLiteral("experiment/config")).toByteArray();
    if (!config.isEmpty()) m_experiment->restoreConfigJson(config);
    updateRecentMenu();
}

void MainWindow::saveSettings() {
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    s.setValue(QStringLiteral("window/splitter"), m_splitter->saveState());
    s.setValue(QStringLiteral("recentCorpora"), m_recent);
    s.setValue(QStringLiteral("devices/checked"), m_devices->checkedLabels());
    s.setValue(QStringLiteral("devices/sequentialCpu"), m_devices->sequentialCpu());
    s.setValue(QStringLiteral("compare/fixedTargetLoss"), comparisonTable()->targetLoss());
    s.setValue(QStringLiteral("runs/opened"), m_runsPanel->openedFolders());
    s.setValue(QStringLiteral("sweep/shown"), m_sweep->sweepDir());
    s.setValue(QStringLiteral("experiment/config"),
               QByteArray::fromStdString(m_experiment->config().toJson()));
    s.setValue(QStringLiteral("lastCorpus"), m_corpus->corpusPath());
}

void MainWindow::startFirstLaunch() {
    m_runControls->setAutoEstimate(true);  // the default experiment's time, once its corpus is loaded
    // The very first launch: a first run longer than about ten minutes on this machine is cut to fit them.
    if (!QSettings().contains(QStringLiteral("experiment/config")))
        m_runControls->setFirstRunBudget(RunControls::kFirstRunSeconds);
    const QString hint = m_corpus->openOnLaunch(QSettings().value(QStringLiteral("lastCorpus")).toString(),
                                                QString::fromLatin1(kDefaultCorpus));
    if (!hint.isEmpty()) statusBar()->showMessage(hint, 15000);
}

void MainWindow::onCorpusLoaded(const QString& path) {
    const QString switched = m_experiment->followCorpus(path, *m_corpus->overview());
    if (!switched.isEmpty())
        statusBar()->showMessage(switched, 12000);
    else
        statusBar()->showMessage(tr("Loaded %1: %2 documents, %3 characters")
                                     .arg(m_corpus->displayName())
                                     .arg(m_corpus->stats().documents)
                                     .arg(m_corpus->stats().characters),
                                 6000);
    addRecent(path);
}

bool MainWindow::openPath(const QString& path) {
    const bool folder = QFileInfo(path).isDir();
    if (folder && wb::isSweepFolder(toStd(path))) {
        QString why;
        if (!m_sweep->openSweep(path, &why)) {
            m_errors->showError(tr("Cannot open the sweep"), why);
            return false;
        }
        m_mainTabs->showPage(m_sweep);
        statusBar()->showMessage(tr("Opened sweep %1").arg(QFileInfo(path).fileName()), 6000);
        return true;
    }
    if (folder && wb::isRunFolder(toStd(path))) {
        if (!m_runsPanel->openRunFolder(path)) return false;
        m_mainTabs->showPage(m_compare);
        statusBar()->showMessage(tr("Opened run %1 for comparison").arg(QFileInfo(path).fileName()), 6000);
        return true;
    }
    m_corpus->loadPath(path);  // read on its own thread: the Corpus page shows how far, then the corpus
    m_sideTabs->showPage(m_corpus);
    return true;
}

void MainWindow::openPaths(const QStringList& paths) {
    // Several run folders compare together; a corpus is one file or folder (the first one wins).
    bool corpusTaken = false;
    for (const QString& p : paths) {
        const bool run = QFileInfo(p).isDir() && (wb::isRunFolder(toStd(p)) || wb::isSweepFolder(toStd(p)));
        if (!run && corpusTaken) continue;
        corpusTaken = corpusTaken || !run;
        openPath(p);
    }
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (!droppedFiles(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QStringList paths = droppedFiles(event->mimeData());
    if (paths.isEmpty()) return;
    event->acceptProposedAction();
    openPaths(paths);
}

void MainWindow::pauseAll(bool paused) {
    m_launcher->pauseAll(paused);
    updateActions();
}

void MainWindow::updateActions() {
    RunScheduler* scheduler = m_launcher->scheduler();
    m_pauseAction->setEnabled(scheduler->anyPending());
    m_stopAction->setEnabled(scheduler->anyPending());
    {
        QSignalBlocker b(m_pauseAction);
        m_pauseAction->setChecked(scheduler->allPaused());
    }
    m_statusRuns->setText(scheduler->summary());
}

void MainWindow::showStatus(const QString& text, int milliseconds) {
    statusBar()->showMessage(text, milliseconds);
}

void MainWindow::addRecent(const QString& path) {
    m_recent.removeAll(path);
    m_recent.prepend(path);
    while (m_recent.size() > kMaxRecent) m_recent.removeLast();
    updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
    if (!m_recentMenu) return;
    m_recentMenu->clear();
    for (const QString& p : std::as_const(m_recent))
        m_recentMenu->addAction(p, this, [this, p] { openPath(p); });
    m_recentMenu->setEnabled(!m_recent.isEmpty());
}

void MainWindow::openCorpusDialog() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open a corpus"),
        m_recent.isEmpty() ? QDir::homePath() : QFileInfo(m_recent.first()).absolutePath(),
        tr("Corpora (*.txt *.json *.tsv *.csv);;All files (*)"));
    if (!path.isEmpty()) openPath(path);
}

void MainWindow::openRunDialog() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a run folder"), runsDirectory());
    if (!dir.isEmpty()) openPath(dir);
}

// Opens a finder's dialog on the experiment as set (the launcher refuses, saying why, without a corpus).
template <class Dialog>
Dialog* MainWindow::openFinder(const QString& finder, const QString& errorTitle) {
    wb::ExperimentConfig config;
    if (!m_launcher->finderExperiment(finder, &config)) return nullptr;
    auto* dialog = new Dialog(config, m_corpus->corpus(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &FinderDialog::failed, this,
            [this, errorTitle](const QString& m) { m_errors->showError(errorTitle, m); });
    dialog->open();
    dialog->start();
    return dialog;
}

void MainWindow::runLrFinder() {
    if (auto* dialog = openFinder<LrFinderDialog>(tr("learning-rate finder"), tr("LR finder")))
        connect(dialog, &LrFinderDialog::rateChosen, this, [this](double rate) {
            m_experiment->setLearningRate(rate);
            statusBar()->showMessage(tr("Learning rate set to %1").arg(rate, 0, 'g', 3), 5000);
        });
}

void MainWindow::runBatchSizeFinder() {
    if (auto* dialog = openFinder<BatchSizeFinderDialog>(tr("batch-size finder"), tr("Batch-size finder")))
        connect(dialog, &BatchSizeFinderDialog::batchSizeChosen, this, [this](qint64 size) {
            m_experiment->setBatchSize(size);
            statusBar()->showMessage(tr("Batch size set to %1").arg(size), 5000);
        });
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (const QString consequence = m_sweep->quitConsequence(); !consequence.isEmpty()) {
        const bool quit = m_askToQuit ? m_askToQuit(consequence) : [&] {
            QMessageBox ask(QMessageBox::Question, tr("Quit while a sweep runs?"), consequence,
                            QMessageBox::Cancel, this);
            QAbstractButton* yes = ask.addButton(tr("Quit"), QMessageBox::DestructiveRole);
            ask.setDefaultButton(QMessageBox::Cancel);
            ask.exec();
            return ask.clickedButton() == yes;
        }();
        if (!quit) {
            event->ignore();
            return;
        }
    }
    const bool pending = m_launcher->scheduler()->anyPending();
    if (pending) statusBar()->showMessage(tr("Stopping the runs and saving their run folders…"));
    if (pending) QApplication::setOverrideCursor(Qt::WaitCursor);
    // Each run stops within one batch and writes its checkpoint, metrics and run.json; no error dialog is
    // shown from here on.
    m_launcher->shutdown();
    if (pending) QApplication::restoreOverrideCursor();
    saveSettings();
    event->accept();
}

}  // namespace wbui
