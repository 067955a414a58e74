// The per-run chart grid: panels share the whole area (two side by side, four in a 2x2 grid) instead of
// sitting at their minimum size in a corner, and the hint comes back when the last run leaves.
#include <QApplication>
#include <QTest>

#include <gtest/gtest.h>

#include "workbench/graphics/QCustomPlot.h"

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
    e.trainedHere = true;
    e.record.dir = key.toStdString();
    e.record.info.id = key.toStdString();
    return e;
}

// Shows the grid with these runs added and its panels synced, as the throttle would a moment later.
void showWithRuns(RunChartGrid& grid, RunCollection& runs, const QStringList& keys) {
    grid.show();
    for (const QString& key : keys) runs.add(entry(key));
    QApplication::processEvents();
    grid.flush();
    QApplication::processEvents();
}

}  // namespace

TEST(RunChartGrid, PanelsShareTheWholeArea) {
    RunCollection runs;
    RunChartGrid grid(&runs);
    grid.resize(1000, 700);
    showWithRuns(grid, runs, {QStringLiteral("/runs/a"), QStringLiteral("/runs/b")});
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

// Issue #63: two panels side by side were wider than a narrow page (1920x1080 at scale 2), which scrolled
// sideways and cut the second chart's title. A page too narrow for two columns stacks them.
TEST(RunChartGrid, ANarrowPageStacksThePanelsInsteadOfScrollingSideways) {
    RunCollection runs;
    RunChartGrid grid(&runs);
    grid.resize(520, 700);
    showWithRuns(grid, runs, {QStringLiteral("/runs/a"), QStringLiteral("/runs/b")});
    ASSERT_EQ(grid.panelCount(), 2);
    EXPECT_EQ(grid.panel(QStringLiteral("/runs/a"))->x(), grid.panel(QStringLiteral("/runs/b"))->x());
    EXPECT_LE(grid.widget()->width(), grid.viewport()->width());
    grid.resize(1000, 700);
    QApplication::processEvents();
    EXPECT_NE(grid.panel(QStringLiteral("/runs/a"))->x(), grid.panel(QStringLiteral("/runs/b"))->x());
}

// Issue #45: a run's name in a narrow chart lost both its ends ("ng-quatrains-7 LM · … · 11-27 00:1"). It
// is elided in the middle, keeping the start and the time that tell runs apart, and whole in the tooltip.
TEST(RunChartPanelHeading, ALongNameElidesInTheMiddleWithTheWholeInTheTooltip) {
    RunChartPanel panel;
    panel.resize(320, 240);
    panel.show();
    RunEntry entry;
    entry.key = QStringLiteral("/runs/r");
    entry.label =
        QStringLiteral("tang-quatrains-7 LM · cpu · 2 threads · bf16 · a name that goes on · 11-27 00:13");
    entry.color = Qt::blue;
    panel.sync(entry, true);
    QApplication::processEvents();
    auto* title = qobject_cast<QCPTextElement*>(panel.plot()->plotLayout()->element(0, 0));
    ASSERT_NE(title, nullptr);
    EXPECT_TRUE(title->text().startsWith(QStringLiteral("tang-"))) << title->text().toStdString();
    EXPECT_TRUE(title->text().endsWith(QStringLiteral("00:13"))) << title->text().toStdString();
    EXPECT_TRUE(title->text().contains(QChar(0x2026))) << title->text().toStdString();
    EXPECT_EQ(panel.toolTip(), entry.label);
    EXPECT_EQ(panel.title(), entry.label);
}

// Issue #63: two runs that differ only by device, in narrow charts: the title keeps each run's number and its
// device, and drops the corpus they share ("run 1 · tang-quatrains-7 …read · fp32" had lost the thread
// count).
TEST(RunChartPanelHeading, TheDeviceThatTellsRunsApartStaysInANarrowChart) {
    const QString one = QStringLiteral("run 1 · tang-quatrains-7 LM · cpu · 1 thread · fp32 · 12-02 11:05");
    const QString two = QStringLiteral("run 2 · tang-quatrains-7 LM · cpu · 2 threads · fp32 · 12-02 11:19");
    RunChartPanel panel;
    panel.resize(360, 240);
    panel.show();
    panel.setShownNames({one, two});
    RunEntry entry;
    entry.key = QStringLiteral("/runs/2");
    entry.label = two;
    entry.color = Qt::blue;
    panel.sync(entry, true);
    QApplication::processEvents();
    auto* title = qobject_cast<QCPTextElement*>(panel.plot()->plotLayout()->element(0, 0));
    ASSERT_NE(title, nullptr);
    EXPECT_TRUE(title->text().startsWith(QStringLiteral("run 2 · … ·"))) << title->text().toStdString();
    EXPECT_TRUE(title->text().contains(QStringLiteral("2 threads"))) << title->text().toStdString();
    EXPECT_TRUE(title->text().endsWith(QStringLiteral("11:19"))) << title->text().toStdString();
    EXPECT_EQ(panel.toolTip(), two);
}

// The 5-gram line is labelled in the units of the axis it is drawn on (the loss, nats a character) as well
// as in bits per character: "7.36 bits/char" drawn at 5.1 read as a mistake (issue #63).
TEST(RunChartPanel, TheBaselineLineSaysItsHeightInTheAxissUnits) {
    RunChartPanel panel;
    auto e = entry(QStringLiteral("/runs/lm"));
    wb::NgramBaseline baseline;
    baseline.bitsPerToken = 7.36;
    e.record.baseline = baseline;
    panel.sync(e, true);
    EXPECT_NEAR(panel.baselineLoss(), 5.10, 0.01);
    EXPECT_TRUE(panel.baselineLabel().contains(QStringLiteral("loss 5.10")))
        << panel.baselineLabel().toStdString();
    EXPECT_TRUE(panel.baselineLabel().contains(QStringLiteral("7.36 bits/char")))
        << panel.baselineLabel().toStdString();
}
