// The Compare tab's layout.
#include "charts/CompareView.h"

#include "charts/ComparisonTable.h"
#include "charts/OverlayChart.h"
#include "charts/ThroughputChart.h"
#include "runs/RunCollection.h"

namespace wbui {

CompareView::CompareView(RunCollection* runs, QWidget* parent) : QSplitter(Qt::Vertical, parent) {
    // The chart and the throughput bars side by side above; the table below at the whole width, so that
    // its columns and the runs' names fit without a sideways scroll bar.
    auto* top = new QSplitter(Qt::Horizontal, this);
    m_overlay = new OverlayChart(runs, top);
    m_throughput = new ThroughputChart(top);
    top->addWidget(m_overlay);
    top->addWidget(m_throughput);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 1);
    top->setSizes({600, 220});
    m_table = new ComparisonTable(runs, this);
    addWidget(top);
    addWidget(m_table);
    setSizes({500, 280});
    connect(m_table, &ComparisonTable::rowsChanged, this,
            [this, runs] { m_throughput->setRows(m_table->rows(), *runs); });
}

}  // namespace wbui
