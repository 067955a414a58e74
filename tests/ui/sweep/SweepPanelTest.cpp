// The Sweep tab offscreen: a grid planned (the run count), bad values and a missing CLI refused before
// anything exists, a real grid run through lstm-workbench-cli (the live cell grid, the sortable result table,
// the plots), pause, cancel and resume, the bundle export, and the sweep reopened through the main window.
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QPushButton>
#include <QSettings>
#include <QTabWidget>
#include <QTableWidget>

#include <gtest/gtest.h>

#include "workbench/graphics/QCustomPlot.h"

#include "MainWindow.h"
#include "UiTestSupport.h"
#include "common/ErrorPresenter.h"
#include "common/PageTabs.h"
#include "sweep/SweepChart.h"
#include "sweep/SweepPanel.h"
#include "workbench/domain/Sweep.h"

#include <filesystem>

using namespace wbui;
using State = SweepPanel::State;

namespace {

class SweepTab : public ::testing::Test {
protected:
    void SetUp() override {
        wbtest::writeText(m_tmp.path() / "pattern.txt", wbtest::patternText(80));
        m_panel.setBaseProvider([corpus = m_tmp.file("pattern.txt")](wb::ExperimentConfig* c, QString*) {
            *c = wbuitest::tinyConfig(wb::Task::LanguageModel, corpus);
            return true;
        });
        m_panel.setStepsPerCell(6);
        m_panel.resize(1200, 900);
    }
    QString dir(const char* name) const { return QString::fromStdString(m_tmp.file(name)); }
    QStringList states() const {
        QStringList out;
        for (int r = 0; r < m_panel.cellTable()->rowCount(); ++r)
            if (auto* item = m_panel.cellTable()->item(r, 1)) out << item->text();
        return out;
    }
    bool waitForState(State s, int ms = 240000) {
        return wbuitest::waitFor([&] { return m_panel.state() == s; }, ms);
    }
    wbtest::TempDir m_tmp;
    SweepPanel m_panel;
};

}  // namespace

TEST_F(SweepTab, PlansTheGridAndRefusesBadValuesBeforeAnythingExists) {
    m_panel.setAxes({{"batch_size", {"4", "8"}}, {"device", {"cpu:1", "cpu:2"}}});
    ASSERT_TRUE(m_panel.replan());
    EXPECT_TRUE(m_panel.planText().startsWith(QStringLiteral("4 runs"))) << m_panel.planText().toStdString();
    m_panel.setRepeats(3);
    EXPECT_TRUE(m_panel.planText().startsWith(QStringLiteral("12 runs"))) << m_panel.planText().toStdString();
    EXPECT_EQ(m_panel.axes().size(), 2u);
    EXPECT_EQ(m_panel.axes()[1].values, (std::vector<std::string>{"cpu:1", "cpu:2"}));

    // A value out of the field's range names the cell; Start refuses and creates nothing.
    m_panel.setAxes({{"batch_size", {"4", "0"}}});
    EXPECT_FALSE(m_panel.replan());
    EXPECT_TRUE(m_panel.planText().contains(QStringLiteral("batch_size=0")))
        << m_panel.planText().toStdString();
    EXPECT_FALSE(m_panel.start(dir("bad")));
    EXPECT_FALSE(QFileInfo::exists(dir("bad")));
    m_panel.setAxes({{"lr", {"fast"}}});
    EXPECT_FALSE(m_panel.replan());
    // "lr" is the learning rate's flag name; the message names the field and the value.
    EXPECT_EQ(m_panel.axes().at(0).field, "learning_rate");
    EXPECT_TRUE(m_panel.planText().contains(QStringLiteral("learning_rate")) &&
                m_panel.planText().contains(QStringLiteral("'fast'")))
        << m_panel.planText().toStdString();

    // The link axis is offered beside the fields; over one process it has nothing to shape, and says so.
    m_panel.setAxes({{"link", {"unshaped", "100mbit"}}});
    EXPECT_EQ(m_panel.axes().at(0).field, "link");
    EXPECT_FALSE(m_panel.replan());
    EXPECT_TRUE(m_panel.planText().contains(QStringLiteral("one process")))
        << m_panel.planText().toStdString();
    m_panel.setAxes({{"processes", {"2", "3"}}, {"link", {"unshaped", "100mbit"}}});
    EXPECT_TRUE(m_panel.replan()) << m_panel.planText().toStdString();
    EXPECT_TRUE(m_panel.planText().startsWith(QStringLiteral("12 runs"))) << m_panel.planText().toStdString();

    // No experiment to sweep: the provider's reason is what the plan says.
    m_panel.setBaseProvider([](wb::ExperimentConfig*, QString* why) {
        *why = QStringLiteral("Load a corpus first");
        return false;
    });
    m_panel.setAxes({{"batch_size", {"4", "8"}}});
    EXPECT_FALSE(m_panel.replan());
    EXPECT_EQ(m_panel.planText(), QStringLiteral("Load a corpus first"));
    EXPECT_FALSE(m_panel.start(dir("none")));
    EXPECT_FALSE(QFileInfo::exists(dir("none")));
}

TEST_F(SweepTab, AMissingCliIsReportedAndNothingStarts) {
    m_panel.setAxes({{"batch_size", {"4", "8"}}});
    m_panel.setCliProgram(dir("no-such-program"));
    EXPECT_FALSE(m_panel.start(dir("sw")));
    EXPECT_TRUE(m_panel.lastError().contains(QStringLiteral("not an executable")))
        << m_panel.lastError().toStdString();
    EXPECT_EQ(m_panel.state(), State::Idle);
}

TEST_F(SweepTab, RunsAGridShowsCellsResultsAndPlotsExportsAndReopens) {
    m_panel.setAxes({{"batch_size", {"4", "8"}}, {"device", {"cpu:1", "cpu:2"}}});
    const QString sweepDir = dir("sw");
    ASSERT_TRUE(m_panel.start(sweepDir)) << m_panel.lastError().toStdString();
    EXPECT_TRUE(m_panel.isRunning());
    ASSERT_TRUE(waitForState(State::Finished)) << m_panel.lastError().toStdString();
    EXPECT_EQ(states(), QStringList(4, QStringLiteral("done")));

    // One result row per cell, sortable by number.
    auto* table = m_panel.resultTable();
    ASSERT_EQ(table->rowCount(), 4);
    int spsColumn = -1;
    for (int c = 0; c < table->columnCount(); ++c)
        if (table->horizontalHeaderItem(c)->text() == QStringLiteral("samples/s")) spsColumn = c;
    ASSERT_GE(spsColumn, 0);
    table->sortItems(spsColumn, Qt::AscendingOrder);
    for (int r = 1; r < 4; ++r)
        EXPECT_LE(table->item(r - 1, spsColumn)->data(Qt::UserRole).toDouble(),
                  table->item(r, spsColumn)->data(Qt::UserRole).toDouble());
    EXPECT_GT(table->item(0, spsColumn)->data(Qt::UserRole).toDouble(), 0);

    // Throughput: one line per device; time against data needs a data_fraction axis, so its tab is greyed.
    EXPECT_EQ(m_panel.chart(0)->plot()->graphCount(), 2);
    EXPECT_EQ(m_panel.chart(0)->plot()->graph(0)->dataCount(), 2);
    EXPECT_FALSE(m_panel.plotTabs()->isTabEnabled(1));
    EXPECT_TRUE(m_panel.plotTabs()->isTabEnabled(2));
    EXPECT_TRUE(m_panel.plotTabs()->isTabEnabled(3));
    EXPECT_EQ(m_panel.baselineBox()->count(), 2);
    // The CLI wrote the same plots into the folder.
    EXPECT_FALSE(QImage(sweepDir + QStringLiteral("/plots/throughput-vs-batch.png")).isNull());

    const QString bundle = dir("bundle");
    QString why;
    ASSERT_TRUE(m_panel.exportBundle(bundle, &why)) << why.toStdString();
    for (const char* name : {"sweep.json", "results.csv", "environment.json", "plots/throughput-vs-batch.png",
                             "plots/throughput-vs-batch.csv", "plots/speedup.png", "plots/pareto.csv"})
        EXPECT_TRUE(QFileInfo::exists(bundle + QLatin1Char('/') + QLatin1String(name))) << name;
    EXPECT_EQ(QDir(bundle + QStringLiteral("/runs")).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size(), 4);
    EXPECT_FALSE(QFileInfo::exists(bundle + QStringLiteral("/plots/time-vs-data.png")));

    // Reopened in the main window by dropping the folder on it (File → Open Sweep Folder goes the same way).
    MainWindow w;
    w.errors()->setDialogsEnabled(false);
    w.setRunsDirectory(dir("runs"));
    wbuitest::dropFiles(&w, {sweepDir});
    EXPECT_EQ(w.errors()->errorCount(), 0) << w.errors()->lastError().toStdString();
    EXPECT_EQ(w.mainTabs()->currentPage(), w.sweepPanel());
    EXPECT_EQ(w.sweepPanel()->state(), State::Finished);
    EXPECT_EQ(w.sweepPanel()->resultTable()->rowCount(), 4);
    EXPECT_EQ(w.sweepPanel()->cellTable()->rowCount(), 4);
    EXPECT_EQ(w.sweepPanel()->axes().size(), 2u);
    EXPECT_EQ(w.sweepPanel()->chart(0)->plot()->graphCount(), 2);
    // A folder that is not a sweep says so.
    QString error;
    EXPECT_FALSE(w.sweepPanel()->openSweep(dir("runs"), &error));
    EXPECT_TRUE(error.contains(QStringLiteral("not a sweep folder"))) << error.toStdString();
}

TEST_F(SweepTab, PauseFinishesTheRunningCellCancelStopsAndResumeCompletes) {
    m_panel.setAxes({{"hidden", {"8", "12", "16"}}});
    m_panel.setStepsPerCell(30);  // cells long enough for the half-second poll to see one running
    ASSERT_TRUE(m_panel.start(dir("sw"))) << m_panel.lastError().toStdString();
    ASSERT_TRUE(wbuitest::waitFor([&] { return states().contains(QStringLiteral("running")); }));
    m_panel.pause();
    EXPECT_EQ(m_panel.state(), State::Pausing);
    ASSERT_TRUE(waitForState(State::Stopped));
    // The running cell finished (the poll may have seen the second one start); the rest wait.
    const QStringList paused = states();
    EXPECT_GE(paused.count(QStringLiteral("done")), 1);
    EXPECT_GE(paused.count(QStringLiteral("queued")), 1);
    EXPECT_EQ(paused.count(QStringLiteral("running")), 0);

    ASSERT_TRUE(m_panel.resume());
    m_panel.cancel();
    ASSERT_TRUE(waitForState(State::Stopped));
    EXPECT_EQ(states().count(QStringLiteral("running")), 0);

    ASSERT_TRUE(m_panel.resume());
    ASSERT_TRUE(waitForState(State::Finished)) << m_panel.lastError().toStdString();
    EXPECT_EQ(states(), QStringList(3, QStringLiteral("done")));
    EXPECT_EQ(m_panel.resultTable()->rowCount(), 3);
}

// Pause, then Keep Going in the same button before the running cell ends: the pause is withdrawn (SIGUSR2 to
// the sweep) and every cell trains.
TEST_F(SweepTab, APauseWithdrawnBeforeTheCellEndsLetsTheSweepFinish) {
    m_panel.setAxes({{"hidden", {"8", "12", "16"}}});
    m_panel.setStepsPerCell(30);
    ASSERT_TRUE(m_panel.start(dir("sw"))) << m_panel.lastError().toStdString();
    ASSERT_TRUE(wbuitest::waitFor([&] { return states().contains(QStringLiteral("running")); }));
    EXPECT_EQ(m_panel.pauseButton()->text(), QStringLiteral("Pause"));
    m_panel.pauseButton()->click();
    ASSERT_EQ(m_panel.state(), State::Pausing);
    EXPECT_TRUE(m_panel.pauseButton()->isEnabled());
    EXPECT_EQ(m_panel.pauseButton()->text(), QStringLiteral("Keep Going"));
    m_panel.pauseButton()->click();
    EXPECT_EQ(m_panel.state(), State::Running);
    EXPECT_EQ(m_panel.pauseButton()->text(), QStringLiteral("Pause"));
    ASSERT_TRUE(waitForState(State::Finished))
        << m_panel.lastError().toStdString() << " state " << int(m_panel.state()) << " cells "
        << states().join(QLatin1Char(' ')).toStdString();
    EXPECT_EQ(states(), QStringList(3, QStringLiteral("done")));
}

// Quitting while a sweep trains asks first, naming the running cell and what happens to it; No keeps the
// window and the sweep; Yes quits, and the running cell is not left marked running (Resume trains it again).
TEST(SweepQuit, QuittingWhileASweepRunsAsksWhatHappensToTheRunningCellAndNoKeepsItRunning) {
    wbtest::TempDir tmp;
    wbtest::writeText(tmp.path() / "pattern.txt", wbtest::patternText(80));
    const std::string folder = tmp.file("sw");
    QStringList asked;
    bool answer = false;
    {
        MainWindow w;
        w.errors()->setDialogsEnabled(false);
        w.setQuitQuestion([&](const QString& text) {
            asked << text;
            return answer;
        });
        SweepPanel* panel = w.sweepPanel();
        panel->setBaseProvider([corpus = tmp.file("pattern.txt")](wb::ExperimentConfig* c, QString*) {
            *c = wbuitest::tinyConfig(wb::Task::LanguageModel, corpus);
            return true;
        });
        panel->setAxes({{"hidden", {"8", "12", "16"}}});
        panel->setStepsPerCell(3000);  // long enough to still run when the questions come; stopped at the end
        w.show();
        EXPECT_TRUE(panel->quitConsequence().isEmpty());
        ASSERT_TRUE(panel->start(QString::fromStdString(folder))) << panel->lastError().toStdString();
        ASSERT_TRUE(wbuitest::waitFor([&] {
            panel->refresh();
            return !panel->quitConsequence().isEmpty() &&
                   panel->quitConsequence().contains(QStringLiteral("run 1 of 3"));
        })) << panel->quitConsequence().toStdString();

        EXPECT_FALSE(w.close());
        ASSERT_EQ(asked.size(), 1);
        EXPECT_TRUE(asked[0].contains(QStringLiteral("is training run 1 of 3 (hidden=8)")))
            << asked[0].toStdString();
        EXPECT_TRUE(asked[0].contains(QStringLiteral("trained again from its start on Resume")))
            << asked[0].toStdString();
        EXPECT_TRUE(w.isVisible());
        EXPECT_TRUE(panel->isRunning());

        panel->pause();
        EXPECT_FALSE(w.close());
        ASSERT_EQ(asked.size(), 2);
        EXPECT_TRUE(asked[1].contains(QStringLiteral("pausing after run 1 of 3"))) << asked[1].toStdString();
        EXPECT_EQ(panel->state(), State::Pausing);

        answer = true;
        EXPECT_TRUE(w.close());
        EXPECT_EQ(asked.size(), 3);
        EXPECT_FALSE(w.isVisible());
        QSettings().remove(QStringLiteral("sweep/shown"));  // later tests start without it
    }  // the window goes, and with it the sweep process (stopped, its cell to be redone)
    const auto sweep = wb::loadSweep(folder);
    for (const auto& cell : sweep.cells)
        EXPECT_NE(cell.state, wb::CellState::Running) << sweep.describe(cell);
    EXPECT_NE(sweep.cells[2].state, wb::CellState::Done);
}

// A committed sweep over links (docs/benchmarks/network-scaling), opened while the Experiment page trains one
// process: its results show, and the plan line says that it is Start, on the Experiment page's experiment,
// that cannot run this grid, not the sweep shown.
TEST_F(SweepTab, AnOpenedLinkSweepShowsAndThePlanSaysWhatStartWouldDo) {
    QString error;
    ASSERT_TRUE(m_panel.openSweep(
        QString::fromStdString(wbtest::sourcePath("docs/benchmarks/network-scaling/poems/hosts")), &error))
        << error.toStdString();
    EXPECT_EQ(m_panel.state(), State::Finished);
    EXPECT_GT(m_panel.resultTable()->rowCount(), 0);
    EXPECT_TRUE(m_panel.planText().startsWith(QStringLiteral("Start would run this grid")))
        << m_panel.planText().toStdString();
    EXPECT_TRUE(m_panel.planText().contains(QStringLiteral("one process")))
        << m_panel.planText().toStdString();
}

// Issue #32: a damaged sweep.json opened in the app is an error naming the file; the tab shows what it
// showed before.
TEST_F(SweepTab, ATruncatedSweepFileIsAnErrorNamingItAndTheTabStaysAsItWas) {
    const auto sweep =
        wb::Sweep::plan(wbuitest::tinyConfig(wb::Task::LanguageModel, m_tmp.file("pattern.txt")),
                        {wb::parseSweepAxis("hidden=8,12")}, 1, 0);
    const std::string folder = m_tmp.file("damaged");
    std::filesystem::create_directories(folder);
    wb::saveSweep(folder, sweep);
    const std::string whole = wbtest::readText(folder + "/sweep.json");
    QString error;
    ASSERT_TRUE(m_panel.openSweep(QString::fromStdString(folder), &error)) << error.toStdString();
    ASSERT_EQ(m_panel.cellTable()->rowCount(), 2);
    for (const std::string& damaged : {whole.substr(0, whole.size() / 2), std::string("{\"cells\": 7}")}) {
        wbtest::writeText(folder + "/sweep.json", damaged);
        error.clear();
        EXPECT_FALSE(m_panel.openSweep(QString::fromStdString(folder), &error));
        EXPECT_TRUE(error.contains(QStringLiteral("sweep.json"))) << error.toStdString();
        EXPECT_EQ(m_panel.cellTable()->rowCount(), 2) << "the sweep shown before stays";
    }
}

// Issue #45: a sweep opened again shows the steps per cell it was made with (it read 200 for a 60-step
// sweep), and the sweep the tab showed when the app closed is shown again when it opens, paused or not.
TEST_F(SweepTab, ASweepOpenedAgainShowsItsStepsAndComesBackAfterARestart) {
    auto base = wbuitest::tinyConfig(wb::Task::LanguageModel, m_tmp.file("pattern.txt"));
    base.train.epochs = 0;
    base.train.maxSteps = 60;
    const auto sweep = wb::Sweep::plan(base, {wb::parseSweepAxis("hidden=8,12")}, 1, 0);
    const std::string folder = m_tmp.file("paused");
    std::filesystem::create_directories(folder);
    wb::saveSweep(folder, sweep);
    QString error;
    ASSERT_TRUE(m_panel.openSweep(QString::fromStdString(folder), &error)) << error.toStdString();
    EXPECT_EQ(m_panel.stepsPerCell(), 60);
    EXPECT_EQ(m_panel.state(), State::Stopped);

    {
        MainWindow before;
        before.errors()->setDialogsEnabled(false);
        ASSERT_TRUE(before.sweepPanel()->openSweep(QString::fromStdString(folder), &error));
        before.close();  // saves the window's settings, as quitting does
    }
    MainWindow after;
    QSettings().remove(QStringLiteral("sweep/shown"));  // later tests start without it
    EXPECT_EQ(after.sweepPanel()->sweepDir(), QFileInfo(QString::fromStdString(folder)).absoluteFilePath());
    EXPECT_EQ(after.sweepPanel()->state(), State::Stopped);
    EXPECT_EQ(after.sweepPanel()->cellTable()->rowCount(), 2);
}
