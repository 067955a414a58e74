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

#include <algorithm>
#include <map>

#include "runs/RunCollection.h"
#include "workbench/graphics/QtConversions.h"
#include "workbench/graphics/RunNames.h"

namespace wbui {

ThroughputChart::ThroughputChart(QWidget* parent) : QWidget(parent), m_layout(new QVBoxLayout(this)) {
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(2);
    // Room for the axis's two short lines ("run 2", "2 threads") beside bars that can still be read: the
    // splitter squeezed it to "ru…" beside a narrow overlay.
    setMinimumWidth(160);
    chartAt(0)->chart()->setTitle(tr("Throughput: bars appear as runs finish"));
    setToolTip(tr("Training throughput in samples per second, warm-up, validation and checkpoints excluded"));
}

QChartView* ThroughputChart::newView(QWidget* parent) {
    auto* view = new QChartView(parent);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(140);
    view->chart()->legend()->hide();
    view->chart()->setMargins(QMargins(4, 4, 4, 4));
    view->chart()->setBackgroundRoundness(0);
    return view;
}

QChartView* ThroughputChart::chartAt(int index) {
    while (int(m_views.size()) <= index) {
        m_views.push_back(newView(this));
        m_layout->addWidget(m_views.back());
    }
    return m_views[std::size_t(index)];
}

std::unique_ptr<QChartView> ThroughputChart::exportView(int index) const {
    std::unique_ptr<QChartView> view(newView(nullptr));
    if (index < 0 || index >= int(m_kinds.size())) return view;
    const Kind& kind = m_kinds[std::size_t(index)];
    fill(view->chart(), kind, true);
    view->resize(1000, 90 + 46 * int(kind.bars.size()));
    return view;
}

QList<QChartView*> ThroughputChart::charts() const {
    QList<QChartView*> out;
    // The first chart always (its title says when no run has finished), then one per further kind.
    const std::size_t shown = std::max<std::size_t>(1, m_kinds.size());
    for (std::size_t i = 0; i < shown; ++i) out << m_views[i];
    return out;
}

void ThroughputChart::setRows(const std::vector<wb::ComparisonRow>& rows, const RunCollection& runs) {
    // Bars only for runs that have a throughput yet (a run reports it when it ends): empty bars under a
    // 0…1 axis with repeated tick labels said nothing. Grouped by task and corpus, in order of appearance.
    std::map<std::string, int> kindIndex;
    m_kinds.clear();
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
        const auto [it, added] = kindIndex.emplace(key, int(m_kinds.size()));
        if (added) m_kinds.push_back({kind, {}});
        m_kinds[std::size_t(it->second)].bars.push_back(
            {int(i), int(i) < runs.size() ? runs.comparisonTag(int(i)) : QStringLiteral("#%1").arg(i + 1),
             // The run's name as every chart and list shows it (its device among its parts).
             int(i) < runs.size() ? runs.at(int(i)).label : toQt(r.name.empty() ? r.runId : r.name),
             r.samplesPerSecond, int(i) < runs.size() ? runs.at(int(i)).color : runColor(int(i))});
    }
    for (Kind& kind : m_kinds) kind.title = m_kinds.size() == 1 ? QString() : kind.title;
    m_bars = 0;
    m_categories.clear();
    for (const Kind& kind : m_kinds)
        for (const Bar& bar : kind.bars) {
            m_categories << (bar.name.startsWith(QStringLiteral("run "))
                                 ? bar.name
                                 : bar.tag + QLatin1Char(' ') + bar.name);
            ++m_bars;
        }
    const std::size_t shown = std::max<std::size_t>(1, m_kinds.size());
    for (std::size_t k = 0; k < m_views.size(); ++k) m_views[k]->setVisible(k < shown);
    if (m_kinds.empty()) {
        fill(chartAt(0)->chart(), {tr("Throughput: bars appear as runs finish"), {}}, false);
        return;
    }
    for (int k = 0; k < int(m_kinds.size()); ++k) {
        QChartView* view = chartAt(k);
        view->setVisible(true);
        fill(view->chart(), m_kinds[std::size_t(k)], false);
    }
}

void ThroughputChart::fill(QChart* chart, const Kind& kind, bool wholeNames) const {
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
    const std::vector<Bar>& bars = kind.bars;
    if (bars.empty()) {
        chart->setTitle(kind.title);  // "bars appear as runs finish"
        return;
    }
    // Short on screen, where the chart is narrow (the tooltip says the rest); whole in a file.
    if (wholeNames)
        chart->setTitle(kind.title.isEmpty()
                            ? tr("Training throughput (samples/s, warm-up excluded)")
                            : tr("Throughput, %1 (samples/s, warm-up excluded)").arg(kind.title));
    else
        chart->setTitle(kind.title.isEmpty() ? tr("Throughput") : tr("Throughput, %1").arg(kind.title));
    // A stacked series with one set per run, zero everywhere but its own category: one bar per run, each
    // in the run's colour. On screen the axis gives a name two short lines (a whole name took the narrow
    // chart's width from its bars): the run's number, and under it what its name does not share with the
    // other bars' (the device words first), cut to a third of the chart's width ("#1 #2 #4" said neither
    // which run nor which device, issue #63).
    auto* series = new QHorizontalStackedBarSeries();
    auto* y = new QBarCategoryAxis();
    QStringList names;
    for (const Bar& bar : bars) names << bar.name;
    const QFontMetrics metrics(y->labelsFont());
    const int room = std::max(110, int(chart->size().width()) / 3);
    QStringList categories;
    double maxValue = 0;
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const Bar& bar = bars[i];
        const QString& number = bar.tag;
        // A numbered run's name starts with its number ("run 12 · …"); the tag leads the others.
        const bool numbered = bar.name.startsWith(QStringLiteral("run "));
        const QString whole = numbered ? bar.name : number + QLatin1Char(' ') + bar.name;
        const QString lead = whole.section(QStringLiteral(" · "), 0, 0);
        const QString differs = metrics.elidedText(
            differingRunParts(whole, names).join(QStringLiteral(" · ")), Qt::ElideRight, room);
        QString shown = differs.isEmpty() ? lead : lead + QStringLiteral("<br>") + differs.toHtmlEscaped();
        if (categories.contains(shown)) shown = number + QLatin1Char(' ') + shown;  // categories are unique
        categories << (wholeNames ? whole : shown);
        auto* set = new QBarSet(bar.name);
        for (std::size_t j = 0; j < bars.size(); ++j) *set << (i == j ? bar.samplesPerSecond : 0.0);
        set->setColor(bar.color);
        set->setLabelColor(Qt::black);
        const QString tip =
            tr("%1 %2: %3 samples/s").arg(number, bar.name).arg(bar.samplesPerSecond, 0, 'f', 1);
        connect(set, &QBarSet::hovered, set, [tip](bool inside, int) {
            if (inside)
                QToolTip::showText(QCursor::pos(), tip);
            else
                QToolTip::hideText();
        });
        series->append(set);
        maxValue = std::max(maxValue, bar.samplesPerSecond);
    }
    series->setLabelsVisible(true);
    series->setLabelsFormat(QStringLiteral("@value"));
    series->setLabelsPrecision(4);
    series->setLabelsPosition(QAbstractBarSeries::LabelsInsideBase);
    chart->addSeries(series);
    y->append(categories);
    auto* x = new QValueAxis();
    x->setRange(0, maxValue > 0 ? maxValue * 1.1 : 1.0);
    if (!wholeNames)
        x->setTickCount(3);  // four-digit labels overlapped at the default five in a narrow chart
    x->applyNiceNumbers();   // ticks at round values (a bare %.0f axis repeated "1 1 1" below 5 samples/s)
    x->setLabelFormat(x->max() >= 10 ? QStringLiteral("%.0f") : QStringLiteral("%.1f"));
    x->setTitleText(tr("samples/s"));
    chart->addAxis(y, Qt::AlignLeft);
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(y);
    series->attachAxis(x);
}

}  // namespace wbui
