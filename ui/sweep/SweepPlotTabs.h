// A sweep's plots, one tab each, made from the core's plot kinds (workbench/domain/SweepPlots.h): a kind that
// divides by a baseline device gets the device box on its tab; a plot this grid cannot draw greys its tab
// and says why in the tooltip.
#pragma once

#include <QTabWidget>

#include <vector>

#include "workbench/domain/SweepPlots.h"

class QComboBox;

namespace wbui {

class SweepChart;

class SweepPlotTabs : public QTabWidget {
    Q_OBJECT
public:
    explicit SweepPlotTabs(QWidget* parent = nullptr);

    // Draws the sweep's plots against the chosen baseline; the baseline box offers the sweep's devices.
    void showSweep(const wb::Sweep& sweep, const wb::SweepResults& results);
    std::string baselineDevice() const;

    SweepChart* chart(int i) const { return m_charts.at(static_cast<std::size_t>(i)); }
    QComboBox* baselineBox() const { return m_baseline; }

Q_SIGNALS:
    void baselineChanged();

private:
    QWidget* baselinePage(SweepChart* chart);
    void draw(const std::vector<wb::SweepPlot>& plots, const QString& subtitle);

    std::vector<SweepChart*> m_charts;
    QComboBox* m_baseline = nullptr;
};

}  // namespace wbui
