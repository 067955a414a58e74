// Drawing a sweep's plot.
#include "workbench/graphics/SweepPlotDrawing.h"

#include "workbench/graphics/QCustomPlot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "workbench/graphics/QtConversions.h"

namespace wbui {

namespace {

// Axis range with a margin: multiplicative on a log axis, additive on a linear one.
void fitAxis(QCPAxis* axis, double lo, double hi, bool log, bool fromZero) {
    if (!(lo <= hi)) return;
    if (log) {
        lo = std::max(lo, 1e-12);
        hi = std::max(hi, lo);
        axis->setRange(lo / 1.35, hi * 1.35);
        return;
    }
    const double pad = hi > lo ? (hi - lo) * 0.08 : std::max(std::abs(hi) * 0.1, 1.0);
    axis->setRange(fromZero ? std::min(0.0, lo) : lo - pad, hi + pad);
}

void useLogScale(QCPAxis* axis) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
    ticker->setLogBase(10);
    ticker->setSubTickCount(8);
    axis->setTicker(ticker);
    axis->setNumberFormat(QStringLiteral("gb"));
    axis->setNumberPrecision(6);
}

}  // namespace

namespace {

// The region the data covers (error bars included), for the axes' ranges.
struct Extent {
    double xLo = std::numeric_limits<double>::infinity(), xHi = -xLo, yLo = xLo, yHi = -xLo;
    void extend(double px, double py, double spread) {
        xLo = std::min(xLo, px);
        xHi = std::max(xHi, px);
        yLo = std::min(yLo, py - spread);
        yHi = std::max(yHi, py + spread);
    }
};

// Grouped bars, one group per setting, one bar per device, over the baseline's level (the speed-up plot).
void drawGroupedBars(QCustomPlot* plot, const wb::SweepPlot& data) {
    QCPAxis* x = plot->xAxis;
    QCPAxis* y = plot->yAxis;
    Extent e;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (std::size_t c = 0; c < data.categories.size(); ++c)
        ticker->addTick(static_cast<double>(c), toQt(data.categories[c]));
    x->setTicker(ticker);
    auto* group = new QCPBarsGroup(plot);
    const double width = 0.8 / static_cast<double>(std::max<std::size_t>(1, data.series.size()));
    for (std::size_t i = 0; i < data.series.size(); ++i) {
        const auto& s = data.series[i];
        auto* bars = new QCPBars(x, y);
        bars->setName(toQt(s.name));
        bars->setWidth(width);
        bars->setBarsGroup(group);
        const QColor color = runColor(static_cast<int>(i));
        bars->setPen(QPen(color.darker(130)));
        bars->setBrush(color);
        bars->setData(QVector<double>(s.x.begin(), s.x.end()), QVector<double>(s.y.begin(), s.y.end()), true);
        if (std::any_of(s.yStd.begin(), s.yStd.end(), [](double v) { return v > 0; })) {
            auto* err = new QCPErrorBars(x, y);
            err->removeFromLegend();
            err->setDataPlottable(bars);
            err->setData(QVector<double>(s.yStd.begin(), s.yStd.end()));
        }
        for (std::size_t k = 0; k < s.x.size(); ++k) e.extend(s.x[k], s.y[k], s.yStd[k]);
    }
    // The baseline's level.
    auto* one = new QCPItemStraightLine(plot);
    one->point1->setCoords(0, 1);
    one->point2->setCoords(1, 1);
    one->setPen(QPen(Qt::gray, 1, Qt::DashLine));
    x->setRange(-0.6, static_cast<double>(data.categories.size()) - 0.4);
    // Headroom for the legend above the tallest bar.
    fitAxis(y, std::min(0.0, e.yLo), std::max(1.0, e.yHi) * 1.25, false, true);
}

// One line (or, with a Pareto front, one set of points) per device.
void drawSeries(QCustomPlot* plot, const wb::SweepPlot& data, Extent& e) {
    QCPAxis* x = plot->xAxis;
    QCPAxis* y = plot->yAxis;
    for (std::size_t i = 0; i < data.series.size(); ++i) {
        const auto& s = data.series[i];
        auto* graph = plot->addGraph(x, y);
        graph->setName(toQt(s.name));
        const QColor color = runColor(static_cast<int>(i));
        graph->setPen(QPen(color, 1.8));
        // Markers: a series of one point is still seen.
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, 7));
        graph->setLineStyle(data.front.x.empty() ? QCPGraph::lsLine : QCPGraph::lsNone);
        graph->setData(QVector<double>(s.x.begin(), s.x.end()), QVector<double>(s.y.begin(), s.y.end()),
                       true);
        if (std::any_of(s.yStd.begin(), s.yStd.end(), [](double v) { return v > 0; })) {
            auto* err = new QCPErrorBars(x, y);
            err->removeFromLegend();
            err->setDataPlottable(graph);
            err->setData(QVector<double>(s.yStd.begin(), s.yStd.end()));
            err->setPen(QPen(color, 1));
        }
        for (std::size_t k = 0; k < s.x.size(); ++k) e.extend(s.x[k], s.y[k], s.yStd[k]);
    }
}

// The Pareto front as a dashed staircase, its points labelled where the labels do not overlap.
void drawFront(QCustomPlot* plot, const wb::PlotSeries& f, const Extent& e, const QString& family) {
    QCPAxis* x = plot->xAxis;
    QCPAxis* y = plot->yAxis;
    auto* graph = plot->addGraph(x, y);
    graph->setName(toQt(f.name));
    graph->setPen(QPen(QColor(40, 40, 40), 1.4, Qt::DashLine));
    graph->setLineStyle(QCPGraph::lsStepLeft);
    graph->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(40, 40, 40), 1.5), Qt::NoBrush, 12));
    graph->setData(QVector<double>(f.x.begin(), f.x.end()), QVector<double>(f.y.begin(), f.y.end()), true);
    // Labels of front points too close to the last labelled one would print over each other.
    double lastX = -std::numeric_limits<double>::infinity(), lastY = lastX;
    int labelled = 0;
    const double spanX = std::max(1e-12, e.xHi - e.xLo), spanY = std::max(1e-12, e.yHi - e.yLo);
    for (std::size_t k = 0; k < f.x.size(); ++k) {
        if (std::abs(f.x[k] - lastX) < 0.08 * spanX && std::abs(f.y[k] - lastY) < 0.06 * spanY) continue;
        lastX = f.x[k];
        lastY = f.y[k];
        auto* label = new QCPItemText(plot);
        label->position->setCoords(f.x[k], f.y[k]);
        // Above and below in turn: neighbouring labels on a flat stretch of the front do not collide.
        const bool below = (labelled++ % 2) == 1;
        label->setPositionAlignment(Qt::AlignLeft | (below ? Qt::AlignTop : Qt::AlignBottom));
        label->setPadding(below ? QMargins(6, 4, 0, 0) : QMargins(6, 0, 0, 4));
        label->setFont(QFont(family, 7));
        label->setText(toQt(f.pointLabels[k]));
    }
}

// Vertical marker lines with their text (the batch size a device saturates at, ...).
void drawMarkers(QCustomPlot* plot, const wb::SweepPlot& data, const QString& family) {
    QCPAxis* x = plot->xAxis;
    for (std::size_t i = 0; i < data.markers.size(); ++i) {
        const auto& m = data.markers[i];
        auto* line = new QCPItemStraightLine(plot);
        line->point1->setCoords(m.x, 0);
        line->point2->setCoords(m.x, 1);
        line->setPen(QPen(QColor(200, 60, 60), 1.2, Qt::DashLine));
        auto* text = new QCPItemText(plot);
        text->position->setTypeX(QCPItemPosition::ptPlotCoords);
        text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        // At the bottom, clear of the legend; to the left of lines in the right half of the chart.
        const QCPRange r = x->range();
        const double where = x->scaleType() == QCPAxis::stLogarithmic && r.lower > 0
                                 ? std::log(m.x / r.lower) / std::log(r.upper / r.lower)
                                 : (m.x - r.lower) / r.size();
        const bool rightHalf = where > 0.5;
        text->position->setCoords(m.x, 0.97 - 0.06 * static_cast<double>(i));
        text->setPositionAlignment((rightHalf ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignBottom);
        text->setPadding(rightHalf ? QMargins(0, 0, 4, 0) : QMargins(4, 0, 0, 0));
        text->setColor(QColor(170, 40, 40));
        text->setFont(QFont(family, 8));
        text->setText(toQt(m.text));
    }
}

// Notes in the top left corner (what the plot leaves out, and why).
void drawNotes(QCustomPlot* plot, const wb::SweepPlot& data, const QString& family) {
    for (std::size_t i = 0; i < data.notes.size(); ++i) {
        auto* text = new QCPItemText(plot);
        text->position->setType(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(0.02, 0.03 + 0.06 * static_cast<double>(i));
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        text->setFont(QFont(family, 9, QFont::Bold));
        text->setText(toQt(data.notes[i]));
    }
}

}  // namespace

void setUpSweepPlot(QCustomPlot* plot) {
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(
        0, 0, new QCPTextElement(plot, QString(), QFont(plot->font().family(), 10, QFont::Bold)));
    plot->legend->setVisible(true);
    plot->legend->setBrush(QColor(255, 255, 255, 210));
    plot->legend->setFont(QFont(plot->font().family(), 8));
    // Rows as tall as their text (the default swatch is 32×18): six devices fit above the bars of a small
    // chart.
    plot->legend->setIconSize(14, 9);
    plot->legend->setRowSpacing(0);
}

void keepSweepDataBelowLegend(QCustomPlot* plot, const wb::SweepPlot& data, double drawnTop) {
    if (!plot->legend->visible() || data.logY || plot->plottableCount() == 0) return;
    // The plot at its size, shown or not: a chart made for an export is never shown, so its resize event
    // (which sets its viewport) has not run.
    plot->setViewport(plot->rect());
    QCPAxis* y = plot->yAxis;
    y->setRangeUpper(drawnTop);
    plot->replot();  // lays the legend out at this size
    double top = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < plot->plottableCount(); ++i) {
        bool found = false;
        const QCPRange values = plot->plottable(i)->getValueRange(found);
        if (found) top = std::max(top, values.upper);
    }
    const QRect area = plot->axisRect()->rect();
    if (!std::isfinite(top) || area.height() <= 0) return;
    // The part of the axis rect the legend covers, from its top, and a little gap.
    const double covered =
        double(plot->legend->outerRect().bottom() - area.top()) / double(area.height()) + 0.04;
    // A legend over half the plot (six long device names on a small chart) leaves no room worth making.
    if (covered <= 0 || covered >= 0.5) return;
    const double lower = y->range().lower;
    const double needed = (top - covered * lower) / (1 - covered);  // top sits at `covered` below the top
    if (needed > drawnTop) {
        y->setRangeUpper(needed);
        plot->replot();
    }
}

double drawSweepPlot(QCustomPlot* plot, const wb::SweepPlot& data, const QString& subtitle) {
    plot->clearPlottables();
    plot->clearItems();
    auto* x = plot->xAxis;
    auto* y = plot->yAxis;
    for (auto* axis : {x, y}) {
        axis->setScaleType(QCPAxis::stLinear);
        axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        axis->setNumberFormat(QStringLiteral("gb"));
    }
    if (auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0)))
        title->setText(subtitle.isEmpty() ? toQt(data.title)
                                          : toQt(data.title) + QStringLiteral("\n") + subtitle);
    x->setLabel(toQt(data.xLabel));
    y->setLabel(toQt(data.yLabel));

    const bool drawn = data.unavailable.empty() && !data.series.empty();
    for (auto* axis : {x, y}) {
        axis->setVisible(drawn);
        axis->grid()->setVisible(drawn);
    }
    if (!drawn) {
        auto* text = new QCPItemText(plot);
        text->position->setType(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(0.5, 0.5);
        text->setText(data.unavailable.empty() ? QStringLiteral("No finished cell yet")
                                               : toQt(data.unavailable));
        text->setColor(Qt::darkGray);
        plot->legend->setVisible(false);
        plot->replot();
        return 0;
    }
    plot->legend->setVisible(true);
    if (data.logX) useLogScale(x);
    if (data.logY) useLogScale(y);
    // A log axis over a few measured values (batch sizes, dataset sizes) is labelled at those values.
    if (data.logX && data.categories.empty()) {
        std::vector<double> xs;
        for (const auto& s : data.series) xs.insert(xs.end(), s.x.begin(), s.x.end());
        std::sort(xs.begin(), xs.end());
        xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
        if (!xs.empty() && xs.size() <= 12) {
            QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
            for (double v : xs) ticker->addTick(v, QString::number(v, 'g', 6));
            x->setTicker(ticker);
        }
    }

    if (!data.categories.empty()) {
        drawGroupedBars(plot, data);
    } else {
        Extent e;
        drawSeries(plot, data, e);
        if (!data.front.x.empty()) drawFront(plot, data.front, e, plot->font().family());
        fitAxis(x, e.xLo, e.xHi, data.logX, false);
        // Linear throughput axes start at zero; the top leaves room for the legend.
        const bool fromZero = !data.logY && data.front.x.empty();
        fitAxis(y, e.yLo, fromZero ? e.yHi * 1.15 : e.yHi, data.logY, fromZero);
    }
    drawMarkers(plot, data, plot->font().family());
    drawNotes(plot, data, plot->font().family());
    const double drawnTop = y->range().upper;
    keepSweepDataBelowLegend(plot, data, drawnTop);
    plot->replot();
    return drawnTop;
}

}  // namespace wbui
