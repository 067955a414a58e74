// One row per run of this session: its device, state, a progress bar with ETA, and its own pause and stop
// buttons. Rows follow the RunController signals; nothing here runs off the GUI thread.
#pragma once

#include <QHash>
#include <QWidget>

#include "training/RunController.h"

class QGridLayout;
class QLabel;
class QProgressBar;
class QToolButton;

namespace wbui {

class RunProgressPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunProgressPanel(QWidget* parent = nullptr);

    void addRun(RunController* controller, const QColor& color);
    void clear();
    int rowCount() const { return m_rows.size(); }
    // For tests and the status bar: "42% · ETA 0:12".
    QString progressText(RunController* controller) const;

private:
    struct Row {
        QLabel* name = nullptr;
        QLabel* state = nullptr;
        QProgressBar* bar = nullptr;
        QToolButton* pause = nullptr;
        QToolButton* stop = nullptr;
    };
    void updateProgress(RunController* controller, const wb::TrainingProgress& progress);
    void updateState(RunController* controller);

    QGridLayout* m_grid = nullptr;
    QLabel* m_placeholder = nullptr;
    QHash<RunController*, Row> m_rows;
};

}  // namespace wbui
