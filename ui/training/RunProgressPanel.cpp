// Progress rows of this session's runs.
#include "training/RunProgressPanel.h"

#include <QGridLayout>
#include <QLabel>
#include <QProgressBar>
#include <QStyle>
#include <QToolButton>

#include "common/ElidedLabel.h"
#include "training/TrainingWorker.h"
#include "workbench/domain/Format.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

// A progress bar whose text is the longest of its variants that fits the bar: "43% · step 210/500 · ETA
// 1:02 · 104 samples/s" was clipped in a narrow bar ("104 samples/ s", issue #63), where "43% · step
// 210/500 · ETA 1:02" reads whole. The whole text is the tooltip.
class FittedProgressBar : public QProgressBar {
public:
    using QProgressBar::QProgressBar;
    // Longest first; the first is what the row says (RunProgressPanel::progressText).
    void setTexts(const QStringList& variants) {
        m_variants = variants;
        setToolTip(variants.value(0));
        fit();
    }
    QString wholeText() const { return m_variants.value(0); }

protected:
    void resizeEvent(QResizeEvent* event) override {
        QProgressBar::resizeEvent(event);
        fit();
    }

private:
    void fit() {
        const int room = width() - 12;  // the style's margins around the text
        QString shown = m_variants.value(m_variants.size() - 1);
        for (const QString& v : std::as_const(m_variants))
            if (fontMetrics().horizontalAdvance(v) <= room) {
                shown = v;
                break;
            }
        setFormat(shown);
    }
    QStringList m_variants;
};

RunProgressPanel::RunProgressPanel(QWidget* parent) : QWidget(parent) {
    m_grid = new QGridLayout(this);
    m_grid->setContentsMargins(4, 4, 4, 4);
    m_grid->setHorizontalSpacing(8);
    m_grid->setVerticalSpacing(2);
    m_grid->setColumnStretch(3, 1);
    m_placeholder =
        new QLabel(tr("No runs yet. Tick devices and press Run (F5) to train the experiment on each."), this);
    m_placeholder->setStyleSheet(QStringLiteral("color: palette(mid);"));
    m_grid->addWidget(m_placeholder, 0, 0, 1, 6);
}

void RunProgressPanel::clear() {
    for (auto it = m_rows.begin(); it != m_rows.end(); ++it) {
        delete it->swatch;
        delete it->name;
        delete it->state;
        delete it->bar;
        delete it->pause;
        delete it->stop;
        disconnect(it.key(), nullptr, this, nullptr);
    }
    m_rows.clear();
    m_placeholder->show();
}

void RunProgressPanel::relabel(const QString& runDir, const QString& label) {
    for (auto it = m_rows.begin(); it != m_rows.end(); ++it)
        if (it.key()->runDir() == runDir) it->name->setFullText(label);
    refitNames();
}

void RunProgressPanel::refitNames() {
    QStringList names;
    for (const Row& row : std::as_const(m_rows)) names << row.name->fullText();
    for (const Row& row : std::as_const(m_rows)) row.name->setShownRunNames(names);
}

void RunProgressPanel::removeRun(const QString& runDir) {
    QList<RunController*> gone;
    for (auto it = m_rows.begin(); it != m_rows.end(); ++it)
        if (it.key()->runDir() == runDir) gone << it.key();
    for (RunController* c : gone) removeRow(c);
}

void RunProgressPanel::removeRow(RunController* controller) {
    const auto it = m_rows.find(controller);
    if (it == m_rows.end()) return;
    for (QWidget* w :
         std::initializer_list<QWidget*>{it->swatch, it->name, it->state, it->bar, it->pause, it->stop})
        delete w;
    disconnect(controller, nullptr, this, nullptr);
    m_rows.erase(it);
    if (m_rows.isEmpty()) m_placeholder->show();
    refitNames();
}

QString RunProgressPanel::rowLabel(const QString& runDir) const {
    for (auto it = m_rows.begin(); it != m_rows.end(); ++it)
        if (it.key()->runDir() == runDir) return it->name->fullText();
    return {};
}

void RunProgressPanel::addRun(RunController* controller, const QColor& color) {
    m_placeholder->hide();
    const int r = m_grid->rowCount();
    Row row;
    row.color = color;
    row.swatch = new QLabel(QStringLiteral("<span style='color:%1'>■</span>").arg(color.name()), this);
    row.name = new ElidedLabel(this);
    row.name->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);  // whole when there is room
    row.name->setFullText(controller->label());
    row.state = new QLabel(RunController::stateName(controller->state()), this);
    row.state->setMinimumWidth(70);
    row.bar = new FittedProgressBar(this);
    row.bar->setRange(0, 1000);
    row.bar->setValue(0);
    row.bar->setTextVisible(true);
    row.bar->setTexts({tr("waiting")});
    row.pause = new QToolButton(this);
    row.pause->setCheckable(true);
    row.pause->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
    row.pause->setToolTip(tr("Pause or resume this run (between batches)"));
    row.stop = new QToolButton(this);
    row.stop->setIcon(style()->standardIcon(QStyle::SP_MediaStop));
    row.stop->setToolTip(tr("Stop this run; what it learned so far is saved in its run folder"));
    m_grid->addWidget(row.swatch, r, 0);
    m_grid->addWidget(row.name, r, 1);
    m_grid->addWidget(row.state, r, 2);
    m_grid->addWidget(row.bar, r, 3);
    m_grid->addWidget(row.pause, r, 4);
    m_grid->addWidget(row.stop, r, 5);
    m_rows.insert(controller, row);
    refitNames();

    connect(row.pause, &QToolButton::toggled, controller,
            [controller](bool on) { controller->setPaused(on); });
    connect(row.stop, &QToolButton::clicked, controller, [controller] { controller->stop(); });
    connect(controller, &RunController::progressChanged, this,
            [this, controller](const wb::TrainingProgress& p) { updateProgress(controller, p); });
    connect(controller, &RunController::stateChanged, this, [this, controller] { updateState(controller); });
    connect(controller, &QObject::destroyed, this, [this, controller] { removeRow(controller); });
    updateState(controller);
}

QString RunProgressPanel::progressText(RunController* controller) const {
    auto it = m_rows.find(controller);
    return it == m_rows.end() ? QString() : it->bar->wholeText();
}

void RunProgressPanel::updateProgress(RunController* controller, const wb::TrainingProgress& p) {
    auto it = m_rows.find(controller);
    if (it == m_rows.end()) return;
    if (p.phase == kTokenizingPhase) {  // a first run on a corpus: its bytes read, over two passes
        it->bar->setValue(int(p.phaseFraction * 1000));
        const QString percent = QStringLiteral("%1%").arg(int(p.phaseFraction * 100));
        it->bar->setTexts({tr("%1 · tokenizing the corpus into its token store").arg(percent),
                           tr("%1 · tokenizing").arg(percent), percent});
        return;
    }
    const double fraction = p.totalSteps > 0 ? double(p.step) / double(p.totalSteps) : 0.0;
    it->bar->setValue(int(fraction * 1000));
    if (p.phase == "paused") {
        // No ETA while paused: the time left counts from the resume, not on the wall clock meanwhile.
        it->bar->setTexts(
            {tr("%1% · paused at step %2/%3").arg(int(fraction * 100)).arg(p.step).arg(p.totalSteps),
             tr("%1% · paused").arg(int(fraction * 100)), tr("paused")});
        return;
    }
    // The whole text, then shorter ones for a narrow bar: the phase and the speed go first, then the ETA.
    const QString steps =
        QStringLiteral("%1% · step %2/%3").arg(int(fraction * 100)).arg(p.step).arg(p.totalSteps);
    const QString eta =
        p.etaSeconds >= 0 ? tr(" · ETA %1").arg(toQt(wb::clockDuration(p.etaSeconds))) : QString();
    QString text = steps + eta;
    if (p.samplesPerSecond > 0) text += tr(" · %1 samples/s").arg(p.samplesPerSecond, 0, 'f', 0);
    if (!p.phase.empty() && p.phase != "training") text += QStringLiteral(" · ") + toQt(p.phase);
    it->bar->setTexts({text, steps + eta, steps, QStringLiteral("%1%").arg(int(fraction * 100))});
}

void RunProgressPanel::updateState(RunController* controller) {
    auto it = m_rows.find(controller);
    if (it == m_rows.end()) return;
    const auto state = controller->state();
    it->state->setText(RunController::stateName(state));
    it->state->setToolTip(controller->lastError());
    const bool done = controller->isDone();
    // The ranks of a data-parallel run wait on each other inside collectives: such a run stops, not pauses.
    const bool pausable = controller->config().device.spec.processes <= 1;
    it->pause->setEnabled(!done && pausable);
    if (!pausable)
        it->pause->setToolTip(tr("A run over several processes cannot pause: stop it, then resume it"));
    it->stop->setEnabled(!done);
    {
        QSignalBlocker block(it->pause);
        it->pause->setChecked(state == RunController::State::Paused);
    }
    if (state == RunController::State::Completed) {
        it->bar->setValue(1000);
        it->bar->setTexts(
            {tr("done · %1").arg(toQt(wb::clockDuration(controller->lastProgress().wallSeconds))),
             tr("done")});
    } else if (state == RunController::State::Stopped) {
        it->bar->setTexts({tr("stopped at step %1").arg(controller->lastProgress().step), tr("stopped")});
    } else if (state == RunController::State::Failed) {
        it->bar->setTexts({tr("failed: %1").arg(controller->lastError().left(80)), tr("failed")});
    } else if (state == RunController::State::Paused) {
        updateProgress(controller, controller->lastProgress());
    } else if (state == RunController::State::Queued) {
        it->bar->setTexts({tr("queued (CPU runs go one after another)"), tr("queued")});
    }
}

}  // namespace wbui
