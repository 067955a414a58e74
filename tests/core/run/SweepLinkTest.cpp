// The sweep's link axis (workbench/domain/Sweep.h): the one axis that is not a config field. Its values are
// "unshaped" or a rate in tc's notation; a cell of it needs two processes or more; it leaves the cell's
// config as it is, survives sweep.json, and is part of the device in the plots.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "support/TestSupport.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Sweep.h"
#include "workbench/domain/SweepPlots.h"

namespace {

wb::ExperimentConfig twoProcesses() {
    wb::ExperimentConfig base = wb::defaultConfig(wb::Task::LanguageModel);
    base.data.corpus = "corpus.txt";
    base.device.spec.processes = 2;
    return base;
}

}  // namespace

TEST(SweepLink, LinkValuesAreUnshapedOrARate) {
    for (const char* good : {"unshaped", "100mbit", "1gbit", "500kbit", "2.5gbit"})
        EXPECT_TRUE(wb::isLinkValue(good)) << good;
    for (const char* bad :
         {"", "none", "fast", "100", "100mb", "0mbit", "mbit", "-1gbit", ".5gbit", "1gbitx"})
        EXPECT_FALSE(wb::isLinkValue(bad)) << bad;
    const auto axis = wb::parseSweepAxis("link=unshaped,100mbit");
    EXPECT_EQ(axis.field, "link");
    EXPECT_EQ(axis.values, (std::vector<std::string>{"unshaped", "100mbit"}));
    const auto why = wbtest::inputErrorOf([] { wb::parseSweepAxis("link=unshaped,fast"); });
    EXPECT_NE(why.find("'fast' is not a link"), std::string::npos) << why;
    EXPECT_NE(why.find("100mbit"), std::string::npos) << why;  // says what a link looks like
}

TEST(SweepLink, ALinkCellKeepsItsConfigAndNamesItsLink) {
    const auto sweep = wb::Sweep::plan(
        twoProcesses(),
        {wb::parseSweepAxis("link=unshaped,1gbit"), wb::parseSweepAxis("grad_compression=none,fp16")}, 1, 0);
    ASSERT_TRUE(sweep.hasLinkAxis());
    ASSERT_EQ(sweep.cells.size(), 4u);
    EXPECT_EQ(wb::Sweep::linkOf(sweep.cells[0]), "unshaped");
    EXPECT_EQ(wb::Sweep::linkOf(sweep.cells[3]), "1gbit");
    const auto config = sweep.cellConfig(sweep.cells[3]);
    EXPECT_EQ(config.device.spec.processes, 2);
    EXPECT_EQ(config.device.gradCompression, wb::GradCompression::Fp16);
    EXPECT_EQ(sweep.describe(sweep.cells[3]), "link=1gbit grad_compression=fp16");
    EXPECT_NE(sweep.cells[3].runDir.find("link-1gbit"), std::string::npos);
    const auto back = wb::Sweep::fromJson(sweep.toJson(), "sweep.json");
    ASSERT_TRUE(back.hasLinkAxis());
    EXPECT_EQ(wb::Sweep::linkOf(back.cells[3]), "1gbit");
    EXPECT_FALSE(
        wb::Sweep::plan(twoProcesses(), {wb::parseSweepAxis("batch_size=16,32")}, 1, 0).hasLinkAxis());
}

TEST(SweepLink, ACellOfOneProcessHasNoLinkAndIsRefused) {
    auto base = twoProcesses();
    base.device.spec.processes = 1;
    const auto why =
        wbtest::inputErrorOf([&] { wb::Sweep::plan(base, {wb::parseSweepAxis("link=100mbit")}, 1, 0); });
    EXPECT_NE(why.find("one process"), std::string::npos) << why;
    EXPECT_NE(why.find("link=100mbit"), std::string::npos) << why;  // the cell
    // A processes axis decides it per cell: 1 is refused, 2 and 3 plan.
    EXPECT_NE(wbtest::inputErrorOf([&] {
                  wb::Sweep::plan(
                      base, {wb::parseSweepAxis("processes=1,2"), wb::parseSweepAxis("link=1gbit")}, 1, 0);
              }).find("one process"),
              std::string::npos);
    EXPECT_EQ(
        wb::Sweep::plan(base, {wb::parseSweepAxis("processes=2,3"), wb::parseSweepAxis("link=1gbit")}, 1, 0)
            .cells.size(),
        2u);
}

TEST(SweepLink, TheLinkIsPartOfTheDeviceInThePlots) {
    const auto sweep = wb::Sweep::plan(
        twoProcesses(),
        {wb::parseSweepAxis("link=unshaped,100mbit"), wb::parseSweepAxis("grad_compression=none,fp16")}, 1,
        0);
    EXPECT_TRUE(wb::isDeviceAxis("link"));
    EXPECT_EQ(wb::sweepDevices(sweep),
              (std::vector<std::string>{"unshaped link · fp32 gradients", "unshaped link · fp16 gradients",
                                        "100mbit link · fp32 gradients", "100mbit link · fp16 gradients"}));
    wb::SweepResults results;
    results.axes = {"link", "grad_compression"};
    const double sps[] = {400, 360, 100, 180};
    for (const auto& c : sweep.cells) {
        wb::SweepResultRow row;
        row.aggregate = true;
        row.cell = c.index;
        for (const auto& kv : c.setting) row.values.push_back(kv.second);
        row.runs = 1;
        row.status = "done";
        row.measures["samples_per_s"] = {sps[c.index], 0, true};
        results.cells.push_back(row);
    }
    const auto plots = wb::sweepPlots(sweep, results);
    const auto speedup =
        std::find_if(plots.begin(), plots.end(), [](const auto& p) { return p.id == "speedup"; });
    ASSERT_NE(speedup, plots.end());
    ASSERT_TRUE(speedup->unavailable.empty()) << speedup->unavailable;
    ASSERT_EQ(speedup->series.size(), 4u);
    EXPECT_EQ(speedup->series[2].name, "100mbit link · fp32 gradients");
    EXPECT_DOUBLE_EQ(speedup->series[2].y.at(0), 0.25);
    EXPECT_DOUBLE_EQ(speedup->series[3].y.at(0), 0.45);
}
