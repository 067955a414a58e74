// The Compare tab: every run's curves overlaid, the throughput bars beside them (they follow the table's
// rows), and the comparison table below at the whole width.
#pragma once

#include <QSplitter>

namespace wbui {

class ComparisonTable;
class OverlayChart;
class RunCollection;
class ThroughputChart;

class CompareView : public QSplitter {
    Q_OBJECT
public:
    explicit CompareView(RunCollection* runs, QWidget* parent = nullptr);

    OverlayChart* overlay() const { return m_overlay; }
    ComparisonTable* table() const { return m_table; }
    ThroughputChart* throughput() const { return m_throughput; }

private:
    OverlayChart* m_overlay;
    ComparisonTable* m_table;
    ThroughputChart* m_throughput;
};

}  // namespace wbui
