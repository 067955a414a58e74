// The Run, Pause all and Stop all buttons under the device list, bound to a RunLauncher: Pause and Stop are
// enabled only while a run is pending, and Pause shows whether every run is paused. Below them, how long the
// runs will take (RunEstimator): estimated by itself when a corpus is loaded and nothing trains, in the app
// (so the first launch says how long the default experiment takes), and again on demand after a change.
#pragma once

#include <QDateTime>
#include <QStringList>
#include <QWidget>

#include <vector>

#include "workbench/domain/Config.h"

class QLabel;
class QPushButton;

namespace wbui {

class RunEstimator;
class RunLauncher;

class RunControls : public QWidget {
    Q_OBJECT
public:
    RunControls(RunLauncher* launcher, QWidget* parent = nullptr);

    // Off until the app turns it on (MainWindow::startFirstLaunch): a loaded corpus is then estimated at
    // once. Tests load corpora by the hundred and leave it off.
    void setAutoEstimate(bool on) { m_autoEstimate = on; }
    // The first launch (no experiment saved yet): the next estimate of a single run longer than 1.1 times
    // `seconds` cuts the run's max steps to what fits `seconds` here (wb::fitToSeconds), once, and says so
    // where the estimate is shown; the run records the plan in run.json (RunLauncher::applyFittedPlan).
    void setFirstRunBudget(double seconds) { m_firstRunBudget = seconds; }
    static constexpr double kFirstRunSeconds = 600;  // a first run of about ten minutes, whatever the machine
    // Estimates the ticked runs now (the Estimate button: timed again even when a time is remembered); false,
    // with the reason shown, when it cannot.
    bool estimate();
    QString estimateText() const;
    // The line shown while an estimate is timed: for a corpus file of largeBytes or more, also that the
    // planner first reads it into a token store in the corpus cache (up to twice its size, once per corpus
    // and vocabulary): a 300 MB file became a 627 MB store without a word.
    static QString estimatingText(const std::vector<wb::ExperimentConfig>& runs,
                                  qint64 largeBytes = qint64(64) << 20);
    RunEstimator* estimator() const { return m_estimator; }

Q_SIGNALS:
    // Pause all was toggled (the launcher has been told already).
    void pauseToggled(bool paused);

private:
    // timedBefore: when a remembered estimate was measured (EstimateMemory); invalid for one just timed.
    void showEstimate(double seconds, const QDateTime& timedBefore = {});
    bool showRememberedEstimate();  // false when this experiment was not timed on this machine
    bool fitFirstRun();             // false when there is nothing to fit (see setFirstRunBudget)
    void experimentEdited(bool corpusLoaded);

    RunLauncher* m_launcher;
    RunEstimator* m_estimator;
    QLabel* m_estimate;
    QPushButton* m_estimateButton;
    bool m_autoEstimate = false;
    double m_firstRunBudget = 0;
    QStringList m_estimated;  // the configs estimated, as JSON
};

}  // namespace wbui
