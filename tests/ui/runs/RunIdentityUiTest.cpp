// Which run is which, in the app: names in the legend, the comparison table, the throughput bars and the Runs
// list; renaming from the Runs list renames everywhere and lands in the folder; deleting asks nothing here
// (confirmations off), removes only that folder and refuses a run still training; the settings table shows
// only what differs; a classifier and a language model fall into two groups; a one-point curve has a marker.
#include <QAbstractBarSeries>
#include <QBarCategoryAxis>
#include <QChart>
#include <QCheckBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSysInfo>
#include <QTableWidget>

#include <gtest/gtest.h>

#include <filesystem>

#include "TestWindow.h"
#include "charts/ComparisonTable.h"
#include "charts/OverlayChart.h"
#include "charts/ThroughputChart.h"
#include "runs/RunCollection.h"
#include "runs/RunNotesDialog.h"
#include "runs/RunsPanel.h"
#include "runs/SettingsDiffDialog.h"
#include "workbench/graphics/LossCurves.h"

#include "workbench/graphics/QCustomPlot.h"

using namespace wbui;
namespace fs = std::filesystem;

namespace {

// A copy of a trained run under the window's runs folder, so that renaming and deleting touch only it.
QString copyRun(const wbuitest::TestWindow& win, const QString& run, const std::string& name) {
    const fs::path to = win.tmp.path() / "runs" / name;
    fs::create_directories(to.parent_path());
    fs::copy(run.toStdString(), to, fs::copy_options::recursive);
    return QString::fromStdString(to.string());
}

bool tableHasRun(QTableWidget* table, const QString& name) {
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->item(r, 0) && table->item(r, 0)->text() == QStringLiteral("#%1 ").arg(r + 1) + name)
            return true;
    return false;
}

}  // namespace

TEST(RunIdentity, RenamingFromTheRunsListRenamesEverywhere) {
    wbuitest::TestWindow win;
    const QString dir = copyRun(win, wbuitest::trainedLanguageModelRun(), "lm-copy");
    ASSERT_TRUE(win.w->runsPanel()->openRunFolder(dir));
    win.w->runsPanel()->refresh();
    const QString before = win.w->launcher()->runs()->at(0).label;
    // The default name: the run's number (issue #45), corpus, task, device.
    EXPECT_TRUE(before.startsWith(QStringLiteral("run 1 · pattern LM · cpu"))) << before.toStdString();

    wb::RunAnnotations a;
    a.name = "pattern baseline";
    a.tags = {"baseline"};
    a.notes = "first run\nsecond line";
    ASSERT_TRUE(win.w->runsPanel()->annotate(dir, a));
    EXPECT_EQ(wb::readRunAnnotations(dir.toStdString()).name, "pattern baseline");
    // The user's name after the run's number (issue #63: a named run lost its "run N").
    EXPECT_EQ(win.w->launcher()->runs()->at(0).label, QStringLiteral("run 1 · pattern baseline"));
    EXPECT_EQ(win.w->runsPanel()->runName(dir), QStringLiteral("run 1 · pattern baseline"));
    win.w->comparisonTable()->refresh();
    EXPECT_TRUE(tableHasRun(win.w->comparisonTable()->table(), QStringLiteral("run 1 · pattern baseline")));
    EXPECT_TRUE(win.w->throughputChart()->categories().contains(QStringLiteral("run 1 · pattern baseline")))
        << win.w->throughputChart()->categories().join(QStringLiteral(" | ")).toStdString();
    win.w->overlayChart()->flush();
    ASSERT_EQ(win.w->overlayChart()->plot()->graphCount(), 1);
    EXPECT_EQ(win.w->overlayChart()->plot()->graph(0)->name(), QStringLiteral("run 1 · pattern baseline"));

    // An empty name goes back to the default.
    a.name.clear();
    ASSERT_TRUE(win.w->runsPanel()->annotate(dir, a));
    EXPECT_EQ(win.w->launcher()->runs()->at(0).label, before);
}

TEST(RunIdentity, TheNotesDialogEditsNameTagsAndNotes) {
    wb::RunRecord record = wb::loadRunFolder(wbuitest::trainedLanguageModelRun().toStdString());
    record.annotations.tags = {"old"};
    RunNotesDialog dialog(record);
    EXPECT_EQ(dialog.nameEdit()->placeholderText().toStdString(), record.defaultName());
    dialog.nameEdit()->setText(QStringLiteral("  two   threads  "));
    dialog.tagsEdit()->setText(QStringLiteral("bf16, night , bf16,,"));
    dialog.notesEdit()->setPlainText(QStringLiteral("loss plateaued\n"));
    const auto a = dialog.annotations();
    EXPECT_EQ(a.name, "two threads");
    EXPECT_EQ(a.tags, (std::vector<std::string>{"bf16", "night"}));
    EXPECT_EQ(a.notes, "loss plateaued");
}

TEST(RunIdentity, DeleteRemovesOnlyThatFolderAndRefusesALiveRun) {
    wbuitest::TestWindow win;
    win.w->runsPanel()->setConfirmations(false);
    const QString keep = copyRun(win, wbuitest::trainedLanguageModelRun(), "keep");
    const QString doomed = copyRun(win, wbuitest::trainedLanguageModelRun(), "doomed");
    win.w->runsPanel()->refresh();
    ASSERT_TRUE(win.w->runsPanel()->openRunFolder(doomed));
    const int before = win.w->runsPanel()->runCount();
    ASSERT_TRUE(win.w->runsPanel()->deleteRun(doomed));
    EXPECT_FALSE(fs::exists(doomed.toStdString()));
    EXPECT_TRUE(fs::exists(keep.toStdString() + "/config.json"));
    EXPECT_EQ(win.w->runsPanel()->runCount(), before - 1);
    EXPECT_FALSE(win.w->launcher()->runs()->contains(doomed));

    RunEntry live;
    live.key = keep;
    live.live = true;
    live.record = wb::loadRunFolder(keep.toStdString());
    win.w->launcher()->runs()->add(std::move(live));
    const int errors = win.w->errors()->errorCount();
    EXPECT_FALSE(win.w->runsPanel()->deleteRun(keep));
    EXPECT_TRUE(fs::exists(keep.toStdString() + "/config.json"));
    EXPECT_EQ(win.w->errors()->errorCount(), errors + 1);
    EXPECT_TRUE(win.w->errors()->lastError().contains(QStringLiteral("Stop")))
        << win.w->errors()->lastError().toStdString();
}

TEST(RunIdentity, SettingsTableShowsOnlyWhatDiffers) {
    auto a = wb::loadRunFolder(wbuitest::trainedLanguageModelRun().toStdString());
    auto b = a;
    b.config.train.learningRate = a.config.train.learningRate * 2;
    b.info.threads = 2;
    SettingsDiffDialog dialog({a, b});
    const QStringList fields = dialog.shownFields();
    EXPECT_TRUE(fields.contains(QStringLiteral("learning rate")))
        << fields.join(QStringLiteral(", ")).toStdString();
    EXPECT_TRUE(fields.contains(QStringLiteral("device (as run)")));
    EXPECT_FALSE(fields.contains(QStringLiteral("hidden size")));
    dialog.setDifferencesOnly(false);
    EXPECT_TRUE(dialog.shownFields().contains(QStringLiteral("hidden size")));
    EXPECT_GT(dialog.shownFields().size(), fields.size());
    EXPECT_EQ(dialog.table()->columnCount(), 2);
}

TEST(RunIdentity, AClassifierAndALanguageModelAreTwoGroups) {
    wbuitest::TestWindow win;
    ASSERT_TRUE(win.w->runsPanel()->openRunFolder(wbuitest::trainedLanguageModelRun()));
    ASSERT_TRUE(win.w->runsPanel()->openRunFolder(wbuitest::trainedClassifierRun()));
    win.w->comparisonTable()->refresh();
    const auto& rows = win.w->comparisonTable()->rows();
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_NE(rows[0].group, rows[1].group);
    EXPECT_DOUBLE_EQ(rows[0].speedup, 1.0);  // each its own group's baseline, not 11.89× of the other
    EXPECT_DOUBLE_EQ(rows[1].speedup, 1.0);
    EXPECT_TRUE(win.w->comparisonTable()->groupsText().contains(QStringLiteral("2 groups")))
        << win.w->comparisonTable()->groupsText().toStdString();
    EXPECT_TRUE(rows[1].target.find("accuracy") != std::string::npos) << rows[1].target;
    EXPECT_TRUE(rows[0].target.find("loss") != std::string::npos) << rows[0].target;
}

// Issue #35: a language model's 81 samples/s and a classifier's 563 shared one axis, though their samples
// have nothing in common. Each kind of sample (task and corpus) gets a chart and an axis of its own, and a
// long name is shortened on the axis, whole in its tooltip.
TEST(RunIdentity, ThroughputBarsOfAnotherTaskHaveTheirOwnChart) {
    wbuitest::TestWindow win;
    const QString lm = copyRun(win, wbuitest::trainedLanguageModelRun(), "lm-copy");
    ASSERT_TRUE(win.w->runsPanel()->openRunFolder(lm));
    ASSERT_TRUE(win.w->runsPanel()->openRunFolder(wbuitest::trainedClassifierRun()));
    wb::RunAnnotations a;
    a.name = "a language model with a name far longer than any axis should give its width to";
    ASSERT_TRUE(win.w->runsPanel()->annotate(lm, a));
    win.w->comparisonTable()->refresh();
    ThroughputChart* bars = win.w->throughputChart();
    ASSERT_EQ(bars->barCount(), 2);
    const QList<QChartView*> charts = bars->charts();
    ASSERT_EQ(charts.size(), 2);
    EXPECT_TRUE(charts[0]->chart()->title().contains(QStringLiteral("language model")))
        << charts[0]->chart()->title().toStdString();
    EXPECT_TRUE(charts[1]->chart()->title().contains(QStringLiteral("classifier")))
        << charts[1]->chart()->title().toStdString();
    for (QChartView* view : charts) {
        ASSERT_EQ(view->chart()->series().size(), 1);
        EXPECT_EQ(static_cast<QAbstractBarSeries*>(view->chart()->series()[0])->count(), 1);
    }
    EXPECT_EQ(bars->categories()[0], QStringLiteral("run 1 · ") + QString::fromStdString(a.name));
    // On screen the axis gives a name two short lines: its number, and under it what its name does not share
    // with the other bars' (here, alone in its chart, all of it, cut) (issue #63: "#1" said neither which run
    // nor which device); a file names it in full.
    auto* axis = qobject_cast<QBarCategoryAxis*>(charts[0]->chart()->axes(Qt::Vertical).value(0));
    ASSERT_NE(axis, nullptr);
    ASSERT_EQ(axis->categories().size(), 1);
    EXPECT_TRUE(axis->categories()[0].startsWith(QStringLiteral("run 1<br>a lang")))
        << axis->categories()[0].toStdString();
    EXPECT_TRUE(axis->categories()[0].endsWith(QStringLiteral("…"))) << axis->categories()[0].toStdString();
    const auto file = bars->exportView(0);
    auto* fileAxis = qobject_cast<QBarCategoryAxis*>(file->chart()->axes(Qt::Vertical).value(0));
    ASSERT_NE(fileAxis, nullptr);
    EXPECT_EQ(fileAxis->categories(), QStringList{bars->categories()[0]});
    EXPECT_TRUE(win.w->comparisonTable()->table()->item(0, 0)->text().startsWith(QStringLiteral("#1 ")))
        << win.w->comparisonTable()->table()->item(0, 0)->text().toStdString();
    // One task again: one chart.
    win.w->launcher()->runs()->remove(win.w->launcher()->runs()->at(1).key);
    win.w->comparisonTable()->refresh();
    EXPECT_EQ(bars->charts().size(), 1);
    EXPECT_EQ(bars->barCount(), 1);
}

TEST(RunIdentity, AOnePointCurveIsDrawnAsAMarker) {
    QObject owner;
    auto* runs = new RunCollection(&owner);
    RunEntry e;
    e.key = QStringLiteral("/tmp/one-point");
    e.record.info.id = "one-point";
    e.record.metrics.push_back({1, 0, 8, 0.5, "train", "loss", 3.0});
    runs->add(std::move(e));
    OverlayChart chart(runs);
    chart.flush();
    ASSERT_EQ(chart.plot()->graphCount(), 1);
    EXPECT_EQ(chart.plot()->graph(0)->dataCount(), 1);
    EXPECT_NE(chart.plot()->graph(0)->scatterStyle().shape(), QCPScatterStyle::ssNone);
}

// A run across machines says which, in rank order and each once; a run of one machine says nothing unless
// that machine is another one.
TEST(RunIdentity, ARunAcrossHostsNamesEachHost) {
    wb::RunRecord record;
    record.annotations.name = "across";
    record.info.host = QSysInfo::machineHostName().toStdString();
    EXPECT_EQ(runLegendLabel(record), QStringLiteral("across"));
    record.info.worldSize = 3;
    record.info.hosts = {"node0", "node1", "node1"};
    EXPECT_EQ(runLegendLabel(record), QStringLiteral("across · node0 + node1"));
    record.info.hosts = {record.info.host, record.info.host};  // --nproc 2 here
    EXPECT_EQ(runLegendLabel(record), QStringLiteral("across"));
    record.info.host = "gpu-server";
    record.info.hosts = {"gpu-server"};
    EXPECT_EQ(runLegendLabel(record), QStringLiteral("across · gpu-server"));
}

// Issue #45: Compare names a run by its own number when the compared runs' numbers tell them apart, so the
// table's "#12" and the lists' "run 12" agree; runs from two folders sharing a number, or from before
// numbers, fall back to their places in the table.
TEST(RunIdentity, CompareTagsRunsByTheirOwnNumbersWhenTheyAreDistinct) {
    RunCollection runs;
    const auto add = [&](const QString& key, std::int64_t number) {
        RunEntry entry;
        entry.key = key;
        entry.record.info.number = number;
        runs.add(std::move(entry));
    };
    add(QStringLiteral("/runs/a"), 12);
    add(QStringLiteral("/runs/b"), 3);
    EXPECT_EQ(runs.comparisonTag(0), QStringLiteral("#12"));
    EXPECT_EQ(runs.comparisonTag(1), QStringLiteral("#3"));
    add(QStringLiteral("/elsewhere/c"), 3);
    EXPECT_EQ(runs.comparisonTag(0), QStringLiteral("#1"));
    EXPECT_EQ(runs.comparisonTag(2), QStringLiteral("#3"));
    runs.remove(QStringLiteral("/elsewhere/c"));
    add(QStringLiteral("/old/d"), 0);
    EXPECT_EQ(runs.comparisonTag(0), QStringLiteral("#1"));
}
