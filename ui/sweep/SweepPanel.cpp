// The Sweep tab.
#include "sweep/SweepPanel.h"

#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QStyle>
#include <QVBoxLayout>

#include "common/ElidedLabel.h"
#include "export/ChartExporter.h"
#include "export/SweepExport.h"
#include "sweep/SlurmSettingsDialog.h"
#include "sweep/SweepGridEditor.h"
#include "sweep/SweepPlotTabs.h"
#include "sweep/SweepResultsView.h"
#include "workbench/domain/Format.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

SweepPanel::SweepPanel(QWidget* parent)
    : QWidget(parent),
      m_runner(new SweepRunner(this)),
      m_grid(new SweepGridEditor(this)),
      m_tables(new SweepResultsView(this)),
      m_plots(new SweepPlotTabs(this)) {
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_tables);
    split->addWidget(m_plots);
    split->setSizes({250, 520});
    auto* outer = new QVBoxLayout(this);
    outer->addWidget(m_grid);
    outer->addWidget(buildControls());
    outer->addWidget(split, 1);

    connect(m_grid, &SweepGridEditor::changed, this, [this] { replan(); });
    connect(m_grid, &SweepGridEditor::estimateRequested, this, &SweepPanel::estimate);
    connect(m_grid->runOnBox(), &QComboBox::currentIndexChanged, this, [this] { useRunOn(); });
    connect(m_grid, &SweepGridEditor::slurmSettingsRequested, this, [this] {
        SlurmSettingsDialog dialog(SlurmSettingsDialog::saved(), this);
        if (dialog.exec() != QDialog::Accepted) return;
        SlurmSettingsDialog::save(dialog.settings());
        useRunOn();
    });
    connect(m_tables, &SweepResultsView::cellOpened, this, [this](int row) {
        const auto& sweep = m_runner->sweep();
        if (!sweep || row < 0 || row >= int(sweep->cells.size())) return;
        const auto& cell = sweep->cells[std::size_t(row)];
        if (cell.state == wb::CellState::Done)
            Q_EMIT openRunRequested(QDir(sweepDir()).filePath(toQt(cell.runDir)));
    });
    connect(m_plots, &SweepPlotTabs::baselineChanged, this, [this] {
        if (m_runner->sweep()) m_plots->showSweep(*m_runner->sweep(), m_results);
    });
    connectRunner();
    useRunOn();
    onStateChanged();
}

// "On this machine" or "On Slurm" with the Slurm settings kept, for the next Start or Resume.
void SweepPanel::useRunOn() {
    const auto settings = SlurmSettingsDialog::saved();
    m_runner->setSlurm(m_grid->runOnBox()->currentIndex() == 1 ? std::optional<wb::SlurmSettings>(settings)
                                                               : std::nullopt);
    m_grid->slurmSettingsButton()->setToolTip(
        tr("The partition, the account and each cell's time limit; now %1")
            .arg(SlurmSettingsDialog::describe(settings)));
}

// Start, Pause, Resume, Cancel and Export, the progress line and the sweep's folder.
QWidget* SweepPanel::buildControls() {
    auto* row = new QWidget(this);
    auto* controls = new QHBoxLayout(row);
    controls->setContentsMargins(0, 0, 0, 0);
    m_startButton = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Start Sweep"), row);
    m_pauseButton = new QPushButton(style()->standardIcon(QStyle::SP_MediaPause), tr("Pause"), row);
    m_pauseButton->setToolTip(tr("Let the running cell finish, then stop; Resume goes on"));
    m_resumeButton = new QPushButton(style()->standardIcon(QStyle::SP_MediaSeekForward), tr("Resume"), row);
    m_resumeButton->setToolTip(tr("Train the cells not done yet"));
    m_cancelButton = new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Cancel"), row);
    m_cancelButton->setToolTip(tr("Stop now; the running cell is redone on Resume"));
    m_exportButton = new QPushButton(tr("Export Bundle…"), row);
    m_exportButton->setToolTip(
        tr("sweep.json, results.csv, the plots (PNG and CSV) and every cell's run files"));
    m_folder = new ElidedLabel(row);
    m_folder->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    // Elided: "2 of 6 runs done · about 50 s left · pausing after the running cell" widened the window.
    m_progress = new ElidedLabel(row, Qt::ElideRight);
    for (auto* b : {m_startButton, m_pauseButton, m_resumeButton, m_cancelButton}) controls->addWidget(b);
    controls->addWidget(m_exportButton);
    controls->addSpacing(12);
    controls->addWidget(m_progress, 2);
    controls->addWidget(m_folder, 1);
    connect(m_startButton, &QPushButton::clicked, this, [this] { start(); });
    // Pause, and while the sweep pauses, Keep going (the same place, so that the way back is where the click
    // was).
    connect(m_pauseButton, &QPushButton::clicked, this,
            [this] { state() == State::Pausing ? keepGoing() : pause(); });
    connect(m_resumeButton, &QPushButton::clicked, this, [this] { resume(); });
    connect(m_cancelButton, &QPushButton::clicked, this, &SweepPanel::cancel);
    connect(m_exportButton, &QPushButton::clicked, this, [this] {
        const QString dir = ChartExporter::askForNewFolder(this, tr("Save the sweep bundle as a new folder"),
                                                           sweepDir() + QStringLiteral("-bundle"));
        QString why;
        if (!dir.isEmpty() && !exportBundle(dir, &why)) m_progress->setFullText(why);
    });
    return row;
}

void SweepPanel::connectRunner() {
    connect(m_runner, &SweepRunner::sweepChanged, this, &SweepPanel::onSweepChanged);
    connect(m_runner, &SweepRunner::stateChanged, this, &SweepPanel::onStateChanged);
    connect(m_runner, &SweepRunner::stopped, this, &SweepPanel::onStopped);
    connect(m_runner, &SweepRunner::estimated, this, [this](double seconds) {
        m_grid->setEstimate(tr("about %1").arg(toQt(wb::humanSeconds(seconds))));
        m_grid->setEstimateEnabled(!isRunning());
    });
    connect(m_runner, &SweepRunner::estimateFailed, this, [this](const QString& why) {
        m_grid->setEstimate(tr("no estimate: %1").arg(why));
        m_grid->setEstimateEnabled(!isRunning());
    });
}

void SweepPanel::setBaseProvider(BaseProvider provider) {
    m_provider = std::move(provider);
    replan();
}

void SweepPanel::setCliProgram(const QString& program) { m_runner->setCliProgram(program); }

QComboBox* SweepPanel::runOnBox() const { return m_grid->runOnBox(); }
QPushButton* SweepPanel::slurmSettingsButton() const { return m_grid->slurmSettingsButton(); }
void SweepPanel::setAxes(const std::vector<wb::SweepAxis>& axes) { m_grid->setAxes(axes); }
std::vector<wb::SweepAxis> SweepPanel::axes() const { return m_grid->axes(); }
void SweepPanel::setRepeats(int repeats) { m_grid->setRepeats(repeats); }
void SweepPanel::setStepsPerCell(int steps) { m_grid->setStepsPerCell(steps); }
int SweepPanel::stepsPerCell() const { return m_grid->stepsPerCell(); }

QTableWidget* SweepPanel::cellTable() const { return m_tables->cellTable(); }
QTableWidget* SweepPanel::resultTable() const { return m_tables->resultTable(); }
SweepChart* SweepPanel::chart(int i) const { return m_plots->chart(i); }
QComboBox* SweepPanel::baselineBox() const { return m_plots->baselineBox(); }
QTabWidget* SweepPanel::plotTabs() const { return m_plots; }

std::optional<wb::ExperimentConfig> SweepPanel::baseConfig(QString* why) const {
    wb::ExperimentConfig config;
    if (!m_provider) {
        *why = tr("No experiment to sweep");
        return std::nullopt;
    }
    if (!m_provider(&config, why)) return std::nullopt;
    if (m_grid->stepsPerCell() > 0) {
        config.train.epochs = 0;
        config.train.maxSteps = m_grid->stepsPerCell();
    }
    return config;
}

bool SweepPanel::replan() {
    m_grid->setEstimate(QString());
    QString why;
    const auto base = baseConfig(&why);
    bool ok = false;
    if (!base) {
        m_planText = why;
    } else {
        try {
            std::vector<wb::SweepAxis> checked;
            for (const auto& a : axes()) checked.push_back(wb::checkSweepAxis(a));
            const auto plan = wb::Sweep::plan(*base, checked, m_grid->repeats(), 0);
            QStringList dims;
            for (const auto& a : plan.axes)
                dims << QStringLiteral("%1: %2").arg(toQt(a.field)).arg(a.values.size());
            m_planText = (plan.cells.size() == 1 ? tr("1 run") : tr("%1 runs").arg(plan.cells.size())) +
                         QStringLiteral(" (") + dims.join(QStringLiteral(" × ")) +
                         (plan.repeats > 1 ? tr(" × %1 repeats").arg(plan.repeats) : QString()) +
                         QStringLiteral(")");
            ok = true;
        } catch (const std::exception& e) {
            m_planText = toQt(e.what());
            // A sweep on show (an opened folder, say one over links) was made from another experiment: the
            // plan is for Start, which would run its grid on the Experiment page's.
            if (m_runner->sweep())
                m_planText =
                    tr("Start would run this grid on the Experiment page's experiment, which cannot: %1")
                        .arg(m_planText);
        }
    }
    m_grid->setPlan(m_planText, ok);
    m_startButton->setEnabled(ok && !isRunning());
    m_grid->setEstimateEnabled(ok && !isRunning() && !m_runner->isEstimating());
    return ok;
}

void SweepPanel::estimate() {
    QString why;
    const auto base = baseConfig(&why);
    if (!base || !replan()) return;
    m_grid->setEstimate(tr("estimating…"));
    m_grid->setEstimateEnabled(false);
    m_runner->estimate(*base, axes(), m_grid->repeats());
}

QString SweepPanel::newSweepFolder() const {
    const QString root =
        m_sweepsRoot.isEmpty() ? QDir::homePath() + QStringLiteral("/lstm-workbench-sweeps") : m_sweepsRoot;
    const QString stem = root + QStringLiteral("/sweep-") +
                         QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    QString dir = stem;
    for (int n = 2; QFileInfo::exists(dir); ++n) dir = stem + QStringLiteral("-%1").arg(n);
    return dir;
}

bool SweepPanel::start(const QString& requestedDir) {
    m_lastError.clear();
    if (isRunning()) {
        m_lastError = tr("A sweep is running");
        return false;
    }
    QString why;
    const auto base = baseConfig(&why);
    if (!base || !replan()) {
        m_lastError = base ? m_planText : why;
        return false;
    }
    m_results = {};
    m_shownDone = -1;
    m_stopNote.clear();
    m_tables->clear();
    const QString dir = requestedDir.isEmpty() ? newSweepFolder() : requestedDir;
    return m_runner->start(*base, axes(), m_grid->repeats(), dir, &m_lastError);
}

void SweepPanel::pause() { m_runner->pause(); }

void SweepPanel::keepGoing() { m_runner->keepGoing(); }

QString SweepPanel::quitConsequence() const {
    const auto& sweep = m_runner->sweep();
    if (!isRunning() || !sweep) return {};
    const int done = m_runner->doneCells();
    QString running;
    for (const auto& c : sweep->cells)
        if (c.state == wb::CellState::Running)
            running = tr("run %1 of %2 (%3)")
                          .arg(c.index + 1)
                          .arg(sweep->cells.size())
                          .arg(toQt(sweep->describe(c)));
    const QString kept = done == 0 ? tr("No run has finished yet; Resume on the Sweep tab trains them all.")
                         : done == 1
                             ? tr("The finished run is kept; Resume on the Sweep tab trains the rest.")
                             : tr("The %1 finished runs are kept; Resume on the Sweep tab trains the "
                                  "rest.")
                                   .arg(done);
    if (running.isEmpty()) return tr("The sweep stops before its next run. %1").arg(kept);
    if (state() == State::Pausing)
        return tr("The sweep is pausing after %1, which is still training: quitting stops it now, and it is "
                  "trained again from its start on Resume. %2")
            .arg(running, kept);
    return tr("The sweep is training %1: quitting stops it now, and it is trained again from its start on "
              "Resume. %2")
        .arg(running, kept);
}

bool SweepPanel::resume() {
    m_lastError.clear();
    m_stopNote.clear();
    return m_runner->resume(&m_lastError);
}

void SweepPanel::cancel() { m_runner->cancel(); }

bool SweepPanel::openSweep(const QString& dir, QString* error) {
    QString why;
    m_shownDone = -1;
    m_stopNote.clear();
    if (!m_runner->open(dir, &why)) {
        if (error) *error = why;
        return false;
    }
    // The grid it was made with, so that a similar one is one edit away: its axes, repeats and steps per
    // cell (0 when its cells train whole epochs).
    const wb::Sweep loaded = *m_runner->sweep();
    m_grid->setAxes(loaded.axes);
    m_grid->setRepeats(loaded.repeats);
    m_grid->setStepsPerCell(loaded.base.train.epochs == 0 ? int(loaded.base.train.maxSteps) : 0);
    return true;
}

void SweepPanel::onSweepChanged() {
    m_folder->setFullText(sweepDir());
    const auto& sweep = m_runner->sweep();
    if (!sweep) {
        updateProgress();
        return;
    }
    const int done = sweep->count(wb::CellState::Done);
    // The run folders are read again only when a cell finished.
    if (done != m_shownDone) {
        try {
            m_results = wb::sweepResults(toStd(sweepDir()), *sweep);
            m_shownDone = done;
            m_tables->showResults(m_results);
            m_plots->showSweep(*sweep, m_results);
        } catch (const std::exception& e) {
            m_stopNote = tr("Cannot read the results: %1").arg(toQt(e.what()));
        }
    }
    m_tables->showCells(*sweep, m_results);
    updateProgress();
}

void SweepPanel::onStopped(const QString& error, bool someFailed) {
    if (!error.isEmpty()) {
        m_lastError = error;
        m_stopNote = tr("Stopped: %1").arg(error);
    } else if (someFailed) {
        m_stopNote = tr("some cells failed (see their tooltips)");
    }
    updateProgress();
}

void SweepPanel::onStateChanged() {
    const State s = state();
    const bool running = isRunning();
    const auto& sweep = m_runner->sweep();
    const bool incomplete = sweep && sweep->count(wb::CellState::Done) < int(sweep->cells.size());
    m_pauseButton->setEnabled(s == State::Running || s == State::Pausing);
    const bool pausing = s == State::Pausing;
    m_pauseButton->setText(pausing ? tr("Keep Going") : tr("Pause"));
    m_pauseButton->setIcon(style()->standardIcon(pausing ? QStyle::SP_MediaPlay : QStyle::SP_MediaPause));
    m_pauseButton->setToolTip(pausing ? tr("Withdraw the pause: the sweep goes on after the running cell")
                                      : tr("Let the running cell finish, then stop; Resume goes on"));
    m_cancelButton->setEnabled(running);
    m_resumeButton->setEnabled(!running && sweep && incomplete);
    m_exportButton->setEnabled(!running && sweep.has_value());
    m_grid->setEditable(!running);
    replan();
    updateProgress();
    Q_EMIT stateChanged(s);
}

void SweepPanel::updateProgress() {
    const auto& sweep = m_runner->sweep();
    if (!sweep) {
        m_progress->setFullText(state() == State::Running ? tr("Starting…") : m_stopNote);
        return;
    }
    const int failed = sweep->count(wb::CellState::Failed);
    QString text = tr("%1 of %2 runs done").arg(sweep->count(wb::CellState::Done)).arg(sweep->cells.size());
    if (failed) text += tr(", %1 failed").arg(failed);
    if (const double left = m_runner->secondsLeft(); left >= 0)
        text += tr(" · about %1 left").arg(toQt(wb::humanSeconds(left)));
    if (state() == State::Pausing) text += tr(" · pausing after the running cell");
    if (state() == State::Stopped) text += tr(" · stopped: Resume trains the rest");
    if (!m_stopNote.isEmpty())
        text = m_stopNote.startsWith(tr("Stopped")) ? m_stopNote : text + tr(" · ") + m_stopNote;
    m_progress->setFullText(text);
}

bool SweepPanel::exportBundle(const QString& dir, QString* error) {
    if (!m_runner->sweep()) {
        if (error) *error = tr("No sweep to export");
        return false;
    }
    if (!writeSweepBundle(*m_runner->sweep(), sweepDir(), m_results, m_plots->baselineDevice(), dir, error))
        return false;
    m_progress->setFullText(tr("Exported the sweep to %1").arg(dir));
    return true;
}

}  // namespace wbui
