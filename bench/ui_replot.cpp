// How the live charts cope with long runs: four runs of N train-loss points each in the overlay chart
// (the GUI's own widget, offscreen), timing a replot (what the ≤ 30 Hz throttle triggers once new points
// are appended) and a full rebuild (what a change of metric, x axis or smoothing costs). Prints medians.
#include <QApplication>
#include <QElapsedTimer>

#include "workbench/graphics/QCustomPlot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "charts/OverlayChart.h"
#include "runs/RunCollection.h"

namespace {
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    std::printf("%10s %6s %16s %18s %14s\n", "points/run", "runs", "replot ms (med)", "rebuild ms (med)",
                "render ms (med)");
    for (const int points : {100, 10000, 100000, 300000}) {
        wbui::RunCollection runs;
        wbui::OverlayChart overlay(&runs);
        overlay.resize(1200, 700);
        overlay.show();
        for (int r = 0; r < 4; ++r) {
            wbui::RunEntry entry;
            entry.key = QStringLiteral("/runs/%1").arg(r);
            entry.label = QStringLiteral("run %1").arg(r);
            runs.add(entry);
            std::vector<wb::MetricRecord> records;
            records.reserve(static_cast<std::size_t>(points));
            for (int i = 1; i <= points; ++i)
                records.push_back({i, i / 1000.0, i * 32LL, i * 0.01 * (r + 1), "train", "loss",
                                   2.0 + 6.0 / std::sqrt(i) + 0.05 * std::sin(i * 0.37 + r)});
            runs.appendMetrics(entry.key, records);
        }
        std::vector<double> replot, rebuild, pixmap;
        for (int k = 0; k < 9; ++k) {
            QElapsedTimer t;
            t.start();
            overlay.flush();  // rebuilds every series from the records, then replots
            rebuild.push_back(t.nsecsElapsed() / 1e6);
            t.restart();
            overlay.plot()->replot(QCustomPlot::rpImmediateRefresh);
            replot.push_back(t.nsecsElapsed() / 1e6);
            t.restart();
            overlay.plot()->toPixmap(1200, 700);
            pixmap.push_back(t.nsecsElapsed() / 1e6);
        }
        std::printf("%10d %6d %16.1f %18.1f %14.1f   (%d points drawn from)\n", points, 4, median(replot),
                    median(rebuild), median(pixmap), overlay.pointCount());
    }
    return 0;
}
