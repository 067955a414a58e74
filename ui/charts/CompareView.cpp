// The Compare tab's layout.
#include "charts/CompareView.h"

#include "charts/ComparisonTable.h"
#include "charts/OverlayChart.h"
#include "charts/ThroughputChart.h"
#include "runs/RunCollection.h"

namespace wbui {

CompareView::CompareView(RunCollection* runs, QWidget* parent) : QSplitter(Qt::Vertical, parent) {
    m_overlay = new OverlayChart(runs, this);
    auto* bottom = new QSplitter(Qt::Horizontal, this);
    m_table = new ComparisonTable(runs, bottom);
    m_throughput = new ThroughputChart(bottom);
    bottom->addWidget(m_table);
    bottom->addWidget(m_throughput);
    bottom->setSizes({600, 400});
    addWidget(m_overlay);
    addWidget(bottom);
    setSizes({520, 260});
    connect(m_table, &ComparisonTable::rowsChanged, this,
            [this, runs] { m_throughput->setRows(m_table->rows(), *runs); });
}

}  // namespace wbui
