// A sweep's plot on screen.
#include "sweep/SweepChart.h"

#include <QVBoxLayout>

#include "workbench/graphics/QCustomPlot.h"

#include "workbench/graphics/SweepPlotDrawing.h"

namespace wbui {

SweepChart::SweepChart(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setUpSweepPlot(m_plot);
    m_plot->setMinimumSize(260, 200);
}

void SweepChart::setPlot(const wb::SweepPlot& data, const QString& subtitle) {
    m_data = data;
    // The plot at this widget's size, shown or not: a chart on a tab never shown has not been laid out.
    layout()->activate();
    m_drawnTop = drawSweepPlot(m_plot, data, subtitle);
}

void SweepChart::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    layout()->activate();
    keepSweepDataBelowLegend(m_plot, m_data, m_drawnTop);
}

}  // namespace wbui
