// Documents per class as bars.
#include "corpus/ClassBalanceChart.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QValueAxis>

#include "workbench/graphics/QtConversions.h"

namespace wbui {

ClassBalanceChart::ClassBalanceChart(QWidget* parent) : QChartView(parent) {
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(150);
    chart()->legend()->hide();
    chart()->setMargins(QMargins(2, 2, 2, 2));
    chart()->setBackgroundRoundness(0);
}

void ClassBalanceChart::setCounts(const std::map<std::string, std::int64_t>& counts) {
    QChart* c = chart();
    c->removeAllSeries();
    for (QAbstractAxis* axis : c->axes()) {
        c->removeAxis(axis);
        delete axis;
    }
    m_bars = int(counts.size());
    if (counts.empty()) return;
    auto* set = new QBarSet(tr("documents"));
    set->setColor(runColor(0));
    QStringList names;
    std::int64_t maxCount = 0;
    // Many classes: keep the chart legible by showing the 30 first (sorted by name as the core gives them).
    int shown = 0;
    for (const auto& [label, n] : counts) {
        if (++shown > 30) break;
        *set << double(n);
        names << toQt(label);
        maxCount = std::max(maxCount, n);
    }
    auto* series = new QBarSeries();
    series->append(set);
    series->setLabelsVisible(counts.size() <= 8);
    c->addSeries(series);
    auto* x = new QBarCategoryAxis();
    x->append(names);
    auto* y = new QValueAxis();
    y->setRange(0, double(maxCount) * 1.15);
    y->setLabelFormat(QStringLiteral("%d"));
    y->setTickCount(3);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
}

}  // namespace wbui
