// The Training tab: a progress row per run in flight, each run's live charts side by side, and the log.
#pragma once

#include <QSplitter>

class QPlainTextEdit;

namespace wbui {

class RunChartGrid;
class RunCollection;
class RunProgressPanel;

class TrainingView : public QSplitter {
    Q_OBJECT
public:
    explicit TrainingView(RunCollection* runs, QWidget* parent = nullptr);

    RunProgressPanel* progress() const { return m_progress; }
    RunChartGrid* grid() const { return m_grid; }
    // A line in the log, after the time of day.
    void appendLog(const QString& line);

private:
    RunProgressPanel* m_progress;
    RunChartGrid* m_grid;
    QPlainTextEdit* m_log;
};

}  // namespace wbui
