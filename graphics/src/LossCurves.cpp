// Runs' metric curves on one plot.
#include "workbench/graphics/LossCurves.h"

#include <QSysInfo>

#include "workbench/graphics/QCustomPlot.h"

#include <cmath>

#include "workbench/graphics/CurvePen.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

QString runLegendLabel(const wb::RunRecord& record) { return toQt(record.name()) + runHostSuffix(record); }

QString runHostSuffix(const wb::RunRecord& record) {
    QStringList hosts;
    for (const auto& host : record.info.hosts)
        if (!hosts.contains(toQt(host))) hosts << toQt(host);
    if (hosts.size() > 1) return QStringLiteral(" · ") + hosts.join(QStringLiteral(" + "));
    if (!record.info.host.empty() && toQt(record.info.host) != QSysInfo::machineHostName())
        return QStringLiteral(" · ") + toQt(record.info.host);
    return {};
}

QStringList runLegendLabels(const std::vector<wb::RunRecord>& records) {
    QStringList plain, labels;
    for (const auto& r : records) plain << runLegendLabel(r);
    for (qsizetype i = 0; i < plain.size(); ++i)
        labels << (plain.count(plain[i]) > 1
                       ? plain[i] + QStringLiteral(" · ") + toQt(records[std::size_t(i)].info.id)
                       : plain[i]);
    return labels;
}

void appendCurvePoints(const std::vector<wb::MetricRecord>& records, const std::string& split,
                       const std::string& metric, XAxisMode mode, double smoothing, CurveCursor* cursor,
                       QVector<double>* xs, QVector<double>* ys,
                       const std::function<void(const std::string&, const std::string&)>& other) {
    xs->reserve(xs->size() + qsizetype(records.size() - cursor->consumed));
    ys->reserve(ys->size() + qsizetype(records.size() - cursor->consumed));
    for (std::size_t i = cursor->consumed; i < records.size(); ++i) {
        const auto& r = records[i];
        if (r.metric != metric || r.split != split) {
            if (other) other(r.split, r.metric);
            continue;
        }
        if (!std::isfinite(r.value)) continue;
        cursor->ema = cursor->started ? smoothing * cursor->ema + (1.0 - smoothing) * r.value : r.value;
        cursor->started = true;
        *xs << xValue(r, mode);
        *ys << cursor->ema;
    }
    cursor->consumed = records.size();
}

void styleLossPlot(QCustomPlot* plot) {
    plot->legend->setVisible(true);
    plot->legend->setBrush(QColor(255, 255, 255, 210));
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
}

void fitLossAxes(QCustomPlot* plot, bool logScale) {
    bool any = false;
    for (int i = 0; i < plot->graphCount(); ++i) {
        if (plot->graph(i)->dataCount() == 0) continue;
        plot->graph(i)->rescaleAxes(any);
        any = true;
    }
    if (!any) return;
    // A little head-room so the curves do not touch the frame.
    const QCPRange y = plot->yAxis->range();
    if (logScale) {
        plot->yAxis->setRange(y.lower / 1.1, y.upper * 1.1);
    } else {
        const double pad = (y.upper - y.lower) * 0.05 + 1e-12;
        plot->yAxis->setRange(y.lower - pad, y.upper + pad);
    }
}

void drawLossCurves(QCustomPlot* plot, const std::vector<wb::RunRecord>& records, const MetricChoice& metric,
                    XAxisMode mode) {
    styleLossPlot(plot);
    const QStringList labels = runLegendLabels(records);
    for (std::size_t i = 0; i < records.size(); ++i) {
        auto* graph = plot->addGraph();
        graph->setName(labels[qsizetype(i)]);
        CurveCursor cursor;
        QVector<double> xs, ys;
        appendCurvePoints(records[i].metrics, metric.split, metric.metric, mode, 0.0, &cursor, &xs, &ys);
        graph->setData(xs, ys, mode != XAxisMode::WallSeconds);
        graph->setPen(curvePen(runColor(int(i)), 1.8, graph->dataCount()));
        graph->setScatterStyle(curveMarkers(graph->dataCount()));
    }
    plot->xAxis->setLabel(xAxisTitle(mode));
    plot->yAxis->setLabel(QString::fromLatin1(metric.title));
    fitLossAxes(plot, false);
    plot->replot();
}

}  // namespace wbui
