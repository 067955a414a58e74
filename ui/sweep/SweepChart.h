// Draws one of a sweep's plots (workbench/SweepPlots.h) into a QCustomPlot: lines with error bars for the
// standard deviation over repeats, log axes where the plot asks, crossovers as dashed verticals, the fitted
// slopes and the Pareto front. The Sweep tab shows four of these; the CLI exports the same pictures.
#pragma once

#include <QString>
#include <QWidget>

#include "workbench/SweepPlots.h"

class QCustomPlot;

namespace wbui {

class SweepChart : public QWidget {
    Q_OBJECT
public:
    explicit SweepChart(QWidget* parent = nullptr);
    // subtitle: "corpus · date" under the title, as exported charts carry.
    void setPlot(const wb::SweepPlot& plot, const QString& subtitle);
    const wb::SweepPlot& sweepPlot() const { return m_data; }
    QCustomPlot* plot() const { return m_plot; }

private:
    QCustomPlot* m_plot;
    wb::SweepPlot m_data;
};

}  // namespace wbui
