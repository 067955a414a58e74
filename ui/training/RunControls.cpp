// The run buttons and their enabled and checked states.
#include "training/RunControls.h"

#include <QHBoxLayout>
#include <QPushButton>
#include <QStyle>

#include "training/RunLauncher.h"
#include "training/RunScheduler.h"

namespace wbui {

RunControls::RunControls(RunLauncher* launcher, QWidget* parent) : QWidget(parent) {
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    auto* run = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Run"), this);
    run->setToolTip(tr("Train the experiment on every ticked device (F5)"));
    auto* pause = new QPushButton(style()->standardIcon(QStyle::SP_MediaPause), tr("Pause all"), this);
    pause->setCheckable(true);
    auto* stop = new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Stop all"), this);
    row->addWidget(run, 2);
    row->addWidget(pause, 1);
    row->addWidget(stop, 1);
    connect(run, &QPushButton::clicked, launcher, &RunLauncher::startRuns);
    RunScheduler* scheduler = launcher->scheduler();
    // Checked while every run is paused, as the runs report it, not as it was asked.
    const auto showActivity = [scheduler, pause, stop] {
        QSignalBlocker b(pause);
        pause->setChecked(scheduler->allPaused());
        pause->setEnabled(scheduler->anyPending());
        stop->setEnabled(scheduler->anyPending());
    };
    connect(pause, &QPushButton::toggled, this, [this, launcher, showActivity](bool paused) {
        launcher->pauseAll(paused);
        showActivity();
        emit pauseToggled(paused);
    });
    connect(stop, &QPushButton::clicked, launcher, &RunLauncher::stopAll);
    connect(scheduler, &RunScheduler::activityChanged, this, showActivity);
    pause->setEnabled(false);
    stop->setEnabled(false);
}

}  // namespace wbui
