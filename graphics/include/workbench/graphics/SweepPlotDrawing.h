// Draws one of a sweep's plots (workbench/domain/SweepPlots.h) into a QCustomPlot: lines with error bars for
// the standard deviation over repeats, log axes where the plot asks, crossovers as dashed verticals, the
// fitted slopes and the Pareto front. The Sweep tab's charts (ui/sweep/SweepChart.h) and the CLI's sweep PNGs
// are drawn by these same functions.
#pragma once

#include <QString>

#include "workbench/domain/SweepPlots.h"

class QCustomPlot;

namespace wbui {

// Once per plot: the title row and the legend's look.
void setUpSweepPlot(QCustomPlot* plot);
// Clears the plot and draws `data`, subtitle ("corpus · date") under the title. Returns the y axis's top as
// the data asked for it, which keepSweepDataBelowLegend raises for the legend at each size.
double drawSweepPlot(QCustomPlot* plot, const wb::SweepPlot& data, const QString& subtitle);
// Raises a linear y axis until the data (error bars included) stays below the legend in the top corner: a
// fixed headroom let six devices' legend cover the tallest bars. Not when the legend would cover half the
// plot (a small chart): no room is worth making there. Call again after each resize.
void keepSweepDataBelowLegend(QCustomPlot* plot, const wb::SweepPlot& data, double drawnTop);

}  // namespace wbui
