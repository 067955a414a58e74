// Throughput bars, one chart per kind of sample.
#include "charts/ThroughputChart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QCursor>
#include <QHorizontalStackedBarSeries>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <map>

#include "common/QtConversions.h"
#include "runs/RunCollection.h"

namespace wbui {

namespace {

// Long run names ("tang-quatrains-7 · CPU · 2 threads · 11-25 16:00") would take the chart's width from
// its bars: the axis shows the start and the end, the tooltip the whole.
QString shortened(const QString& name) {
    constexpr int kMax = 34;
    if (name.size() <= kMax) return name;
    return name.left(kMax / 2 - 1) + QStringLiteral("…") + name.right(kMax / 2 - 1);
}

}  // namespace

ThroughputChart::ThroughputChart(QWidget* parent) : QWidget(parent), m_layout(new QVBoxLayout(this)) {
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(2);
    chartAt(0)->chart()->setTitle(tr("Training throughput: bars appear as runs finish"));
}

QChartView* ThroughputChart::chartAt(int index) {
    while (int(m_views.size()) <= index) {
        auto* view = new QChartView(this);
        view->setRenderHint(QPainter::Antialiasing);
        view->setMinimumHeight(140);
        view->chart()->legend()->hide();
        view->chart()->setMargins(QMargins(4, 4, 4, 4));
        view->chart()->setBackgroundRoundness(0);
        m_layout->addWidget(view);
        m_views.push_back(view);
    }
    return m_views[std::size_t(index)];
}

QList<QChartView*> ThroughputChart::charts() const {
    QList<QChartView*> out;
    for (int i = 0; i < m_shown; ++i) out << m_views[std::size_t(i)];
    return out;
}

void ThroughputChart::setRows(const std::vector<wb::ComparisonRow>& rows, const RunCollection& runs) {
    // Bars only for runs that have a throughput yet (a run reports it when it ends): empty bars under a
    // 0…1 axis with repeated tick labels said nothing. Grouped by task and corpus, in order of appearance.
    std::map<std::string, int> kindIndex;
    std::vector<std::pair<QString, std::vector<Bar>>> kinds;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& r = rows[i];
        if (r.samplesPerSecond <= 0) continue;
        QString kind = tr("samples/s");
        std::string key;
        if (int(i) < runs.size()) {
            const wb::RunRecord& record = runs.at(int(i)).record;
            key = wb::toString(record.config.task) + '\n' + record.corpusName();
            kind = tr("%1 · %2").arg(toQt(record.corpusName()), record.config.task == wb::Task::Classifier
                                                                    ? tr("classifier")
                                                                    : tr("language model"));
        }
        const auto [it, added] = kindIndex.emplace(key, int(kinds.size()));
        if (added) kinds.push_back({kind, {}});
        kinds[std::size_t(it->second)].second.push_back(
            {int(i), toQt(r.label.empty() ? r.runId : r.label), r.samplesPerSecond,
             int(i) < runs.size() ? runs.at(int(i)).color : runColor(int(i))});
    }
    m_bars = 0;
    m_categories.clear();
    m_shown = std::max<int>(1, int(kinds.size()));
    for (int k = 0; k < int(m_views.size()); ++k) m_views[std::size_t(k)]->setVisible(k < m_shown);
    if (kinds.empty()) {
        fill(chartAt(0)->chart(), tr("Training throughput: bars appear as runs finish"), {});
        return;
    }
    for (int k = 0; k < int(kinds.size()); ++k) {
        const QString title = kinds.size() == 1
                                  ? tr("Training throughput (samples/s, warm-up excluded)")
                                  : tr("Throughput, %1 (samples/s, warm-up excluded)").arg(kinds[k].first);
        QChartView* view = chartAt(k);
        view->setVisible(true);
        fill(view->chart(), title, kinds[std::size_t(k)].second);
    }
}

void ThroughputChart::fill(QChart* chart, const QString& title, const std::vector<Bar>& bars) {
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
    chart->setTitle(title);
    if (bars.empty()) return;
    // A stacked series with one set per run, zero everywhere but its own category: one bar per run, each
    // in the run's colour.
    auto* series = new QHorizontalStackedBarSeries();
    QStringList categories;
    double maxValue = 0;
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const Bar& bar = bars[i];
        const QString full = QStringLiteral("%1. %2").arg(bar.row + 1).arg(bar.name);
        m_categories << full;
        categories << QStringLiteral("%1. %2").arg(bar.row + 1).arg(shortened(bar.name));
        auto* set = new QBarSet(full);
        for (std::size_t j = 0; j < bars.size(); ++j) *set << (i == j ? bar.samplesPerSecond : 0.0);
        set->setColor(bar.color);
        set->setLabelColor(Qt::black);
        const QString tip = tr("%1: %2 samples/s").arg(full).arg(bar.samplesPerSecond, 0, 'f', 1);
        connect(set, &QBarSet::hovered, this, [tip](bool inside, int) {
            if (inside)
                QToolTip::showText(QCursor::pos(), tip);
            else
                QToolTip::hideText();
        });
        series->append(set);
        maxValue = std::max(maxValue, bar.samplesPerSecond);
    }
    m_bars += int(bars.size());
    series->setLabelsVisible(true);
    series->setLabelsFormat(QStringLiteral("@value"));
    series->setLabelsPrecision(4);
    series->setLabelsPosition(QAbstractBarSeries::LabelsInsideBase);
    chart->addSeries(series);
    auto* y = new QBarCategoryAxis();
    y->append(categories);
    auto* x = new QValueAxis();
    x->setRange(0, maxValue > 0 ? maxValue * 1.1 : 1.0);
    x->applyNiceNumbers();  // ticks at round values (a bare %.0f axis repeated "1 1 1" below 5 samples/s)
    x->setLabelFormat(x->max() >= 10 ? QStringLiteral("%.0f") : QStringLiteral("%.1f"));
    x->setTitleText(tr("samples/s"));
    chart->addAxis(y, Qt::AlignLeft);
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(y);
    series->attachAxis(x);
}

}  // namespace wbui
