// The pictures a sweep answers its question with (sweepPlotKinds(): four today), as plain data (what to draw,
// not how): the ui draws them with QCustomPlot, the CLI writes them beside results.csv through the same code.
//
//   throughput-vs-batch   samples/s against batch size, one line per device, where one device overtakes
//                         another marked (needs a batch_size axis)
//   time-vs-data          training time against dataset size, log-log, one line per device with its fitted
//                         slope: 1 is linear, below 1 a fixed cost dominates (needs a data_fraction axis)
//   speedup               each device's samples/s over a baseline device's at the same other settings (needs
//                         a device axis: device, threads, processes or precision)
//   pareto                best validation loss against training time for every cell, the cells no other
//                         cell beats on both marked as the front (a loss lower by under 0.01 % is a tie)
//
// A "device" here is what the device axes of a cell say together ("cpu:2 · processes 2"); every other axis
// but the plot's x axis splits the lines further.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "workbench/domain/Sweep.h"
#include "workbench/domain/SweepResults.h"

namespace wb {

struct PlotSeries {
    std::string name;
    std::vector<double> x, y, yStd;        // yStd: standard deviation over repeats (0 for one repeat)
    std::vector<std::string> pointLabels;  // one per point (the cell), may be empty
};

struct PlotMarker {
    double x = 0;
    std::string text;  // "cpu:2 overtakes cpu:1 at batch ≈ 45"
};

struct SweepPlot {
    std::string id;  // "throughput-vs-batch": the file name of its PNG and CSV
    std::string title, xLabel, yLabel;
    bool logX = false, logY = false;
    std::vector<std::string> categories;  // a category x axis: x is the category's index (speedup)
    std::vector<PlotSeries> series;
    std::vector<PlotMarker> markers;
    PlotSeries front;                // pareto: the non-dominated cells, by time
    std::string unavailable;         // why the sweep cannot draw it ("needs a batch_size axis"); "" = drawn
    std::vector<std::string> notes;  // lines written on the chart ("cpu:1: slope 0.88")

    // Long format, one line per point: series,x,category,y,y_std,point, plus on_front for pareto.
    std::string toCsv() const;
};

// Is the axis one of the device's (a config field in the "device" section)?
bool isDeviceAxis(const std::string& field);
// The device keys of the sweep's cells, in grid order ("cpu:1", "cpu:2 · processes 2").
std::vector<std::string> sweepDevices(const Sweep& sweep);

// Least-squares slope of log y against log x over the points with x, y > 0; NaN with fewer than two.
double logLogSlope(const std::vector<double>& x, const std::vector<double>& y);

// A picture a sweep can draw: its file name, its tab in the Sweep tab, and how it is made from the cell rows.
// The ui makes one tab per kind (with a baseline device to choose where the kind needs one) and the CLI one
// PNG and CSV per kind, so a new plot is one row of sweepPlotKinds() and nothing in the ui.
struct SweepPlotKind {
    std::string id;              // the file name of its PNG and CSV ("throughput-vs-batch")
    std::string tabName;         // "Throughput × batch"
    std::string title;           // the chart's title when the plot does not set its own
    bool needsBaseline = false;  // it divides by a baseline device the user picks
    std::function<SweepPlot(const Sweep&, const SweepResults&, const std::string& baselineDevice)> draw;
};
// The plots in the Sweep tab's order. A test may add one and must take it back out.
std::vector<SweepPlotKind>& sweepPlotKinds();

// Every kind's plot from the cell rows, in sweepPlotKinds()' order. baselineDevice: a key of sweepDevices
// (""= the first).
std::vector<SweepPlot> sweepPlots(const Sweep& sweep, const SweepResults& results,
                                  const std::string& baselineDevice = "");

}  // namespace wb
