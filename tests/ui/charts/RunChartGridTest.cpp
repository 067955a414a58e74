// The per-run chart grid: panels share the whole area (two side by side, four in a 2x2 grid) instead of
// sitting at their minimum size in a corner, and the hint comes back when the last run leaves.
#include <QApplication>
#include <QTest>

#include <gtest/gtest.h>

#include "workbench/charts/QCustomPlot.h"

#include "charts/RunChartGrid.h"
#include "charts/RunChartPanel.h"
#include "runs/RunCollection.h"

using namespace wbui;

namespace {

RunEntry entry(const QString& key) {
    RunEntry e;
    e.key = key;
    e.label = key;
    e.live = true;
    e.record.dir = key.toStdString();
    e.record.info.id = key.toStdString();
    return e;
}

}  // namespace

TEST(RunChartGrid, PanelsShareTheWholeArea) {
    RunCollection runs;
    RunChartGrid grid(&runs);
    grid.resize(1000, 700);
    grid.show();
    runs.add(entry(QStringLiteral("/runs/a")));
    runs.add(entry(QStringLiteral("/runs/b")));
    QApplication::processEvents();
    grid.flush();
    QApplication::processEvents();
    ASSERT_EQ(grid.panelCount(), 2);
    const QWidget* viewport = grid.viewport();
    for (const QString& key : {QStringLiteral("/runs/a"), QStringLiteral("/runs/b")}) {
        const RunChartPanel* p = grid.panel(key);
        ASSERT_NE(p, nullptr);
        // Two columns, one row: each plot about half the width and the full height.
        EXPECT_GT(p->plot()->width(), viewport->width() * 4 / 10)
            << p->plot()->width() << " of " << viewport->width();
        EXPECT_GT(p->plot()->height(), viewport->height() * 8 / 10)
            << p->plot()->height() << " of " << viewport->height();
    }
    runs.add(entry(QStringLiteral("/runs/c")));
    QApplication::processEvents();
    for (const QString& key : {QStringLiteral("/runs/a"), QStringLiteral("/runs/c")})
        EXPECT_GT(grid.panel(key)->plot()->height(), viewport->height() * 4 / 10);
}
