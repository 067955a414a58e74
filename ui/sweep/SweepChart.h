// One of a sweep's plots on screen (workbench/graphics/SweepPlotDrawing.h draws it): the Sweep tab shows one
// per plot kind, and keeps the data clear of the legend as the chart is resized.
#pragma once

#include <QString>
#include <QWidget>

#include "workbench/domain/SweepPlots.h"

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
    QCustomPlot* m_plot;
    wb::SweepPlot m_data;
    double m_drawnTop = 0;  // the y axis's top as the data asked for it; the legend's room is added to it
};

}  // namespace wbui
