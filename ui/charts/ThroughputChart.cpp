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
    // Bars only for runs that have a throughput yet (a run reports it when it ends): empty bars under a
    // 0…1 axis with repeated tick labels said nothing.
    std::vector<wb::ComparisonRow> measured;
    std::vector<QColor> colors;
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].samplesPerSecond > 0) {
            measured.push_back(rows[i]);
            colors.push_back(int(i) < runs.size() ? runs.at(int(i)).color : runColor(int(i)));
        }
    m_bars = int(measured.size());
    m_categories.clear();
    c->setTitle(measured.empty() ? tr("Training throughput: bars appear as runs finish")
                                 : tr("Training throughput (samples/s, warm-up excluded)"));
    if (measured.empty()) return;
    addBars(measured, colors);
}

void ThroughputChart::addBars(const std::vector<wb::ComparisonRow>& rows, const std::vector<QColor>& colors) {
    QChart* c = chart();
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
        set->setColor(colors[i]);
        set->setLabelColor(Qt::black);
        series->append(set);
        maxValue = std::max(maxValue, r.samplesPerSecond);
    }
    m_categories = categories;
    series->setLabelsVisible(true);
    series->setLabelsFormat(QStringLiteral("@value"));
    series->setLabelsPrecision(4);
    series->setLabelsPosition(QAbstractBarSeries::LabelsInsideBase);
    c->addSeries(series);
    auto* y = new QBarCategoryAxis();
    y->append(categories);
    auto* x = new QValueAxis();
    x->setRange(0, maxValue > 0 ? maxValue * 1.1 : 1.0);
    x->applyNiceNumbers();  // ticks at round values (a bare %.0f axis repeated "1 1 1" below 5 samples/s)
    x->setLabelFormat(x->max() >= 10 ? QStringLiteral("%.0f") : QStringLiteral("%.1f"));
    x->setTitleText(tr("samples/s"));
    c->addAxis(y, Qt::AlignLeft);
    c->addAxis(x, Qt::AlignBottom);
    series->attachAxis(y);
    series->attachAxis(x);
}

}  // namespace wbui
