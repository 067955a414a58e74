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

protected:
    // A narrower page takes fewer columns: two charts side by side wider than the page scrolled it sideways.
    void resizeEvent(QResizeEvent* event) override;

private:
    void relayout();
    void addPanel(const QString& key);
    // Two columns for 2 to 4 panels, a square grid for more, fewer when the width does not hold them.
    static int columnsFor(int panels, int width);
    static constexpr int kMinPanelWidth = 300;  // a panel's plot (280) and its margins

    RunCollection* m_runs = nullptr;
    QWidget* m_container = nullptr;
    QHash<QString, RunChartPanel*> m_panels;
    QSet<QString> m_dirty;
    QSet<QString> m_rebuild;
    ReplotThrottle* m_throttle = nullptr;
    int m_columns = 1;
};

}  // namespace wbui
