// One row per run of this session: its device, state, a progress bar with ETA, and its own pause and stop
// buttons. Rows follow the RunController signals; nothing here runs off the GUI thread.
#pragma once

#include <QColor>
#include <QHash>
#include <QWidget>

#include "training/RunController.h"

class QGridLayout;
class QLabel;
class QProgressBar;
class QToolButton;

namespace wbui {

class ElidedLabel;
class FittedProgressBar;

class RunProgressPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunProgressPanel(QWidget* parent = nullptr);

    void addRun(RunController* controller, const QColor& color);
    void clear();
    // The row of the run in runDir gets the name the charts give it now (its start time once it starts).
    void relabel(const QString& runDir, const QString& label);
    // The rows of the run in runDir go (it left the charts).
    void removeRun(const QString& runDir);
    QString rowLabel(const QString& runDir) const;  // a row's whole name, for tests; "" when none
    int rowCount() const { return m_rows.size(); }
    // For tests and the status bar: "42% · ETA 0:12".
    QString progressText(RunController* controller) const;

private:
    struct Row {
        QColor color;
        QLabel* swatch = nullptr;     // the run's colour, as its chart and legend draw it
        ElidedLabel* name = nullptr;  // fitted among the rows' names: a whole one widened the page
        QLabel* state = nullptr;
        FittedProgressBar* bar = nullptr;
        QToolButton* pause = nullptr;
        QToolButton* stop = nullptr;
    };
    void updateProgress(RunController* controller, const wb::TrainingProgress& progress);
    void updateState(RunController* controller);
    void removeRow(RunController* controller);
    void refitNames();  // every row's name among the others'

    QGridLayout* m_grid = nullptr;
    QLabel* m_placeholder = nullptr;
    QHash<RunController*, Row> m_rows;
};

}  // namespace wbui
