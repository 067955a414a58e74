// The main window: layout, menus, drag and drop, settings, and the wiring between panels and runs.
#include "MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>

#include "charts/ComparisonTable.h"
#include "charts/OverlayChart.h"
#include "charts/RunChartGrid.h"
#include "charts/RunChartPanel.h"
#include "charts/ThroughputChart.h"
#include "common/ErrorPresenter.h"
#include "common/QtConversions.h"
#include "common/WorkerThreads.h"
#include "corpus/CorpusPanel.h"
#include "experiment/BatchSizeFinderDialog.h"
#include "experiment/ExperimentPanel.h"
#include "experiment/LrFinderDialog.h"
#include "export/ChartExporter.h"
#include "help/UserGuide.h"
#include "playground/PlaygroundPanel.h"
#include "runs/RunCollection.h"
#include "runs/RunsPanel.h"
#include "sweep/SweepPanel.h"
#include "training/DeviceList.h"
#include "training/RunProgressPanel.h"
#include "training/RunScheduler.h"
#include "workbench/CorpusCatalog.h"
#include "workbench/Preparer.h"
#include "workbench/RunFolder.h"

#include <qcustomplot.h>

namespace wbui {

namespace {
constexpr int kMaxRecent = 10;
constexpr const char* kDefaultCorpus = "tang-quatrains-7";

QWidget* scrolled(QWidget* inner, QWidget* parent) {
    auto* area = new QScrollArea(parent);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setWidget(inner);
    // Panels wrap their text to the width they get; a sideways scrollbar would only hide the right edge.
    area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return area;
}

QString deviceTag(const DeviceChoice& c) {
    if (c.device == "cpu" && c.processes > 1)
        return QStringLiteral("cpu%1px%2t").arg(c.processes).arg(c.threads);
    if (c.device == "cpu") return QStringLiteral("cpu%1t").arg(c.threads);
    QString tag = toQt(c.device);
    tag.remove(QLatin1Char(':'));
    return tag;
}
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("LSTM Workbench"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/lstm-workbench.svg")));
    setAcceptDrops(true);
    // Text fields and spin boxes accept drops themselves and would insert "file:///…"; the application-wide
    // filter sends file drops on any of this window's widgets to the window (eventFilter).
    qApp->installEventFilter(this);
    m_errors = new ErrorPresenter(this, this);
    m_runs = new RunCollection(this);
    m_scheduler = new RunScheduler(this);

    buildLayout();
    buildMenus();
    connectPanels();

    QString root = qEnvironmentVariable("LSTM_WORKBENCH_RUNS");
    if (root.isEmpty())
        root = QSettings()
                   .value(QStringLiteral("runsDirectory"),
                          QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
                              QStringLiteral("/runs"))
                   .toString();
    setRunsDirectory(root);
    m_devices->refresh();
    restoreSettings();
    updateActions();
    statusBar()->showMessage(tr("Ready. Drop a corpus or a run folder anywhere on the window."), 5000);
}

MainWindow::~MainWindow() {
    // Workers first: their controllers wait for the threads; the run folders are then complete.
    m_scheduler->shutdown();
    // A finder closed mid-step left its thread to us; none may outlive the window.
    waitForRetiredWorkers(this);
}

void MainWindow::buildLayout() {
    m_splitter = new QSplitter(Qt::Horizontal, this);
    m_splitter->setObjectName(QStringLiteral("mainSplitter"));

    // --- left: corpus / experiment / runs, then devices and the run buttons
    auto* side = new QWidget(m_splitter);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(4, 4, 0, 4);
    m_sideTabs = new QTabWidget(side);
    m_corpus = new CorpusPanel;
    m_experiment = new ExperimentPanel;
    m_runsPanel = new RunsPanel(m_runs);
    m_sideTabs->addTab(scrolled(m_corpus, m_sideTabs), tr("&Corpus"));
    m_sideTabs->addTab(scrolled(m_experiment, m_sideTabs), tr("E&xperiment"));
    m_sideTabs->addTab(m_runsPanel, tr("R&uns"));
    sideLayout->addWidget(m_sideTabs, 1);

    auto* devicesLabel = new QLabel(tr("<b>Devices</b>"), side);
    sideLayout->addWidget(devicesLabel);
    m_devices = new DeviceList(side);
    sideLayout->addWidget(m_devices);
    auto* runRow = new QHBoxLayout;
    auto* run = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Run"), side);
    run->setToolTip(tr("Train the experiment on every ticked device (F5)"));
    auto* pause = new QPushButton(style()->standardIcon(QStyle::SP_MediaPause), tr("Pause all"), side);
    pause->setCheckable(true);
    auto* stop = new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Stop all"), side);
    runRow->addWidget(run, 2);
    runRow->addWidget(pause, 1);
    runRow->addWidget(stop, 1);
    sideLayout->addLayout(runRow);
    connect(run, &QPushButton::clicked, this, [this] { startRuns(); });
    connect(pause, &QPushButton::toggled, this, &MainWindow::pauseAll);
    connect(stop, &QPushButton::clicked, this, &MainWindow::stopAll);
    connect(m_scheduler, &RunScheduler::activityChanged, pause, [this, pause] {
        QSignalBlocker b(pause);
        pause->setChecked(m_scheduler->allPaused());
        pause->setEnabled(m_scheduler->anyPending());
    });
    connect(m_scheduler, &RunScheduler::activityChanged, stop,
            [this, stop] { stop->setEnabled(m_scheduler->anyPending()); });
    pause->setEnabled(false);
    stop->setEnabled(false);

    // --- right: training / compare / playground
    m_mainTabs = new QTabWidget(m_splitter);
    auto* training = new QSplitter(Qt::Vertical, m_mainTabs);
    m_progress = new RunProgressPanel(training);
    m_grid = new RunChartGrid(m_runs, training);
    m_log = new QPlainTextEdit(training);
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(2000);
    m_log->setPlaceholderText(tr("Training log"));
    training->addWidget(scrolled(m_progress, training));
    training->addWidget(m_grid);
    training->addWidget(m_log);
    training->setStretchFactor(0, 0);
    training->setStretchFactor(1, 1);
    training->setStretchFactor(2, 0);
    training->setSizes({90, 600, 70});
    m_mainTabs->addTab(training, tr("&Training"));

    auto* compare = new QSplitter(Qt::Vertical, m_mainTabs);
    m_overlay = new OverlayChart(m_runs, compare);
    auto* bottom = new QSplitter(Qt::Horizontal, compare);
    m_table = new ComparisonTable(m_runs, bottom);
    m_throughput = new ThroughputChart(bottom);
    bottom->addWidget(m_table);
    bottom->addWidget(m_throughput);
    bottom->setSizes({600, 400});
    compare->addWidget(m_overlay);
    compare->addWidget(bottom);
    compare->setSizes({520, 260});
    m_mainTabs->addTab(compare, tr("C&ompare"));

    m_playground = new PlaygroundPanel(m_mainTabs);
    m_mainTabs->addTab(m_playground, tr("&Playground"));

    m_sweep = new SweepPanel(m_mainTabs);
    m_mainTabs->addTab(m_sweep, tr("S&weep"));

    m_splitter->addWidget(side);
    m_splitter->addWidget(m_mainTabs);
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setSizes({430, 1100});
    setCentralWidget(m_splitter);

    m_statusRuns = new QLabel(this);
    statusBar()->addPermanentWidget(m_statusRuns);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open Corpus…"), this, &MainWindow::openCorpusDialog);
    open->setShortcut(QKeySequence::Open);
    open->setStatusTip(tr("Open a corpus file (text, poems JSON, TSV, CSV)"));
    QAction* openFolder = file->addAction(tr("Open Corpus &Folder…"), this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Open a folder with one sub-folder per class"));
        if (!dir.isEmpty()) openPath(dir);
    });
    openFolder->setStatusTip(tr("Open a folder-per-class corpus (aclImdb style)"));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    QAction* openRun = file->addAction(tr("Open Run Fol&der…"), this, &MainWindow::openRunDialog);
    openRun->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    file->addAction(tr("Open S&weep Folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a sweep folder"),
                                                              m_runsRoot + QStringLiteral("/sweeps"));
        if (!dir.isEmpty()) openPath(dir);
    });
    file->addSeparator();
    QMenu* exportMenu = file->addMenu(tr("&Export"));
    QAction* exportChart =
        exportMenu->addAction(tr("Overlay &Chart (PNG, SVG, PDF)…"), this, &MainWindow::exportChartDialog);
    exportChart->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    QAction* exportCsv = exportMenu->addAction(tr("All Series as &CSV…"), this, &MainWindow::exportCsvDialog);
    exportCsv->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    exportMenu->addAction(tr("Comparison &Bundle Folder…"), this, &MainWindow::exportBundleDialog);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* experiment = menuBar()->addMenu(tr("E&xperiment"));
    m_runAction = experiment->addAction(style()->standardIcon(QStyle::SP_MediaPlay),
                                        tr("&Run on Ticked Devices"), this, [this] { startRuns(); });
    m_runAction->setShortcuts({QKeySequence(Qt::Key_F5), QKeySequence(Qt::CTRL | Qt::Key_R)});
    m_pauseAction = experiment->addAction(style()->standardIcon(QStyle::SP_MediaPause), tr("&Pause All"));
    m_pauseAction->setCheckable(true);
    m_pauseAction->setShortcut(QKeySequence(Qt::Key_F6));
    connect(m_pauseAction, &QAction::toggled, this, &MainWindow::pauseAll);
    m_stopAction = experiment->addAction(style()->standardIcon(QStyle::SP_MediaStop), tr("&Stop All"), this,
                                         &MainWindow::stopAll);
    m_stopAction->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    experiment->addSeparator();
    experiment->addAction(tr("Find &Learning Rate…"), this, &MainWindow::runLrFinder);
    experiment->addAction(tr("Find &Batch Size…"), this, &MainWindow::runBatchSizeFinder);
    QMenu* presets = experiment->addMenu(tr("Pre&sets"));
    presets->addAction(tr("Default language model"), this,
                       [this] { m_experiment->applyPreset(QStringLiteral("default-lm")); });
    presets->addAction(tr("Default classifier"), this,
                       [this] { m_experiment->applyPreset(QStringLiteral("default-classify")); });
    for (const auto& name : wb::presetNames()) {
        QAction* a =
            presets->addAction(toQt(name), this, [this, n = toQt(name)] { m_experiment->applyPreset(n); });
        if (name == "poems") {
            a->setText(tr("poems — reference 000 model size"));
            a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
        }
    }

    QMenu* view = menuBar()->addMenu(tr("&View"));
    const QStringList tabs = {tr("Training"), tr("Compare"), tr("Playground"), tr("Sweep")};
    for (int i = 0; i < tabs.size(); ++i) {
        QAction* a = view->addAction(tabs[i], this, [this, i] { m_mainTabs->setCurrentIndex(i); });
        a->setShortcut(QKeySequence(Qt::CTRL | (Qt::Key_1 + i)));
    }
    view->addSeparator();
    const QStringList sides = {tr("Corpus"), tr("Experiment"), tr("Runs")};
    for (int i = 0; i < sides.size(); ++i) {
        QAction* a = view->addAction(sides[i], this, [this, i] { m_sideTabs->setCurrentIndex(i); });
        a->setShortcut(QKeySequence(Qt::ALT | (Qt::Key_1 + i)));
    }

    view->addSeparator();
    view->addAction(tr("Clear finished runs from the charts"), this, &MainWindow::clearFinishedRuns);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* guide = help->addAction(tr("&User guide"), this, [this] {
        auto* dialog = new UserGuideDialog(this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    guide->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&About LSTM Workbench"), this, [this] {
        QMessageBox::about(
            this, tr("About LSTM Workbench"),
            tr("<b>LSTM Workbench %1</b><br>Train small LSTM text models with LibTorch and compare, "
               "side by side and honestly timed, how they train on different devices.<br><br>"
               "Runs are saved in %2")
                .arg(QStringLiteral(WORKBENCH_VERSION), m_runsRoot.toHtmlEscaped()));
    });

    QToolBar* toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->addAction(open);
    toolbar->addAction(openRun);
    toolbar->addSeparator();
    toolbar->addAction(m_runAction);
    toolbar->addAction(m_pauseAction);
    toolbar->addAction(m_stopAction);
    toolbar->addSeparator();
    toolbar->addAction(exportChart);
    toolbar->addAction(exportCsv);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    open->setIcon(style()->standardIcon(QStyle::SP_DialogOpenButton));
    openRun->setIcon(style()->standardIcon(QStyle::SP_DirOpenIcon));
    exportChart->setIcon(style()->standardIcon(QStyle::SP_DialogSaveButton));
    exportCsv->setIcon(style()->standardIcon(QStyle::SP_FileIcon));
    updateRecentMenu();
}

void MainWindow::connectPanels() {
    connect(m_corpus, &CorpusPanel::corpusLoaded, this, &MainWindow::onCorpusLoaded);
    connect(m_corpus, &CorpusPanel::loadFailed, m_errors, &ErrorPresenter::showError);
    connect(m_corpus, &CorpusPanel::openRequested, this, &MainWindow::openCorpusDialog);
    connect(m_experiment, &ExperimentPanel::lrFinderRequested, this, &MainWindow::runLrFinder);
    connect(m_experiment, &ExperimentPanel::batchSizeFinderRequested, this, &MainWindow::runBatchSizeFinder);
    connect(m_runsPanel, &RunsPanel::loadFailed, m_errors, &ErrorPresenter::showError);
    connect(m_runsPanel, &RunsPanel::resumeRequested, this, &MainWindow::resumeRun);
    connect(m_runsPanel, &RunsPanel::openFolderRequested, this, &MainWindow::openRunDialog);
    connect(m_runsPanel, &RunsPanel::listChanged, this, &MainWindow::refreshPlaygroundRuns);
    connect(m_runsPanel, &RunsPanel::playgroundRequested, this, [this](const QString& dir) {
        m_playground->loadRun(dir);
        m_mainTabs->setCurrentWidget(m_playground);
    });
    connect(m_runsPanel, &RunsPanel::configRequested, this, [this](const QString& dir) {
        try {
            wb::RunRecord r = wb::loadRunFolder(toStd(dir));
            wb::ExperimentConfig config = r.config;
            // Keep the corpus that is loaded here; the run's path may be on another machine.
            if (m_corpus->hasCorpus()) {
                config.data.corpus = toStd(m_corpus->corpusPath());
                config.data.format = m_corpus->loadedFormat();
            }
            m_experiment->setConfig(config);
            m_sideTabs->setCurrentIndex(1);
            statusBar()->showMessage(tr("Experiment settings taken from %1").arg(QFileInfo(dir).fileName()),
                                     5000);
        } catch (const std::exception& e) {
            m_errors->showError(tr("Could not read the run"), toQt(e.what()));
        }
    });
    connect(m_playground, &PlaygroundPanel::errorOccurred, m_errors, &ErrorPresenter::showError);
    // A sweep starts from the experiment as set on the Experiment page, on the loaded corpus.
    m_sweep->setBaseProvider([this](wb::ExperimentConfig* config, QString* why) {
        if (!m_corpus->hasCorpus()) {
            *why = tr("Load a corpus first: the sweep trains the Experiment page's model on it");
            return false;
        }
        const QStringList problems = m_experiment->problems();
        if (!problems.isEmpty()) {
            *why = tr("Fix the Experiment page first: %1").arg(problems.front());
            return false;
        }
        *config = m_experiment->config();
        config->data.corpus = toStd(m_corpus->corpusPath());
        return true;
    });
    connect(m_experiment, &ExperimentPanel::configChanged, m_sweep, [this] { m_sweep->replan(); });
    connect(m_corpus, &CorpusPanel::corpusLoaded, m_sweep, [this] { m_sweep->replan(); });
    connect(m_sweep, &SweepPanel::openRunRequested, this, [this](const QString& dir) { openPath(dir); });
    connect(m_table, &ComparisonTable::rowsChanged, this,
            [this] { m_throughput->setRows(m_table->rows(), *m_runs); });
    connect(m_scheduler, &RunScheduler::activityChanged, this, &MainWindow::updateActions);
    connect(m_errors, &ErrorPresenter::errorShown, this,
            [this](const QString& title, const QString&) { statusBar()->showMessage(title, 8000); });
}

void MainWindow::setRunsDirectory(const QString& dir) {
    QDir().mkpath(dir);
    const QString canonical = QFileInfo(dir).canonicalFilePath();
    m_runsRoot = canonical.isEmpty() ? QFileInfo(dir).absoluteFilePath() : canonical;
    m_runsPanel->setRunsRoot(m_runsRoot);
    m_sweep->setSweepsRoot(m_runsRoot + QStringLiteral("/sweeps"));
}

void MainWindow::restoreSettings() {
    QSettings s;
    if (!restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray())) resize(1500, 940);
    restoreState(s.value(QStringLiteral("window/state")).toByteArray());
    m_splitter->restoreState(s.value(QStringLiteral("window/splitter")).toByteArray());
    m_recent = s.value(QStringLiteral("recentCorpora")).toStringList();
    m_devices->setCheckedLabels(s.value(QStringLiteral("devices/checked")).toStringList());
    m_devices->setSequentialCpu(s.value(QStringLiteral("devices/sequentialCpu"), true).toBool());
    m_table->setTargetLoss(
        s.value(QStringLiteral("compare/fixedTargetLoss"), m_table->targetLoss()).toDouble());
    m_runsPanel->setOpenedFolders(s.value(QStringLiteral("runs/opened")).toStringList());
    const QByteArray config = s.value(QStringLiteral("experiment/config")).toByteArray();
    if (!config.isEmpty()) {
        try {
            m_experiment->setConfig(wb::ExperimentConfig::fromJson(config.toStdString(), "settings"));
        } catch (const std::exception&) {
            // Settings from an older version: the defaults are a fine start.
        }
    }
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
    s.setValue(QStringLiteral("compare/fixedTargetLoss"), m_table->targetLoss());
    s.setValue(QStringLiteral("runs/opened"), m_runsPanel->openedFolders());
    s.setValue(QStringLiteral("experiment/config"),
               QByteArray::fromStdString(m_experiment->config().toJson()));
    s.setValue(QStringLiteral("lastCorpus"), m_corpus->corpusPath());
}

void MainWindow::startFirstLaunch() {
    const QString last = QSettings().value(QStringLiteral("lastCorpus")).toString();
    if (!last.isEmpty() && QFileInfo::exists(last) && m_corpus->loadPath(last)) return;
    std::optional<wb::CatalogEntry> entry;
    try {
        entry = wb::findPreparedCorpus(kDefaultCorpus);
    } catch (const std::exception&) {
    }
    if (entry) {
        m_corpus->loadPrepared(QString::fromLatin1(kDefaultCorpus));
        return;
    }
    const QString name = QString::fromLatin1(kDefaultCorpus);
    m_corpus->selectReadyCorpus(name);
    const QString hint =
        m_corpus->canPrepare()
            ? tr("The default corpus %1 is not prepared yet: press Prepare under Ready corpora (it downloads "
                 "the "
                 "chinese-poetry package, about 85 MB, once) — or drop any text file on the window.")
                  .arg(name)
            : tr("The default corpus %1 is not prepared yet. Prepare it with: %2 — or drop any text file on "
                 "the "
                 "window.")
                  .arg(name, toQt(wb::prepareCommand(kDefaultCorpus)));
    m_corpus->setHint(hint);
    statusBar()->showMessage(hint, 15000);
}

void MainWindow::onCorpusLoaded(const QString& path) {
    const auto corpus = m_corpus->corpus();
    const auto& stats = m_corpus->stats();
    // A labelled corpus is for a classifier, plain text for a language model: switch task to match.
    const wb::Task task = m_experiment->config().task;
    // The user's own settings stay; only those still at the old task's defaults follow (and are named).
    const auto said = [](const QStringList& changes) {
        return changes.isEmpty()
                   ? QString()
                   : QObject::tr(" (%1; your other settings kept)").arg(changes.join(QStringLiteral(", ")));
    };
    if (corpus->labelled() && task == wb::Task::LanguageModel) {
        const QStringList changes = m_experiment->switchTask(wb::Task::Classifier);
        statusBar()->showMessage(
            tr("Labelled corpus: switched the experiment to a classifier") + said(changes), 12000);
    } else if (!corpus->labelled() && task == wb::Task::Classifier) {
        const QStringList changes = m_experiment->switchTask(wb::Task::LanguageModel);
        statusBar()->showMessage(
            tr("Unlabelled text: switched the experiment to a language model") + said(changes), 12000);
    } else {
        statusBar()->showMessage(tr("Loaded %1: %2 documents, %3 characters")
                                     .arg(m_corpus->displayName())
                                     .arg(stats.documents)
                                     .arg(stats.characters),
                                 6000);
    }
    m_experiment->setCorpus(path, corpus->format, stats.distinctCharacters, stats.distinctWords,
                            std::int64_t(corpus->classes.size()));
    addRecent(path);
}

bool MainWindow::openPath(const QString& path) {
    if (QFileInfo(path).isDir() && wb::isSweepFolder(toStd(path))) {
        QString why;
        if (!m_sweep->openSweep(path, &why)) {
            m_errors->showError(tr("Cannot open the sweep"), why);
            return false;
        }
        m_mainTabs->setCurrentWidget(m_sweep);
        statusBar()->showMessage(tr("Opened sweep %1").arg(QFileInfo(path).fileName()), 6000);
        return true;
    }
    if (QFileInfo(path).isDir() && wb::isRunFolder(toStd(path))) {
        if (!m_runsPanel->openRunFolder(path)) return false;
        m_mainTabs->setCurrentIndex(1);
        statusBar()->showMessage(tr("Opened run %1 for comparison").arg(QFileInfo(path).fileName()), 6000);
        return true;
    }
    const bool ok = m_corpus->loadPath(path);
    m_sideTabs->setCurrentIndex(0);
    return ok;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) {
        for (const QUrl& url : event->mimeData()->urls())
            if (url.isLocalFile()) {
                event->acceptProposedAction();
                return;
            }
    }
}

void MainWindow::dropEvent(QDropEvent* event) {
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile()) paths << url.toLocalFile();
    if (paths.isEmpty()) return;
    event->acceptProposedAction();
    // Several run folders compare together; a corpus is one file or folder (the first one wins).
    bool corpusTaken = false;
    for (const QString& p : paths) {
        const bool run = QFileInfo(p).isDir() && (wb::isRunFolder(toStd(p)) || wb::isSweepFolder(toStd(p)));
        if (!run && corpusTaken) continue;
        corpusTaken = corpusTaken || !run;
        openPath(p);
    }
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    const auto type = event->type();
    if (type == QEvent::DragEnter || type == QEvent::DragMove || type == QEvent::Drop) {
        auto* widget = qobject_cast<QWidget*>(watched);
        // QDragEnterEvent and QDragMoveEvent are QDropEvents too.
        auto* drop = static_cast<QDropEvent*>(event);
        bool files = false;
        if (drop->mimeData() && drop->mimeData()->hasUrls())
            for (const QUrl& url : drop->mimeData()->urls()) files = files || url.isLocalFile();
        // Only files, only on this window's children (the window's own drops arrive in dropEvent); a text
        // drag still goes into the text field under it.
        if (files && widget && widget != this && widget->window() == this) {
            if (type == QEvent::Drop)
                dropEvent(drop);
            else
                drop->acceptProposedAction();
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

QString MainWindow::uniqueRunDir(const QString& base) const {
    QString dir = m_runsRoot + QLatin1Char('/') + base;
    for (int n = 2; QFileInfo::exists(dir) || m_runs->contains(dir); ++n)
        dir = m_runsRoot + QLatin1Char('/') + base + QStringLiteral("-%1").arg(n);
    return dir;
}

bool MainWindow::startRuns() {
    if (!m_corpus->hasCorpus()) {
        m_errors->showError(tr("No corpus"),
                            tr("Load a corpus first: drop a file or folder on the window, use "
                               "File → Open, or load a prepared corpus on the Corpus page."));
        return false;
    }
    wb::ExperimentConfig config = m_experiment->config();
    config.data.corpus = toStd(m_corpus->corpusPath());
    const QStringList problems = m_experiment->problems();
    if (!problems.isEmpty()) {
        m_errors->showError(tr("The experiment cannot run"),
                            tr("Fix these settings on the Experiment page:\n• %1")
                                .arg(problems.join(QStringLiteral("\n• "))));
        m_sideTabs->setCurrentIndex(1);
        return false;
    }
    const auto choices = m_devices->checkedChoices();
    if (choices.empty()) {
        m_errors->showError(tr("No device"),
                            tr("Tick at least one device in the Devices list, then press Run."));
        return false;
    }
    if (!QDir().mkpath(m_runsRoot)) {
        m_errors->showError(tr("Runs folder"),
                            tr("Cannot create the runs folder %1. Check its permissions.").arg(m_runsRoot));
        return false;
    }
    // Earlier runs keep their charts: the new runs are compared with them (View → Clear finished runs, or
    // unticking them in the Runs list, takes them off). Only the progress rows are for the runs in flight.
    m_progress->clear();
    for (RunController* c : m_scheduler->controllers()) {
        if (c->isDone()) continue;
        const int i = m_runs->indexOf(c->runDir());
        m_progress->addRun(c, i >= 0 ? m_runs->at(i).color : QColor(Qt::gray));
    }
    m_scheduler->removeFinished();

    m_scheduler->setSequentialCpu(m_devices->sequentialCpu());
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    const auto corpus = m_corpus->corpus();
    for (const auto& choice : choices) {
        wb::ExperimentConfig c = config;
        c.device.device = choice.device;
        c.device.threads = choice.threads;
        c.device.processes = choice.processes;
        const QString dir = uniqueRunDir(stamp + QLatin1Char('-') + deviceTag(choice));
        c.name = toStd(QFileInfo(dir).fileName());

        RunEntry entry;
        entry.key = dir;
        entry.live = true;
        entry.record.dir = toStd(dir);
        entry.record.config = c;
        entry.record.info.id = c.name;
        entry.record.info.status = wb::RunStatus::Running;
        entry.record.info.device = choice.device;
        entry.record.info.deviceName = choice.name;
        entry.record.info.threads = choice.threads;
        entry.record.info.worldSize = choice.processes;
        entry.record.info.precision = wb::toString(c.device.precision);
        // The trainer writes its own start time; this one names the run until then (the same minute).
        entry.record.info.startedAt =
            toStd(QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-ddTHH:mm:ssZ")));
        const int index = m_runs->add(std::move(entry));
        const QString label = m_runs->at(index).label;

        launch(new RunController(c, dir, label, corpus), m_runs->at(index).color);
        appendLog(tr("%1: run folder %2").arg(label, dir));
    }
    m_mainTabs->setCurrentIndex(0);
    statusBar()->showMessage(tr("Training on %n device(s)", nullptr, int(choices.size())), 5000);
    return true;
}

void MainWindow::clearFinishedRuns() {
    QStringList finished;
    for (int i = 0; i < m_runs->size(); ++i)
        if (!m_runs->at(i).live) finished << m_runs->at(i).key;
    for (const QString& key : finished) m_runs->remove(key);  // they stay in the Runs list, unticked
    statusBar()->showMessage(
        tr("%n finished run(s) left the charts; tick them in the Runs list to bring them back", nullptr,
           int(finished.size())),
        8000);
}

void MainWindow::launch(RunController* controller, const QColor& color) {
    const QString dir = controller->runDir();
    const QString label = controller->label();
    connect(
        controller, &RunController::metricsReceived, m_runs,
        [this, dir](const std::vector<wb::MetricRecord>& records) { m_runs->appendMetrics(dir, records); });
    connect(controller, &RunController::logLine, this,
            [this, label](const QString& line) { appendLog(label + QStringLiteral(": ") + line); });
    connect(controller, &RunController::errorOccurred, this, [this, label](const QString& message) {
        appendLog(label + QStringLiteral(": ") + message);
        if (!m_closing)
            m_errors->showError(
                tr("The run on %1 failed").arg(label),
                tr("%1\n\nWhat the run learned until then is in its run folder; change the "
                   "settings (a smaller batch or model for out-of-memory, a lower learning rate "
                   "for NaN loss) and run again.")
                    .arg(message));
    });
    connect(controller, &RunController::finished, this, [this, controller] { onRunFinished(controller); });
    m_progress->addRun(controller, color);
    m_scheduler->submit(controller);
}

bool MainWindow::resumeRun(const QString& dir, const ResumeRequest& request) {
    for (RunController* c : m_scheduler->controllers())
        if (c->runDir() == dir && !c->isDone()) {
            m_errors->showError(tr("The run is still training"), tr("%1 is training now.").arg(dir));
            return false;
        }
    RunEntry entry;
    entry.key = dir;
    try {
        entry.record = wb::loadRunFolder(toStd(dir));
    } catch (const std::exception& e) {
        m_errors->showError(tr("Could not resume the run"), describeError(e));
        return false;
    }
    // The curves so far come from the folder; the resumed steps are appended as they arrive.
    m_runs->remove(dir);
    entry.live = true;
    const int index = m_runs->add(std::move(entry));
    const RunEntry& added = m_runs->at(index);
    auto* controller = new RunController(added.record.config, dir, added.label, nullptr);
    controller->setResume(request);
    launch(controller, added.color);
    appendLog(tr("%1: resuming from its last checkpoint").arg(added.label));
    m_mainTabs->setCurrentIndex(0);
    return true;
}

void MainWindow::onRunFinished(RunController* controller) {
    if (m_closing) return;
    const QString dir = controller->runDir();
    m_runs->reloadFromDisk(dir);
    m_runsPanel->refresh();
    const QString state = RunController::stateName(controller->state());
    statusBar()->showMessage(tr("%1: %2").arg(controller->label(), state), 8000);
    // The playground follows the newest finished run, so that Run → Playground just works.
    if (controller->state() != RunController::State::Failed &&
        QFileInfo::exists(dir + QLatin1Char('/') + QLatin1String(wb::runfiles::kModel)))
        m_playground->loadRun(dir);
}

void MainWindow::refreshPlaygroundRuns() { m_playground->setRuns(m_runsPanel->runsWithModel()); }

void MainWindow::pauseAll(bool paused) {
    m_scheduler->pauseAll(paused);
    updateActions();
}

void MainWindow::stopAll() {
    m_scheduler->stopAll();
    statusBar()->showMessage(tr("Stopping: each run ends after its current batch and saves its run folder"),
                             5000);
}

void MainWindow::updateActions() {
    const bool pending = m_scheduler->anyPending();
    m_pauseAction->setEnabled(pending);
    m_stopAction->setEnabled(pending);
    {
        QSignalBlocker b(m_pauseAction);
        m_pauseAction->setChecked(m_scheduler->allPaused());
    }
    int running = 0, paused = 0, queued = 0;
    for (RunController* c : m_scheduler->controllers()) {
        if (c->state() == RunController::State::Running) ++running;
        if (c->state() == RunController::State::Paused) ++paused;
        if (c->state() == RunController::State::Queued) ++queued;
    }
    // A paused run is not running: "1 running" under a paused progress bar read as a fault.
    QString text = tr("%1 running").arg(running);
    if (paused > 0) text += tr(" · %1 paused").arg(paused);
    text += tr(" · %1 queued").arg(queued);
    m_statusRuns->setText(pending ? text : QString());
}

void MainWindow::appendLog(const QString& line) {
    m_log->appendPlainText(QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss ")) + line);
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
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a run folder"), m_runsRoot);
    if (!dir.isEmpty()) openPath(dir);
}

bool MainWindow::exportChart(const QString& path) {
    m_overlay->flush();
    QString error;
    if (!ChartExporter::savePlot(
            m_overlay->plot(), path, &error, ChartExporter::kWidth, ChartExporter::kHeight,
            ChartExporter::caption(tr("LSTM Workbench comparison"), m_runs->records()))) {
        m_errors->showError(tr("Export failed"), error + tr("\n\nPick another folder or file name."));
        return false;
    }
    statusBar()->showMessage(tr("Chart saved to %1").arg(path), 6000);
    return true;
}

bool MainWindow::exportCsv(const QString& path) {
    QString error;
    if (!ChartExporter::writeCsv(m_runs->records(), path, &error)) {
        m_errors->showError(tr("Export failed"), error + tr("\n\nPick another folder or file name."));
        return false;
    }
    statusBar()->showMessage(tr("All series saved to %1").arg(path), 6000);
    return true;
}

bool MainWindow::exportBundle(const QString& dir) {
    QString error;
    const auto fail = [&] {
        m_errors->showError(tr("Export failed"), error + tr("\n\nPick another folder."));
        return false;
    };
    if (!QDir().mkpath(dir + QStringLiteral("/configs"))) {
        error = tr("%1: cannot create the folder").arg(dir);
        return fail();
    }
    m_overlay->flush();
    m_grid->flush();
    m_table->refresh();
    // The overlay in every x-axis mode a reader may ask about, then each run's own chart.
    const XAxisMode shown = m_overlay->xAxisMode();
    const struct {
        XAxisMode mode;
        const char* name;
    } modes[] = {{XAxisMode::Step, "overlay-step.png"},
                 {XAxisMode::WallSeconds, "overlay-wall-seconds.png"},
                 {XAxisMode::Samples, "overlay-samples.png"}};
    for (const auto& m : modes) {
        m_overlay->setXAxisMode(m.mode);
        if (!ChartExporter::savePlot(
                m_overlay->plot(), dir + QLatin1Char('/') + QLatin1String(m.name), &error,
                ChartExporter::kWidth, ChartExporter::kHeight,
                ChartExporter::caption(tr("LSTM Workbench comparison"), m_runs->records()))) {
            m_overlay->setXAxisMode(shown);
            return fail();
        }
    }
    m_overlay->setXAxisMode(shown);
    for (int i = 0; i < m_runs->size(); ++i) {
        const RunEntry& e = m_runs->at(i);
        const QString id = QFileInfo(e.key).fileName();
        if (RunChartPanel* panel = m_grid->panel(e.key))
            if (!ChartExporter::savePlot(panel->plot(), dir + QStringLiteral("/run-%1.png").arg(id), &error,
                                         900, 560))
                return fail();
        QSaveFile config(dir + QStringLiteral("/configs/%1.json").arg(id));
        if (!config.open(QIODevice::WriteOnly) ||
            config.write(QByteArray::fromStdString(e.record.config.toJson())) < 0 || !config.commit()) {
            error = tr("%1: cannot write").arg(config.fileName());
            return fail();
        }
    }
    if (m_throughput->barCount() > 0 &&
        !ChartExporter::saveChartView(m_throughput, dir + QStringLiteral("/throughput.png"), &error))
        return fail();
    if (!ChartExporter::writeCsv(m_runs->records(), dir + QStringLiteral("/metrics.csv"), &error))
        return fail();
    if (!ChartExporter::writeComparisonTableCsv(m_table->rows(), dir + QStringLiteral("/comparison.csv"),
                                                &error))
        return fail();
    QSaveFile env(dir + QStringLiteral("/environment.json"));
    if (!env.open(QIODevice::WriteOnly) || env.write(ChartExporter::environmentJson()) < 0 || !env.commit()) {
        error = tr("%1: cannot write").arg(env.fileName());
        return fail();
    }
    statusBar()->showMessage(tr("Comparison bundle written to %1").arg(dir), 8000);
    return true;
}

void MainWindow::exportChartDialog() {
    QString selected;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export the overlay chart"), m_runsRoot + QStringLiteral("/comparison.png"),
        tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"), &selected);
    if (path.isEmpty()) return;
    QString file = path;
    if (QFileInfo(file).suffix().isEmpty())
        file += selected.contains(QLatin1String("svg"))   ? QStringLiteral(".svg")
                : selected.contains(QLatin1String("pdf")) ? QStringLiteral(".pdf")
                                                          : QStringLiteral(".png");
    exportChart(file);
}

void MainWindow::exportCsvDialog() {
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export all series"), m_runsRoot + QStringLiteral("/metrics.csv"), tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".csv");
    exportCsv(path);
}

void MainWindow::exportBundleDialog() {
    const QString dir =
        QFileDialog::getExistingDirectory(this, tr("Folder for the comparison bundle"), m_runsRoot);
    if (dir.isEmpty()) return;
    exportBundle(dir + QStringLiteral("/comparison-") +
                 QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
}

bool MainWindow::finderConfig(const QString& finder, wb::ExperimentConfig* config) {
    if (!m_corpus->hasCorpus()) {
        m_errors->showError(tr("No corpus"), tr("The %1 trains on the corpus: load one first.").arg(finder));
        return false;
    }
    *config = m_experiment->config();
    config->data.corpus = toStd(m_corpus->corpusPath());
    // A finder measures on one device, in this process: the last one ticked.
    const auto choices = m_devices->checkedChoices();
    if (!choices.empty()) {
        config->device.device = choices.back().device;
        config->device.threads = choices.back().threads;
    }
    return true;
}

void MainWindow::runLrFinder() {
    wb::ExperimentConfig config;
    if (!finderConfig(tr("learning-rate finder"), &config)) return;
    auto* dialog = new LrFinderDialog(config, m_corpus->corpus(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &LrFinderDialog::rateChosen, this, [this](double rate) {
        m_experiment->setLearningRate(rate);
        statusBar()->showMessage(tr("Learning rate set to %1").arg(rate, 0, 'g', 3), 5000);
    });
    connect(dialog, &LrFinderDialog::failed, this,
            [this](const QString& m) { m_errors->showError(tr("LR finder"), m); });
    dialog->open();
    dialog->start();
}

void MainWindow::runBatchSizeFinder() {
    wb::ExperimentConfig config;
    if (!finderConfig(tr("batch-size finder"), &config)) return;
    auto* dialog = new BatchSizeFinderDialog(config, m_corpus->corpus(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &BatchSizeFinderDialog::batchSizeChosen, this, [this](qint64 size) {
        m_experiment->setBatchSize(size);
        statusBar()->showMessage(tr("Batch size set to %1").arg(size), 5000);
    });
    connect(dialog, &BatchSizeFinderDialog::failed, this,
            [this](const QString& m) { m_errors->showError(tr("Batch-size finder"), m); });
    dialog->open();
    dialog->start();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    m_closing = true;
    if (m_scheduler->anyPending()) {
        statusBar()->showMessage(tr("Stopping the runs and saving their run folders…"));
        QApplication::setOverrideCursor(Qt::WaitCursor);
        // Each run stops within one batch and writes its checkpoint, metrics and run.json.
        m_scheduler->shutdown();
        QApplication::restoreOverrideCursor();
    }
    saveSettings();
    event->accept();
}

}  // namespace wbui
