// The Sweep tab against a real Slurm (issue #64), inside the two-node cluster tests/slurm_test.sh starts (the
// ctest SweepTabOnSlurm; the suite skips by name without it): run on "On Slurm" with the Slurm settings
// kept, each cell a batch job that asks for them, and the cell table shows the scheduler's words as the
// cells wait for a node, train and end.
#include <QComboBox>
#include <QSet>
#include <QTableWidget>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "UiTestSupport.h"
#include "sweep/SlurmSettingsDialog.h"
#include "sweep/SweepPanel.h"
#include "workbench/domain/Sweep.h"

using namespace wbui;

TEST(SweepOnSlurm, TheCellsShowPendingRunningAndDoneAsTheSchedulerSays) {
    if (!std::getenv("SLURM_CONF"))
        GTEST_SKIP() << "needs the Slurm cluster of tests/slurm_test.sh (the ctest SweepTabOnSlurm)";
    wbtest::TempDir tmp;
    wbtest::writeText(tmp.path() / "pattern.txt", wbtest::patternText(200));
    SweepPanel panel;
    panel.setBaseProvider([corpus = tmp.file("pattern.txt")](wb::ExperimentConfig* c, QString*) {
        *c = wbuitest::tinyConfig(wb::Task::LanguageModel, corpus);
        return true;
    });
    // Every core of the node for each cell: one trains, the others wait for it.
    const std::string cores = "cpu:" + std::to_string(std::max(1u, std::thread::hardware_concurrency()));
    panel.setAxes({{"device", {cores}}, {"hidden", {"8", "12", "16"}}});
    panel.setStepsPerCell(300);
    SlurmSettingsDialog::save({"test", "", "10:00"});  // the cluster's one partition; ten minutes a cell
    panel.runOnBox()->setCurrentIndex(1);
    ASSERT_TRUE(panel.start(QString::fromStdString(tmp.file("sw")))) << panel.lastError().toStdString();
    QSet<QString> seen;
    const auto look = [&] {
        panel.refresh();
        for (int r = 0; r < panel.cellTable()->rowCount(); ++r)
            if (auto* item = panel.cellTable()->item(r, 1)) seen << item->text();
        return panel.state() == SweepPanel::State::Finished;
    };
    ASSERT_TRUE(wbuitest::waitFor(look, 300000)) << panel.lastError().toStdString();
    look();
    // Waiting for the node: "pending (Resources)", or with another reason the scheduler gives.
    EXPECT_TRUE(std::any_of(seen.begin(), seen.end(), [](const QString& s) {
        return s.startsWith(QStringLiteral("pending"));
    })) << QStringList(seen.values()).join(QStringLiteral(", ")).toStdString();
    EXPECT_TRUE(seen.contains(QStringLiteral("running")))
        << QStringList(seen.values()).join(QStringLiteral(", ")).toStdString();
    const auto sweep = wb::loadSweep(tmp.file("sw"));
    EXPECT_EQ(sweep.count(wb::CellState::Done), 3);
    for (const auto& cell : sweep.cells) EXPECT_TRUE(cell.scheduler.empty()) << "ended cells say no more";
    // Each cell's job asked for the settings (ended jobs stay listed for the cluster's MinJobAge, 300 s).
    const std::string jobs = wbtest::commandOutput("scontrol show job -o");
    int asked = 0;
    for (std::size_t at = jobs.find("JobName=lstm-workbench-cell"); at != std::string::npos;
         at = jobs.find("JobName=lstm-workbench-cell", at + 1)) {
        const auto line = jobs.substr(at, jobs.find('\n', at) - at);
        EXPECT_NE(line.find(" TimeLimit=00:10:00 "), std::string::npos) << line;
        EXPECT_NE(line.find(" Partition=test "), std::string::npos) << line;
        EXPECT_NE(line.find(" Requeue=1 "), std::string::npos) << line;
        ++asked;
    }
    EXPECT_EQ(asked, 3);
    SlurmSettingsDialog::save({});
}
