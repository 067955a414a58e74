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

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    // Raises a linear y axis until the data (error bars included) stays below the legend in the top corner:
    // a fixed headroom let six devices' legend cover the tallest bars. Not when the legend would cover half
    // the plot (a small chart): no room is worth making there. Done again at each size.
    void keepDataBelowLegend();

    QCustomPlot* m_plot;
    wb::SweepPlot m_data;
    double m_drawnTop = 0;  // the y axis's top as the data asked for it; the legend's room is added to it
};

}  // namespace wbui
