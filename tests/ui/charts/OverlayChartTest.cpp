// The Compare tab's overlay chart: its metrics come from the runs' records by name; empty, it says what
// fills it.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>

#include <gtest/gtest.h>

#include <cstdlib>

#include "charts/OverlayChart.h"
#include "runs/RunCollection.h"

using namespace wbui;

namespace {
wb::MetricRecord record(std::int64_t step, const char* split, const char* metric, double value) {
    wb::MetricRecord r;
    r.step = step;
    r.samples = step * 8;
    r.wallSeconds = double(step);
    r.split = split;
    r.metric = metric;
    r.value = value;
    return r;
}
}  // namespace

// Issue #31: a metric the trainer starts to emit reaches the chart by its name, with no edit of the chart.
TEST(OverlayChart, AMetricOfTheRecordsIsOfferedByItsName) {
    RunCollection runs;
    RunEntry e;
    e.key = QStringLiteral("/runs/a");
    for (std::int64_t step = 1; step <= 5; ++step) {
        e.record.metrics.push_back(record(step, "train", "loss", 2.0 / double(step)));
        e.record.metrics.push_back(record(step, "val", "made_up_score", 0.1 * double(step)));
    }
    runs.add(std::move(e));
    OverlayChart chart(&runs);
    chart.flush();
    int index = -1;
    for (int i = 0; i < chart.metricCount(); ++i)
        if (chart.metricTitle(i) == QStringLiteral("val made up score")) index = i;
    ASSERT_GE(index, 0);
    EXPECT_GE(index, 4);  // after the four named in kOverlayMetrics, whose places stay
    chart.setMetric(index);
    EXPECT_EQ(chart.pointCount(), 5);
    chart.setMetric(0);  // train loss
    EXPECT_EQ(chart.pointCount(), 5);
    // Records that arrive later with another new name join the list too.
    runs.appendMetrics(QStringLiteral("/runs/a"), {record(6, "val", "another_one", 1.0)});
    chart.flush();
    bool found = false;
    for (int i = 0; i < chart.metricCount(); ++i) found = found || chart.metricTitle(i) == "val another one";
    EXPECT_TRUE(found);
}

// Compare with no run ticked says how to fill the chart instead of showing bare 0-5 axes (issue #63).
TEST(OverlayChart, AnEmptyChartSaysWhatFillsIt) {
    RunCollection runs;
    OverlayChart chart(&runs);
    chart.flush();
    EXPECT_TRUE(chart.emptyHint().contains(QStringLiteral("Runs list"))) << chart.emptyHint().toStdString();
    RunEntry e;
    e.key = QStringLiteral("/runs/a");
    e.record.metrics.push_back(record(1, "train", "loss", 2.0));
    runs.add(std::move(e));
    chart.flush();
    EXPECT_TRUE(chart.emptyHint().isEmpty());
    runs.remove(QStringLiteral("/runs/a"));
    EXPECT_FALSE(chart.emptyHint().isEmpty());
}

// Issue #63: the Compare page scrolled sideways on a 1024-pixel screen and at 1920x1080 at scale 2, its
// chart's controls in one row setting its width. Narrow, they stack in two rows, and the chart's minimum
// width is the wider row's or the plot's.
TEST(OverlayChart, ItsControlsStackWhenTheChartIsNarrow) {
    RunCollection runs;
    OverlayChart chart(&runs);
    chart.resize(1000, 500);
    chart.show();
    QApplication::processEvents();
    const auto* log = chart.findChild<QCheckBox*>();
    const auto* metric = chart.findChild<QComboBox*>();
    ASSERT_NE(log, nullptr);
    ASSERT_NE(metric, nullptr);
    EXPECT_LT(std::abs(log->geometry().center().y() - metric->geometry().center().y()), metric->height())
        << "wide: one row";
    EXPECT_LE(chart.minimumWidth(), 360);
    chart.resize(chart.minimumWidth(), 500);
    QApplication::processEvents();
    EXPECT_GT(log->geometry().top(), metric->geometry().bottom()) << "narrow: two rows";
}
