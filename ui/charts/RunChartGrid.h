// One live chart panel per run trained in this window (RunEntry::trainedHere; runs opened only to compare
// them are Compare's), side by side in a grid (two columns, more for many runs). Follows the
// RunCollection; metric bursts only mark panels dirty, a ≤ 30 Hz throttle syncs and replots them.
#pragma once

#include <QHash>
#include <QScrollArea>
#include <QSet>

namespace wbui {

class RunChartPanel;
class RunCollection;
class ReplotThrottle;

class RunChartGrid : public QScrollArea {
    Q_OBJECT
public:
    explicit RunChartGrid(RunCollection* runs, QWidget* parent = nullptr);

    int panelCount() const { return m_panels.size(); }
    RunChartPanel* panel(const QString& key) const { return m_panels.value(key); }
    QList<RunChartPanel*> panels() const;
    // Syncs every dirty panel now (tests, export).
    void flush();

private:
    void relayout();
    void addPanel(const QString& key);

    RunCollection* m_runs = nullptr;
    QWidget* m_container = nullptr;
    QHash<QString, RunChartPanel*> m_panels;
    QSet<QString> m_dirty;
    QSet<QString> m_rebuild;
    ReplotThrottle* m_throttle = nullptr;
};

}  // namespace wbui
