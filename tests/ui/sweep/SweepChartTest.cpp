// The sweep charts keep their data clear of the legend where there is room: six devices' speed-ups, bars of
// about the same height, were covered by a legend six rows tall in the top corner when the headroom was a
// fixed quarter of the axis, also in the exported pictures.
#include <gtest/gtest.h>

#include "workbench/graphics/QCustomPlot.h"

#include "UiTestSupport.h"
#include "export/ChartExporter.h"
#include "sweep/SweepChart.h"
#include "workbench/graphics/PlotFiles.h"

using namespace wbui;

namespace {

wb::SweepPlot sixDeviceSpeedups() {
    wb::SweepPlot plot;
    plot.id = "speedup";
    plot.title = "Speed-up against cpu:1";
    plot.yLabel = "samples/s ÷ the baseline's";
    plot.categories = {"unshaped", "1gbit", "100mbit"};
    for (int d = 0; d < 6; ++d) {
        wb::PlotSeries s;
        s.name = "cpu:2 · processes 2 · fp" + std::to_string(d % 2 ? 16 : 32) + " gradients · link " +
                 std::to_string(d);
        s.x = {0, 1, 2};
        s.y = {1.9, 1.8 + 0.01 * d, 1.7};
        s.yStd = {0.05, 0.05, 0.05};
        plot.series.push_back(s);
    }
    return plot;
}

// Pixels from the legend's bottom down to the highest point of the data (negative: the legend covers it).
double clearance(QCustomPlot* p) {
    double highestTop = 1e9;  // pixels grow downwards: the smallest is the highest
    for (int i = 0; i < p->plottableCount(); ++i) {
        bool found = false;
        const double value = p->plottable(i)->getValueRange(found).upper;
        if (found) highestTop = std::min(highestTop, p->yAxis->coordToPixel(value));
    }
    return highestTop - p->legend->outerRect().bottom();
}

}  // namespace

TEST(SweepChart, SixDevicesBarsStayBelowTheLegendOnALargeChartAndItsExport) {
    SweepChart chart;
    chart.setPlot(sixDeviceSpeedups(), QStringLiteral("poems · 2026-11-26"));
    chart.show();
    for (const QSize size : {QSize(900, 600), QSize(700, 520)}) {
        chart.resize(size);
        ASSERT_TRUE(wbuitest::waitFor([&] { return chart.plot()->size() == size; }, 5000));
        EXPECT_GT(clearance(chart.plot()), 0) << "at " << size.width() << "×" << size.height();
    }
    // An export: a chart never shown, sized to the exporter's picture before the plot is set.
    SweepChart exported;
    exported.resize(PlotFiles::kWidth, PlotFiles::kHeight);
    exported.setPlot(sixDeviceSpeedups(), QStringLiteral("poems · 2026-11-26"));
    exported.plot()->replot();
    EXPECT_EQ(exported.plot()->size(), QSize(PlotFiles::kWidth, PlotFiles::kHeight));
    EXPECT_GT(clearance(exported.plot()), 0);
}
