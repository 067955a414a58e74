// Throughput bars.
#include "charts/ThroughputChart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHorizontalStackedBarSeries>
#include <QValueAxis>

#include "common/QtConversions.h"
#include "runs/RunCollection.h"

namespace wbui {

ThroughputChart::ThroughputChart(QWidget* parent) : QChartView(parent) {
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(140);
    chart()->setTitle(tr("Training throughput (samples/s, warm-up excluded)"));
    chart()->legend()->hide();
    chart()->setMargins(QMargins(4, 4, 4, 4));
    chart()->setBackgroundRoundness(0);
}

void ThroughputChart::setRows(const std::vector<wb::ComparisonRow>& rows, const RunCollection& runs) {
    QChart* c = chart();
    c->removeAllSeries();
    for (QAbstractAxis* axis : c->axes()) {
        c->removeAxis(axis);
        delete axis;
    }
    m_bars = int(rows.size());
    if (rows.empty()) return;
    // A stacked series with one set per run, zero everywhere but its own category: one bar per run, each
    // in the run's colour.
    auto* series = new QHorizontalStackedBarSeries();
    QStringList categories;
    double maxValue = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& r = rows[i];
        categories << QStringLiteral("%1. %2").arg(i + 1).arg(toQt(r.label.empty() ? r.runId : r.label));
        auto* set = new QBarSet(categories.back());
        for (std::size_t j = 0; j < rows.size(); ++j) *set << (i == j ? r.samplesPerSecond : 0.0);
        set->setColor(int(i) < runs.size() ? runs.at(int(i)).color : runColor(int(i)));
        set->setLabelColor(Qt::black);
        series->append(set);
        maxValue = std::max(maxValue, r.samplesPerSecond);
    }
    series->setLabelsVisible(true);
    series->setLabelsFormat(QStringLiteral("@value"));
    series->setLabelsPosition(QAbstractBarSeries::LabelsInsideBase);
    c->addSeries(series);
    auto* y = new QBarCategoryAxis();
    y->append(categories);
    auto* x = new QValueAxis();
    x->setRange(0, maxValue > 0 ? maxValue * 1.1 : 1.0);
    x->setLabelFormat(QStringLiteral("%.0f"));
    x->setTitleText(tr("samples/s"));
    c->addAxis(y, Qt::AlignLeft);
    c->addAxis(x, Qt::AlignBottom);
    series->attachAxis(y);
    series->attachAxis(x);
}

}  // namespace wbui
