// A sweep's plots as data: each plot's series from the cell rows, the crossover where the fastest device
// changes (interpolated on the log-batch axis), the fitted log-log slope of time against data, speed-ups
// against a chosen baseline with their spread, the Pareto front, and why a grid cannot draw a plot.
#include <cmath>

#include <gtest/gtest.h>

#include "workbench/domain/SweepPlots.h"

namespace {

// A planned sweep and hand-made results, one cell row per grid point in grid order.
struct Fixture {
    wb::Sweep sweep;
    wb::SweepResults results;
};

wb::SweepMeasure m(double mean, double std = 0) { return {mean, std, true}; }

Fixture grid(const std::vector<wb::SweepAxis>& axes) {
    Fixture f;
    wb::ExperimentConfig base;
    base.data.corpus = "corpus.txt";
    base.train.epochs = 1;
    base.train.maxSteps = 0;
    f.sweep = wb::Sweep::plan(base, axes, 1, 0);
    for (const auto& a : axes) f.results.axes.push_back(a.field);
    for (const auto& c : f.sweep.cells) {
        wb::SweepResultRow row;
        row.aggregate = true;
        row.cell = c.index;
        for (const auto& kv : c.setting) row.values.push_back(kv.second);
        row.runs = 1;
        row.status = "done";
        f.results.cells.push_back(row);
    }
    return f;
}

wb::SweepPlot plot(const std::vector<wb::SweepPlot>& plots, const std::string& id) {
    for (const auto& p : plots)
        if (p.id == id) return p;
    throw std::runtime_error("no plot " + id);
}

}  // namespace

TEST(SweepPlots, ThroughputAgainstBatchMarksWhereTheFastestDeviceChanges) {
    auto f = grid({{"device", {"cpu:1", "cpu:2"}}, {"batch_size", {"16", "64", "256"}}});
    // cpu:1 is faster at 16 and 64; cpu:2 overtakes between 64 and 256.
    const double one[] = {1000, 1200, 1300}, two[] = {500, 1000, 2100};
    for (int i = 0; i < 3; ++i) {
        f.results.cells[i].measures["samples_per_s"] = m(one[i], 10);
        f.results.cells[3 + i].measures["samples_per_s"] = m(two[i]);
    }
    const auto p = plot(wb::sweepPlots(f.sweep, f.results), "throughput-vs-batch");
    ASSERT_TRUE(p.unavailable.empty());
    EXPECT_TRUE(p.logX);
    ASSERT_EQ(p.series.size(), 2u);
    EXPECT_EQ(p.series[0].name, "cpu:1");
    EXPECT_EQ(p.series[0].x, (std::vector<double>{16, 64, 256}));
    EXPECT_EQ(p.series[0].y, (std::vector<double>{1000, 1200, 1300}));
    EXPECT_EQ(p.series[0].yStd, (std::vector<double>{10, 10, 10}));
    ASSERT_EQ(p.markers.size(), 1u);
    // Differences -200 at 64 and +800 at 256: a fifth of the way on the log axis, 64 * 4^0.2 = 84.
    EXPECT_NEAR(p.markers[0].x, 64 * std::pow(4.0, 0.2), 1e-6);
    EXPECT_NE(p.markers[0].text.find("cpu:2 overtakes cpu:1 at batch"), std::string::npos)
        << p.markers[0].text;
    const auto csv = p.toCsv();
    EXPECT_EQ(csv.substr(0, csv.find('\n')), "series,x,category,y,y_std,point");
    EXPECT_NE(csv.find("cpu:2,256,,2100,0,device=cpu:2 batch_size=256"), std::string::npos) << csv;
}

TEST(SweepPlots, SeriesWithOtherSettingsDoNotCrossEachOther) {
    auto f = grid({{"hidden", {"16", "32"}}, {"batch_size", {"8", "16"}}});
    const double sps[] = {100, 300, 200, 150};  // hidden 16 rises past hidden 32's level
    for (int i = 0; i < 4; ++i) f.results.cells[i].measures["samples_per_s"] = m(sps[i]);
    const auto p = plot(wb::sweepPlots(f.sweep, f.results), "throughput-vs-batch");
    ASSERT_EQ(p.series.size(), 2u);
    EXPECT_EQ(p.series[0].name, "cpu · hidden 16");
    // Only devices overtake each other; two model sizes on one device are not a crossover.
    EXPECT_TRUE(p.markers.empty());
}

TEST(SweepPlots, TimeAgainstDataIsLogLogWithTheFittedSlope) {
    auto f = grid({{"data_fraction", {"0.25", "0.5", "1"}}, {"device", {"cpu:1", "cpu:2"}}});
    // cpu:1's time grows as data^1, cpu:2's as data^0.5; samples per epoch are the dataset sizes.
    for (std::size_t i = 0; i < f.results.cells.size(); ++i) {
        auto& row = f.results.cells[i];
        const double share = std::stod(row.values[0]);
        row.measures["samples"] = m(4000 * share);
        row.measures["train_seconds"] = m(row.values[1] == "cpu:1" ? 40 * share : 10 * std::sqrt(share));
    }
    const auto p = plot(wb::sweepPlots(f.sweep, f.results), "time-vs-data");
    ASSERT_TRUE(p.unavailable.empty());
    EXPECT_TRUE(p.logX && p.logY);
    EXPECT_EQ(p.xLabel, "training samples per epoch");
    ASSERT_EQ(p.series.size(), 2u);
    EXPECT_EQ(p.series[0].x, (std::vector<double>{1000, 2000, 4000}));
    ASSERT_EQ(p.notes.size(), 2u);
    EXPECT_EQ(p.notes[0], "cpu:1: slope 1.00");
    EXPECT_EQ(p.notes[1], "cpu:2: slope 0.50");
}

TEST(SweepPlots, LogLogSlopeNeedsTwoPositivePoints) {
    EXPECT_NEAR(wb::logLogSlope({1, 10, 100}, {3, 30, 300}), 1.0, 1e-12);
    EXPECT_NEAR(wb::logLogSlope({2, 8}, {5, 10}), 0.5, 1e-12);
    EXPECT_TRUE(std::isnan(wb::logLogSlope({1}, {1})));
    EXPECT_TRUE(std::isnan(wb::logLogSlope({0, -1, 4}, {1, 2, 3})));  // one point left
    EXPECT_TRUE(std::isnan(wb::logLogSlope({5, 5}, {1, 2})));         // no spread in x
}

TEST(SweepPlots, SpeedupIsAgainstTheChosenBaselineAtEachSetting) {
    auto f = grid({{"batch_size", {"32", "64"}},
                   {
                       "device",
                       {"cpu:1", "cpu:2"},
                   }});
    const double sps[] = {100, 150, 200, 400};  // (32, cpu:1) (32, cpu:2) (64, cpu:1) (64, cpu:2)
    for (int i = 0; i < 4; ++i) f.results.cells[i].measures["samples_per_s"] = m(sps[i], i == 1 ? 15 : 0);
    const auto plots = wb::sweepPlots(f.sweep, f.results);
    const auto p = plot(plots, "speedup");
    ASSERT_TRUE(p.unavailable.empty());
    EXPECT_EQ(p.categories, (std::vector<std::string>{"batch_size 32", "batch_size 64"}));
    ASSERT_EQ(p.series.size(), 2u);
    EXPECT_EQ(p.series[0].name, "cpu:1");
    EXPECT_EQ(p.series[0].y, (std::vector<double>{1, 1}));
    EXPECT_EQ(p.series[1].y, (std::vector<double>{1.5, 2}));
    EXPECT_NEAR(p.series[1].yStd[0], 1.5 * 0.1, 1e-12);  // 15 / 150 relative spread
    EXPECT_EQ(wb::sweepDevices(f.sweep), (std::vector<std::string>{"cpu:1", "cpu:2"}));
    const auto other = plot(wb::sweepPlots(f.sweep, f.results, "cpu:2"), "speedup");
    EXPECT_EQ(other.series[0].y, (std::vector<double>{100.0 / 150, 0.5}));
    EXPECT_EQ(other.title, "Speed-up against cpu:2");
}

TEST(SweepPlots, TheParetoFrontHoldsTheCellsNoOtherBeatsOnTimeAndLoss) {
    auto f = grid({{"batch_size", {"8", "16", "32", "64"}}});
    const double seconds[] = {10, 4, 6, 2}, loss[] = {1.0, 1.5, 2.0, 3.0};
    for (int i = 0; i < 4; ++i) {
        f.results.cells[i].measures["train_seconds"] = m(seconds[i]);
        f.results.cells[i].measures["best_val_loss"] = m(loss[i]);
    }
    const auto p = plot(wb::sweepPlots(f.sweep, f.results), "pareto");
    ASSERT_TRUE(p.unavailable.empty());
    // 32 (6 s, 2.0) is beaten by 16 (4 s, 1.5); the others each win somewhere.
    EXPECT_EQ(p.front.x, (std::vector<double>{2, 4, 10}));
    EXPECT_EQ(p.front.y, (std::vector<double>{3.0, 1.5, 1.0}));
    const auto csv = p.toCsv();
    EXPECT_NE(csv.find(",on_front\n"), std::string::npos);
    EXPECT_NE(csv.find("batch_size=32,false"), std::string::npos) << csv;
    EXPECT_NE(csv.find("batch_size=16,true"), std::string::npos) << csv;
}

TEST(SweepPlots, AGridSaysWhichPlotsItCannotDraw) {
    auto f = grid({{"hidden", {"16", "32"}}});
    for (auto& row : f.results.cells) row.measures["samples_per_s"] = m(100);  // never validated
    const auto plots = wb::sweepPlots(f.sweep, f.results);
    ASSERT_EQ(plots.size(), 4u);
    EXPECT_EQ(plot(plots, "throughput-vs-batch").unavailable, "needs a batch_size axis");
    EXPECT_EQ(plot(plots, "time-vs-data").unavailable, "needs a data_fraction axis");
    EXPECT_NE(plot(plots, "speedup").unavailable.find("needs two devices"), std::string::npos);
    EXPECT_EQ(plot(plots, "pareto").unavailable, "needs validated runs");
    EXPECT_TRUE(wb::isDeviceAxis("processes"));
    EXPECT_TRUE(wb::isDeviceAxis("precision"));
    EXPECT_FALSE(wb::isDeviceAxis("batch_size"));
}
