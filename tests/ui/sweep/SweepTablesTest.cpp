// The Sweep tab follows the core's tables: a column added to wb::sweepColumns() is a column of the result
// table, and a plot kind added to wb::sweepPlotKinds() is a tab drawing that plot, with nothing in the ui
// told about either (issue #44). A committed sweep folder is opened, as File → Open Sweep Folder does.
#include <QTabWidget>
#include <QTableWidget>

#include <gtest/gtest.h>
#include "workbench/graphics/QCustomPlot.h"

#include "UiTestSupport.h"
#include "sweep/SweepChart.h"
#include "sweep/SweepPanel.h"
#include "workbench/domain/SweepPlots.h"

using namespace wbui;

namespace {

const QString kHosts =
    QString::fromStdString(wbtest::sourcePath("docs/benchmarks/network-scaling/poems/hosts"));

// Adds to a core table for one test and takes it back out on every exit path.
template <typename Table>
struct Added {
    explicit Added(Table& table, typename Table::value_type row) : table(table), size(table.size()) {
        table.push_back(std::move(row));
    }
    ~Added() { table.resize(size); }
    Table& table;
    std::size_t size;
};

int columnTitled(QTableWidget* table, const QString& title) {
    for (int c = 0; c < table->columnCount(); ++c)
        if (table->horizontalHeaderItem(c)->text() == title) return c;
    return -1;
}

}  // namespace

TEST(SweepTables, AColumnAndAPlotAddedInCoreAppearInTheTab) {
    Added column(wb::sweepColumns(), {"samples_per_process", "samples/s per process", 2, true, false, true,
                                      [](const wb::SweepRunView& r) -> std::optional<double> {
                                          return r.compared.samplesPerSecond / r.record.info.worldSize;
                                      }});
    Added plot(wb::sweepPlotKinds(),
               {"speed-per-process", "Per process", "Samples per second per process", false,
                [](const wb::Sweep&, const wb::SweepResults& results, const std::string&) {
                    wb::SweepPlot p;
                    p.xLabel = "cell";
                    p.yLabel = "samples/s per process";
                    wb::PlotSeries s{"all", {}, {}, {}, {}};
                    for (const auto& row : results.cells) {
                        s.x.push_back(row.cell);
                        s.y.push_back(row.measure("samples_per_process").mean);
                        s.yStd.push_back(0);
                    }
                    p.series.push_back(s);
                    return p;
                }});
    SweepPanel panel;
    panel.resize(1200, 900);
    QString error;
    ASSERT_TRUE(panel.openSweep(kHosts, &error)) << error.toStdString();

    auto* table = panel.resultTable();
    const int perProcess = columnTitled(table, QStringLiteral("samples/s per process"));
    const int speed = columnTitled(table, QStringLiteral("samples/s"));
    ASSERT_GE(perProcess, 0);
    ASSERT_GE(speed, 0);
    ASSERT_GT(table->rowCount(), 0);
    // Two processes in every cell of this sweep: half the cell's samples/s, with its spread over repeats.
    for (int r = 0; r < table->rowCount(); ++r)
        EXPECT_NEAR(table->item(r, perProcess)->data(Qt::UserRole).toDouble(),
                    table->item(r, speed)->data(Qt::UserRole).toDouble() / 2, 0.01);
    EXPECT_TRUE(table->item(0, perProcess)->text().contains(QStringLiteral("±")));

    auto* tabs = panel.plotTabs();
    ASSERT_EQ(tabs->count(), int(wb::sweepPlotKinds().size()));
    const int last = tabs->count() - 1;
    EXPECT_EQ(tabs->tabText(last), QStringLiteral("Per process"));
    EXPECT_TRUE(tabs->isTabEnabled(last));
    EXPECT_EQ(panel.chart(last)->plot()->graphCount(), 1);
    EXPECT_EQ(panel.chart(last)->plot()->graph(0)->dataCount(), table->rowCount());
}
