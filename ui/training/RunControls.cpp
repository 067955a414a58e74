// The run buttons, their enabled and checked states, and the time estimate.
#include "training/RunControls.h"

#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QStyle>
#include <QTimer>

#include <utility>

#include "training/EstimateMemory.h"
#include "training/RunEstimator.h"
#include "training/RunLauncher.h"
#include "training/RunScheduler.h"
#include "workbench/domain/Format.h"
#include "workbench/engine/Distributed.h"
#include "workbench/engine/SweepEstimate.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

namespace {

QStringList plannedJson(const std::vector<wb::ExperimentConfig>& runs) {
    QStringList out;
    for (const auto& run : runs) out << toQt(run.toJson());
    return out;
}

}  // namespace

RunControls::RunControls(RunLauncher* launcher, QWidget* parent)
    : QWidget(parent),
      m_launcher(launcher),
      m_estimator(new RunEstimator(toQt(wb::defaultWorkerExecutable()), this)),
      m_estimate(new QLabel(this)),
      m_estimateButton(new QPushButton(tr("Estimate"), this)) {
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    auto* run = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Run"), this);
    run->setToolTip(tr("Train the experiment on every ticked device (F5)"));
    auto* pause = new QPushButton(style()->standardIcon(QStyle::SP_MediaPause), tr("Pause all"), this);
    pause->setCheckable(true);
    auto* stop = new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Stop all"), this);
    grid->addWidget(run, 0, 0);
    grid->addWidget(pause, 0, 1);
    grid->addWidget(stop, 0, 2);
    grid->setColumnStretch(0, 2);
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(2, 1);
    m_estimate->setWordWrap(true);
    m_estimate->setTextFormat(Qt::PlainText);
    m_estimateButton->setToolTip(
        tr("Time a few steps of each ticked run here, in a separate process, and scale them to the planned "
           "steps and validations"));
    grid->addWidget(m_estimate, 1, 0, 1, 2);
    grid->addWidget(m_estimateButton, 1, 2);
    connect(run, &QPushButton::clicked, launcher, &RunLauncher::startRuns);
    RunScheduler* scheduler = launcher->scheduler();
    // Checked while every run is paused, as the runs report it, not as it was asked. No estimate while runs
    // train: its timing and theirs would share the cores.
    const auto showActivity = [this, scheduler, pause, stop] {
        QSignalBlocker b(pause);
        pause->setChecked(scheduler->allPaused());
        pause->setEnabled(scheduler->anyPending());
        stop->setEnabled(scheduler->anyPending());
        m_estimateButton->setEnabled(!scheduler->anyPending() && !m_estimator->busy());
    };
    connect(pause, &QPushButton::toggled, this, [this, launcher, showActivity](bool paused) {
        launcher->pauseAll(paused);
        showActivity();
        Q_EMIT pauseToggled(paused);
    });
    connect(stop, &QPushButton::clicked, launcher, &RunLauncher::stopAll);
    connect(scheduler, &RunScheduler::activityChanged, this, showActivity);
    pause->setEnabled(false);
    stop->setEnabled(false);

    connect(m_estimateButton, &QPushButton::clicked, this, &RunControls::estimate);
    connect(launcher, &RunLauncher::experimentEdited, this, &RunControls::experimentEdited);
    connect(launcher, &RunLauncher::runsStarted, this, [this] {
        if (!m_estimator->busy()) return;
        m_estimator->cancel();
        m_estimate->setText(tr("Estimate stopped: the runs started."));
    });
    connect(m_estimator, &RunEstimator::finished, this, [this, showActivity](double seconds) {
        EstimateMemory::remember(m_estimated, seconds);
        if (!fitFirstRun()) showEstimate(seconds);
        showActivity();
    });
    connect(m_estimator, &RunEstimator::failed, this, [this, showActivity](const QString& why) {
        m_estimate->setText(tr("No estimate: %1").arg(why));
        showActivity();
    });
}

QString RunControls::estimateText() const { return m_estimate->text(); }

bool RunControls::estimate() {
    if (m_launcher->scheduler()->anyPending()) {
        m_estimate->setText(tr("No estimate while runs train: its timing and theirs would share the cores."));
        return false;
    }
    std::vector<wb::ExperimentConfig> runs;
    QString why;
    if (!m_launcher->plannedRuns(&runs, &why)) {
        m_estimate->setText(tr("No estimate: %1").arg(why));
        return false;
    }
    m_estimated = plannedJson(runs);
    m_estimate->setText(estimatingText(runs));
    m_estimateButton->setEnabled(false);
    m_estimator->estimate(runs);
    return true;
}

QString RunControls::estimatingText(const std::vector<wb::ExperimentConfig>& runs, qint64 largeBytes) {
    const QString timing = tr("Timing a few steps to estimate how long the runs take…");
    for (const auto& run : runs) {
        const QFileInfo corpus(toQt(run.data.corpus));
        if (!corpus.isFile() || corpus.size() < largeBytes) continue;
        return tr("Reading %1 (%2) into its token store in the corpus cache (up to twice its size, once), "
                  "then timing a few steps to estimate how long the runs take…")
            .arg(corpus.fileName(), QLocale().formattedDataSize(corpus.size()));
    }
    return timing;
}

void RunControls::showEstimate(double seconds, const QDateTime& timedBefore) {
    const QString time = toQt(wb::humanSeconds(seconds));
    const QString where = timedBefore.isValid()
                              ? tr("timed here on %1; Estimate times it again")
                                    .arg(QLocale().toString(timedBefore.toLocalTime(), QLocale::ShortFormat))
                              : tr("estimated here");
    QString text = m_estimated.size() == 1 ? tr("About %1 on the ticked device (%2).").arg(time, where)
                                           : tr("About %1 for the %2 ticked devices, one after another (%3).")
                                                 .arg(time)
                                                 .arg(m_estimated.size())
                                                 .arg(where);
    // A first run fitted to this machine says by how much and why, as long as it is the experiment planned.
    std::vector<wb::ExperimentConfig> runs;
    QString why;
    if (m_estimated.size() == 1 && m_launcher->plannedRuns(&runs, &why) && plannedJson(runs) == m_estimated)
        if (const wb::RunPlan plan = m_launcher->fittedPlanFor(runs.front()); plan.fitted())
            text += QLatin1Char(' ') +
                    tr("The first run is cut to %1 of its %2 steps to take about %3 here (a few steps timed "
                       "here: %4 µs a sample); raise Max steps on the Experiment page to train longer.")
                        .arg(plan.steps)
                        .arg(plan.stepsAsked)
                        .arg(toQt(wb::humanSeconds(plan.budgetSeconds)))
                        .arg(plan.calibrationUsPerSample, 0, 'f', 0);
    m_estimate->setText(text);
}

bool RunControls::fitFirstRun() {
    const double budget = std::exchange(m_firstRunBudget, 0.0);
    const wb::RunsEstimate& estimate = m_estimator->result();
    std::vector<wb::ExperimentConfig> runs;
    QString why;
    if (budget <= 0 || estimate.models.size() != 1 || !m_launcher->plannedRuns(&runs, &why) ||
        plannedJson(runs) != m_estimated)
        return false;
    wb::ExperimentConfig fitted = runs.front();
    const wb::RunPlan plan =
        wb::fitToSeconds(fitted, estimate.models.front(), budget, estimate.calibrationUsPerSample);
    if (!plan.fitted()) return false;
    // Set before the form changes, so that the edit it makes reads as the experiment estimated.
    m_estimated = plannedJson({fitted});
    EstimateMemory::remember(m_estimated, plan.estimatedSeconds);
    m_launcher->applyFittedPlan(fitted, plan);
    showEstimate(plan.estimatedSeconds);
    return true;
}

bool RunControls::showRememberedEstimate() {
    std::vector<wb::ExperimentConfig> runs;
    QString why;
    if (!m_launcher->plannedRuns(&runs, &why)) return false;
    const QStringList planned = plannedJson(runs);
    const auto kept = EstimateMemory::recall(planned);
    if (!kept) return false;
    m_estimated = planned;
    showEstimate(kept->seconds, kept->timed);
    return true;
}

void RunControls::experimentEdited(bool corpusLoaded) {
    // A new corpus with nothing training (the app opening on the default experiment): estimated at once.
    if (corpusLoaded && m_autoEstimate && !m_launcher->scheduler()->anyPending()) {
        // After every other reader of the new corpus (the Experiment page follows its task first).
        // An experiment timed on this machine before shows that time: timed again at every launch, the
        // estimate jumped by a third from one launch to the next.
        QTimer::singleShot(0, this, [this] {
            if (!m_launcher->scheduler()->anyPending() && !showRememberedEstimate()) estimate();
        });
        return;
    }
    if (m_estimate->text().isEmpty()) return;
    // A signal that changed nothing the runs would train (a form refreshed, a corpus reloaded) keeps it.
    std::vector<wb::ExperimentConfig> runs;
    QString why;
    if (m_launcher->plannedRuns(&runs, &why) && plannedJson(runs) == m_estimated) return;
    m_estimated.clear();
    m_estimator->cancel();
    m_estimate->setText(tr("The experiment changed: press Estimate for its time."));
    m_estimateButton->setEnabled(!m_launcher->scheduler()->anyPending());
}

}  // namespace wbui
