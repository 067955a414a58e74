// MainWindow: drops load corpora (a bad one reports and keeps the old), a short run plots and fills the
// comparison table, pause and stop work, closing mid-run stops the worker and keeps the run folder, and
// first launch without the prepared default corpus says how to prepare it.
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QLineEdit>
#include <QMimeData>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "MainWindow.h"
#include "TestWindow.h"
#include "UiTestSupport.h"
#include "charts/ComparisonTable.h"
#include "charts/OverlayChart.h"
#include "charts/RunChartGrid.h"
#include "charts/RunChartPanel.h"
#include "common/ErrorPresenter.h"
#include "corpus/CorpusPanel.h"
#include "experiment/ExperimentPanel.h"
#include "playground/PlaygroundPanel.h"
#include "runs/RunCollection.h"
#include "runs/RunsPanel.h"
#include "training/DeviceList.h"
#include "training/RunProgressPanel.h"
#include "training/RunScheduler.h"
#include "training/TrainingView.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Devices.h"

using namespace wbui;
using wbuitest::dropFiles;
using wbuitest::waitFor;

using Window = wbuitest::TestWindow;

TEST(MainWindow, DropLoadsCorpus) {
    Window win;
    const QString path = win.write("poems.json", wbtest::quatrainJson(30));
    dropFiles(win.w.get(), {path});
    ASSERT_TRUE(win.w->corpusPanel()->hasCorpus());
    EXPECT_EQ(win.w->corpusPanel()->stats().documents, 30);
    EXPECT_GT(win.w->corpusPanel()->previewRows(), 0);
    EXPECT_EQ(win.w->corpusPanel()->corpusPath(), path);
    EXPECT_EQ(win.w->experimentPanel()->config().data.corpus, path.toStdString());
    EXPECT_EQ(win.w->errors()->errorCount(), 0);
}

namespace {
// A drop as a file manager makes it: the files' URLs and, as text, the URL too (what a text field would
// insert).
void dropLikeAFileManager(QWidget* target, const QString& path) {
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    mime.setText(QUrl::fromLocalFile(path).toString());
    const QPoint pos(target->width() / 2, target->height() / 2);
    QDragEnterEvent enter(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &enter);
    QDragMoveEvent move(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &move);
    QDropEvent drop(QPointF(pos), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &drop);
    wbuitest::waitForCorpusReads(target);
}
}  // namespace

TEST(MainWindow, FilesDroppedOnTextFieldsAndSpinBoxesLoadInsteadOfInsertingTheirUrl) {
    Window win;
    // An editable text field of the playground (the seed box) and a spin box of the experiment page.
    QLineEdit* seed = nullptr;
    for (auto* e : win.w->playground()->findChildren<QLineEdit*>())
        if (!seed && e->acceptDrops() && !e->isReadOnly() &&
            !qobject_cast<QAbstractSpinBox*>(e->parentWidget()))
            seed = e;
    auto* spin = win.w->experimentPanel()->findChild<QSpinBox*>();
    ASSERT_TRUE(seed && spin);  // both accept drops: Qt's default, which inserted "file:///…"
    seed->setText(QStringLiteral("春"));
    const QString path = win.write("poems.json", wbtest::quatrainJson(30));
    dropLikeAFileManager(seed, path);
    EXPECT_TRUE(win.w->corpusPanel()->hasCorpus());
    EXPECT_EQ(win.w->corpusPanel()->corpusPath(), path);
    EXPECT_EQ(seed->text(), QStringLiteral("春"));
    const QString spinText = spin->text();
    const QString other = win.write("pattern.txt", wbtest::patternText(20));
    dropLikeAFileManager(spin, other);
    EXPECT_EQ(win.w->corpusPanel()->corpusPath(), other);
    EXPECT_EQ(spin->text(), spinText);
    EXPECT_EQ(win.w->errors()->errorCount(), 0);

    // A text drag still goes into the field under it.
    seed->clear();
    QMimeData mime;
    mime.setText(QStringLiteral("白日"));
    const QPoint pos(seed->width() / 2, seed->height() / 2);
    QDragEnterEvent enter(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(seed, &enter);
    QDropEvent drop(QPointF(pos), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(seed, &drop);
    EXPECT_EQ(seed->text(), QStringLiteral("白日"));
    EXPECT_EQ(win.w->corpusPanel()->corpusPath(), other);
}

TEST(MainWindow, BadDropShowsErrorAndKeepsPreviousCorpus) {
    Window win;
    const QString good = win.write("good.txt", wbtest::patternText(20));
    dropFiles(win.w.get(), {good});
    ASSERT_TRUE(win.w->corpusPanel()->hasCorpus());
    const QString bad = win.write("bad.txt", std::string("fine first line\nsecond \xff\xfe line\n"));
    dropFiles(win.w.get(), {bad});
    EXPECT_EQ(win.w->errors()->errorCount(), 1);
    EXPECT_TRUE(win.w->errors()->lastError().contains(QStringLiteral("bad.txt")))
        << win.w->errors()->lastError().toStdString();
    EXPECT_TRUE(win.w->errors()->lastError().contains(
        QStringLiteral("good.txt")));  // "the previous corpus … is still loaded"
    EXPECT_EQ(win.w->corpusPanel()->corpusPath(), good);
    EXPECT_EQ(win.w->experimentPanel()->config().data.corpus, good.toStdString());
}

TEST(MainWindow, FirstLaunchWithoutPreparedCorpusShowsHint) {
    Window win;
    win.w->startFirstLaunch();
    EXPECT_FALSE(win.w->corpusPanel()->hasCorpus());
    // The app can prepare it itself: the hint points at the Prepare button, and the box is on the corpus.
    EXPECT_TRUE(
        win.w->corpusPanel()->messageText().contains(QStringLiteral("press Prepare under Ready corpora")))
        << win.w->corpusPanel()->messageText().toStdString();
    EXPECT_TRUE(wbuitest::waitFor(
        [&] { return win.w->corpusPanel()->catalogButtonText() == QStringLiteral("Prepare"); }, 30000));
    EXPECT_EQ(win.w->corpusPanel()->catalogSelection(), QStringLiteral("tang-quatrains-7"));
    EXPECT_EQ(win.w->experimentPanel()->config().task, wb::Task::LanguageModel);
}

TEST(MainWindow, RunWithoutCorpusExplains) {
    Window win;
    EXPECT_FALSE(win.w->launcher()->startRuns());
    EXPECT_TRUE(win.w->errors()->lastError().contains(QStringLiteral("corpus")));
}

TEST(MainWindow, ShortRunPlotsPointsAndFillsComparisonTable) {
    Window win;
    win.prepareTinyRun(10);
    ASSERT_TRUE(win.w->launcher()->startRuns()) << win.w->errors()->lastError().toStdString();
    ASSERT_TRUE(waitFor([&] { return !win.w->launcher()->scheduler()->anyPending(); }, 240000));
    EXPECT_EQ(win.w->errors()->errorCount(), 0) << win.w->errors()->lastError().toStdString();
    ASSERT_EQ(win.w->launcher()->runs()->size(), 1);
    const QString dir = win.w->launcher()->runs()->at(0).key;
    EXPECT_TRUE(wb::isRunFolder(dir.toStdString()));
    // The run read its corpus from its token store, as the CLI does (issue #30), not the app's loaded copy.
    EXPECT_FALSE(wb::loadRunFolder(dir.toStdString()).info.tokenStore.empty());
    win.w->chartGrid()->flush();
    ASSERT_EQ(win.w->chartGrid()->panelCount(), 1);
    EXPECT_GT(win.w->chartGrid()->panel(dir)->pointCount(), 0);
    win.w->overlayChart()->flush();
    EXPECT_GT(win.w->overlayChart()->pointCount(), 0);
    win.w->comparisonTable()->refresh();
    ASSERT_EQ(win.w->comparisonTable()->rows().size(), 1u);
    EXPECT_GT(win.w->comparisonTable()->rows()[0].samplesPerSecond, 0.0);
    EXPECT_DOUBLE_EQ(win.w->comparisonTable()->rows()[0].speedup, 1.0);
    // A character model: its bits per character beside its n-gram baseline's, in the table and the chart.
    const auto& row = win.w->comparisonTable()->rows()[0];
    ASSERT_GT(row.bestValBpc, 0.0);
    ASSERT_GT(row.baselineBpc, 0.0);
    QTableWidget* table = win.w->comparisonTable()->table();
    int bitsColumn = -1;
    for (int c = 0; c < table->columnCount(); ++c)
        if (table->horizontalHeaderItem(c)->text().contains(QStringLiteral("bits/char"))) bitsColumn = c;
    ASSERT_GE(bitsColumn, 0);
    EXPECT_FALSE(table->isColumnHidden(bitsColumn));
    EXPECT_EQ(table->item(0, bitsColumn)->text(),
              QStringLiteral("%1 (%2)").arg(row.bestValBpc, 0, 'f', 3).arg(row.baselineBpc, 0, 'f', 3));
    const auto* panel = win.w->chartGrid()->panel(dir);
    EXPECT_NEAR(panel->baselineLoss(), row.baselineBpc * std::log(2.0), 1e-9);
    EXPECT_TRUE(panel->title().contains(QStringLiteral("5-gram %1").arg(row.baselineBpc, 0, 'f', 3)))
        << panel->title().toStdString();
    EXPECT_TRUE(panel->title().contains(QStringLiteral("bits/char"))) << panel->title().toStdString();
}

// Issue #63: a queued run's row changed its name when the run started (its number came only then). Each run
// is numbered when it is queued, and keeps that number in its row, its chart and its folder.
TEST(MainWindow, AQueuedRunKeepsItsNumberFromQueuedToDone) {
    Window win;
    win.prepareTinyRun(4);
    win.w->deviceList()->setChecked(1, true);
    ASSERT_TRUE(win.w->launcher()->startRuns());
    RunCollection* runs = win.w->launcher()->runs();
    ASSERT_EQ(runs->size(), 2);
    QStringList queued;
    for (int i = 0; i < runs->size(); ++i) queued << runs->at(i).label.section(QStringLiteral(" · "), 0, 0);
    EXPECT_EQ(queued, (QStringList{QStringLiteral("run 1"), QStringLiteral("run 2")}));
    RunProgressPanel* rows = win.w->trainingView()->progress();
    EXPECT_TRUE(rows->rowLabel(runs->at(1).key).contains(QStringLiteral("run 2 · ")));
    ASSERT_TRUE(waitFor([&] { return !win.w->launcher()->scheduler()->anyPending(); }, 240000));
    for (int i = 0; i < runs->size(); ++i) {
        EXPECT_TRUE(runs->at(i).label.startsWith(queued[i] + QStringLiteral(" · ")))
            << runs->at(i).label.toStdString();
        EXPECT_EQ(wb::loadRunFolder(runs->at(i).key.toStdString()).info.number, i + 1);
    }
    EXPECT_TRUE(rows->rowLabel(runs->at(1).key).contains(QStringLiteral("run 2 · ")));
    // Started again: numbered after them.
    ASSERT_TRUE(win.w->launcher()->startRuns());
    EXPECT_TRUE(runs->at(2).label.startsWith(QStringLiteral("run 3 · "))) << runs->at(2).label.toStdString();
    win.w->launcher()->stopAll();
    ASSERT_TRUE(waitFor([&] { return !win.w->launcher()->scheduler()->anyPending(); }, 240000));
}

// Issue #63: the Training tab charted old runs that were ticked for comparison beside this session's. It
// charts the runs trained here; Compare shows them all.
TEST(MainWindow, TheTrainingTabChartsOnlyTheRunsTrainedHere) {
    Window win;
    ASSERT_TRUE(win.w->runsPanel()->openRunFolder(wbuitest::trainedLanguageModelRun()));
    win.w->chartGrid()->flush();
    EXPECT_EQ(win.w->chartGrid()->panelCount(), 0) << "opened to compare, not trained here";
    win.prepareTinyRun(4);
    ASSERT_TRUE(win.w->launcher()->startRuns());
    ASSERT_TRUE(waitFor([&] { return !win.w->launcher()->scheduler()->anyPending(); }, 240000));
    win.w->chartGrid()->flush();
    ASSERT_EQ(win.w->launcher()->runs()->size(), 2);
    EXPECT_EQ(win.w->chartGrid()->panelCount(), 1);
    EXPECT_NE(win.w->chartGrid()->panel(win.w->launcher()->runs()->at(1).key), nullptr);
    win.w->comparisonTable()->refresh();
    EXPECT_EQ(win.w->comparisonTable()->rows().size(), 2u) << "Compare shows both";
}

// Running again compares the new run with the earlier one instead of wiping its charts; View → Clear
// finished runs takes finished runs off the charts, and they stay in the Runs list.
TEST(MainWindow, RunningAgainKeepsTheEarlierRunsCharts) {
    Window win;
    win.prepareTinyRun(4);
    ASSERT_TRUE(win.w->launcher()->startRuns());
    ASSERT_TRUE(waitFor([&] { return !win.w->launcher()->scheduler()->anyPending(); }, 240000));
    const QString first = win.w->launcher()->runs()->at(0).key;
    ASSERT_TRUE(win.w->launcher()->startRuns());
    ASSERT_TRUE(waitFor([&] { return !win.w->launcher()->scheduler()->anyPending(); }, 240000));
    ASSERT_EQ(win.w->launcher()->runs()->size(), 2);
    EXPECT_TRUE(win.w->launcher()->runs()->contains(first));
    win.w->chartGrid()->flush();
    EXPECT_EQ(win.w->chartGrid()->panelCount(), 2);
    EXPECT_NE(win.w->launcher()->runs()->at(0).label,
              win.w->launcher()->runs()->at(1).label);  // two runs on one device, told apart
    // Issue #45: a chart never lingers without its row: the first run's row stays, saying how it ended.
    RunProgressPanel* rows = win.w->trainingView()->progress();
    EXPECT_EQ(rows->rowCount(), 2);
    EXPECT_FALSE(rows->rowLabel(first).isEmpty());
    // Unticked in the Runs list: its chart and its row go together.
    win.w->launcher()->runs()->remove(first);
    EXPECT_EQ(rows->rowCount(), 1);
    EXPECT_TRUE(rows->rowLabel(first).isEmpty());
    win.w->launcher()->clearFinishedRuns();
    EXPECT_EQ(win.w->launcher()->runs()->size(), 0);
    win.w->chartGrid()->flush();
    EXPECT_EQ(win.w->chartGrid()->panelCount(), 0);
    EXPECT_EQ(rows->rowCount(), 0);
    EXPECT_EQ(win.w->runsPanel()->runCount(), 2);
    QApplication::processEvents();  // the finished controllers are deleted later: nothing may point at them
    EXPECT_EQ(win.w->launcher()->scheduler()->controllers().size(), 0);
}

// Resume from the Runs list: a finished 4-step run continues from its checkpoint to 8 steps in the app, its
// chart keeps the first steps and gains the new ones, and run.json says 8.
TEST(MainWindow, AFinishedRunResumesFromTheRunsList) {
    Window win;
    win.prepareTinyRun(4);
    ASSERT_TRUE(win.w->launcher()->startRuns());
    ASSERT_TRUE(waitFor([&] { return !win.w->launcher()->scheduler()->anyPending(); }, 240000));
    const QString dir = win.w->launcher()->runs()->at(0).key;
    ASSERT_EQ(wb::loadRunFolder(dir.toStdString()).info.summary.steps, 4);
    const QColor colour = win.w->launcher()->runs()->at(0).color;
    wbui::ResumeRequest more;
    more.maxSteps = 8;
    ASSERT_TRUE(win.w->launcher()->resumeRun(dir, more)) << win.w->errors()->lastError().toStdString();
    // Issue #35: while it trains again it reads running, not the "completed" of its folder, and keeps its
    // colour on every chart.
    EXPECT_EQ(win.w->runsPanel()->runStatus(dir), QStringLiteral("running"));
    EXPECT_EQ(win.w->launcher()->runs()->at(0).color, colour);
    EXPECT_FALSE(win.w->launcher()->resumeRun(dir, more));  // not twice at once
    ASSERT_TRUE(waitFor([&] { return !win.w->launcher()->scheduler()->anyPending(); }, 240000));
    EXPECT_EQ(win.w->errors()->errorCount(), 1) << win.w->errors()->lastError().toStdString();
    const auto record = wb::loadRunFolder(dir.toStdString());
    EXPECT_EQ(record.info.summary.steps, 8);
    EXPECT_EQ(record.info.status, wb::RunStatus::Completed);
    ASSERT_EQ(win.w->launcher()->runs()->size(), 1);
    std::int64_t first = -1, last = -1;
    for (const auto& r : win.w->launcher()->runs()->at(0).record.metrics)
        if (r.split == "train") {
            if (first < 0) first = r.step;
            last = r.step;
        }
    EXPECT_LE(first, 4);
    EXPECT_EQ(last, 8);
}

// Issue #47: Runs list -> Export model… writes the selected run's network as ONNX with its vocabulary beside
// it and says where and how to run it (what ONNX Runtime computes from it: python/tests/test_onnx.py); a
// folder it cannot write is an error that leaves the run as it was.
TEST(MainWindow, TheRunsListExportsARunAsAnOnnxModel) {
    Window win;
    win.prepareTinyRun(4);
    ASSERT_TRUE(win.w->launcher()->startRuns());
    ASSERT_TRUE(waitFor([&] { return !win.w->launcher()->scheduler()->anyPending(); }, 240000));
    const QString dir = win.w->launcher()->runs()->at(0).key;
    // Issue #45: the run's number, given as it started, names it in its progress row as on its chart.
    EXPECT_TRUE(win.w->trainingView()->progress()->rowLabel(dir).contains(QStringLiteral("run 1 · ")))
        << win.w->trainingView()->progress()->rowLabel(dir).toStdString();
    EXPECT_TRUE(win.w->launcher()->runs()->at(0).label.startsWith(QStringLiteral("run 1 · ")));
    win.w->runsPanel()->setConfirmations(false);
    win.w->runsPanel()->selectRun(dir);
    const wbtest::TempDir out;
    const QString onnx = QString::fromStdString(out.file("tiny.onnx"));
    const int errors = win.w->errors()->errorCount();
    ASSERT_TRUE(win.w->runsPanel()->exportSelectedModel(onnx)) << win.w->errors()->lastError().toStdString();
    EXPECT_GT(QFileInfo(onnx).size(), 1000);
    EXPECT_TRUE(QFileInfo::exists(QString::fromStdString(out.file("tiny.vocab.json"))));
    EXPECT_TRUE(win.w->runsPanel()->lastExportNotice().contains(onnx));
    EXPECT_TRUE(win.w->runsPanel()->lastExportNotice().contains(QStringLiteral("onnxruntime")));
    EXPECT_EQ(win.w->errors()->errorCount(), errors);
    EXPECT_FALSE(win.w->runsPanel()->exportSelectedModel(QStringLiteral("/nonexistent/folder/m.onnx")));
    EXPECT_EQ(win.w->errors()->errorCount(), errors + 1);
    EXPECT_EQ(wb::loadRunFolder(dir.toStdString()).info.status, wb::RunStatus::Completed);
}

TEST(MainWindow, PauseHoldsAndStopEndsTheRun) {
    Window win;
    win.prepareTinyRun(100000);
    ASSERT_TRUE(win.w->launcher()->startRuns());
    RunController* run = win.w->launcher()->scheduler()->controllers().value(0);
    ASSERT_NE(run, nullptr);
    ASSERT_TRUE(waitFor([&] { return run->lastProgress().step > 0; }, 120000));
    win.w->launcher()->pauseAll(true);
    // The worker reports "paused" when it blocks, after the batch in flight: from then on it takes no step,
    // and only then does the run read paused (issue #35: states tell what the worker does, not what was
    // asked).
    ASSERT_TRUE(waitFor([&] { return run->lastProgress().phase == "paused"; }, 60000))
        << "the run never reported that it paused";
    EXPECT_EQ(run->state(), RunController::State::Paused);
    const auto stepPaused = run->lastProgress().step;
    // The row says paused, and shows no ETA ticking meanwhile (issue #45).
    const QString row = win.w->trainingView()->progress()->progressText(run);
    EXPECT_TRUE(row.contains(QStringLiteral("paused at step"))) << row.toStdString();
    EXPECT_FALSE(row.contains(QStringLiteral("ETA"))) << row.toStdString();
    // Events go on being processed (progress and metrics would arrive): none moves the run on. A worker
    // that went on training would report within this window (a progress report at least every 200 ms).
    EXPECT_FALSE(waitFor(
        [&] { return run->lastProgress().step != stepPaused || run->lastProgress().phase != "paused"; },
        1000))
        << "paused at step " << stepPaused << ", now at step " << run->lastProgress().step << " ("
        << run->lastProgress().phase << ")";
    win.w->launcher()->pauseAll(false);
    ASSERT_TRUE(waitFor([&] { return run->lastProgress().step > stepPaused; }, 60000))
        << "the run did not go on";
    EXPECT_EQ(run->state(), RunController::State::Running);
    // Paused again and stopped while paused: the run ends at the step it paused at.
    win.w->launcher()->pauseAll(true);
    ASSERT_TRUE(waitFor([&] { return run->lastProgress().phase == "paused"; }, 60000));
    const auto stepStopped = run->lastProgress().step;
    win.w->launcher()->stopAll();
    ASSERT_TRUE(waitFor([&] { return run->isDone(); }, 60000));
    EXPECT_EQ(run->state(), RunController::State::Stopped);
    ASSERT_TRUE(wb::isRunFolder(run->runDir().toStdString()));
    EXPECT_EQ(wb::loadRunFolder(run->runDir().toStdString()).info.summary.steps, stepStopped);
}

TEST(MainWindow, ClosingMidRunStopsWorkerAndKeepsRunFolder) {
    Window win;
    win.prepareTinyRun(100000);
    ASSERT_TRUE(win.w->launcher()->startRuns());
    RunController* run = win.w->launcher()->scheduler()->controllers().value(0);
    ASSERT_TRUE(waitFor([&] { return run->lastProgress().step >= 3; }, 120000));
    const QString dir = run->runDir();
    win.w->close();  // stops and waits for the worker
    win.w.reset();
    ASSERT_TRUE(wb::isRunFolder(dir.toStdString()));
    const wb::RunRecord record = wb::loadRunFolder(dir.toStdString());
    EXPECT_EQ(record.info.status, wb::RunStatus::Stopped);
    EXPECT_FALSE(record.metrics.empty());
}

TEST(MainWindow, TwoCpuEntriesRunOneAfterAnother) {
    Window win;
    win.prepareTinyRun(6);
    win.w->deviceList()->setChecked(1, true);
    ASSERT_TRUE(win.w->launcher()->startRuns());
    const auto controllers = win.w->launcher()->scheduler()->controllers();
    ASSERT_EQ(controllers.size(), 2);
    EXPECT_TRUE(controllers[0]->isActive());
    EXPECT_EQ(controllers[1]->state(), RunController::State::Queued);
    ASSERT_TRUE(waitFor([&] { return !win.w->launcher()->scheduler()->anyPending(); }, 240000));
    EXPECT_EQ(win.w->launcher()->runs()->size(), 2);
    win.w->comparisonTable()->refresh();
    EXPECT_EQ(win.w->comparisonTable()->rows().size(), 2u);
}

// Issue #12: the distributed engine is one more device to compare, next to the threaded one.
TEST(MainWindow, TheMultiProcessEntryTrainsOverGlooAndItsRunSaysSo) {
    Window win;
    win.prepareTinyRun(8);
    const auto choices = win.w->deviceList()->allChoices();
    ASSERT_EQ(choices.size(), 3u);
    EXPECT_EQ(choices[2].label, QStringLiteral("CPU · 2 processes (Gloo)"));
    EXPECT_EQ(choices[2].device.processes, 2);
    EXPECT_EQ(choices[2].device.threads, 1);
    win.w->deviceList()->setChecked(0, false);
    win.w->deviceList()->setChecked(2, true);
    ASSERT_TRUE(win.w->launcher()->startRuns()) << win.w->errors()->lastError().toStdString();
    const QString key = win.w->launcher()->runs()->at(0).key;
    // Issue #35: once its last record is in, the Runs list reads completed within a second (it once stayed
    // "running · 0 steps" for over a minute).
    ASSERT_TRUE(waitFor([&] { return !win.w->launcher()->scheduler()->anyPending(); }, 240000));
    EXPECT_TRUE(
        waitFor([&] { return win.w->runsPanel()->runStatus(key) == QStringLiteral("completed"); }, 1000))
        << win.w->runsPanel()->runStatus(key).toStdString();
    EXPECT_EQ(win.w->errors()->errorCount(), 0) << win.w->errors()->lastError().toStdString();
    ASSERT_EQ(win.w->launcher()->runs()->size(), 1);
    const auto record = wb::loadRunFolder(win.w->launcher()->runs()->at(0).key.toStdString());
    EXPECT_EQ(record.info.status, wb::RunStatus::Completed);
    EXPECT_EQ(record.info.worldSize, 2);
    EXPECT_EQ(record.info.backend, "gloo");
    EXPECT_EQ(record.config.device.spec.processes, 2);
    EXPECT_EQ(record.info.summary.steps, 8);
    const QString device = RunCollection::deviceLabelFor(win.w->launcher()->runs()->at(0).record);
    EXPECT_NE(device.indexOf(QStringLiteral("2 processes (Gloo)")), -1) << device.toStdString();
    EXPECT_NE(win.w->launcher()->runs()->at(0).label.indexOf(QStringLiteral("2 processes (gloo)")),
              -1)  // in its name too
        << win.w->launcher()->runs()->at(0).label.toStdString();
    win.w->chartGrid()->flush();
    EXPECT_GT(win.w->chartGrid()->panel(win.w->launcher()->runs()->at(0).key)->pointCount(), 0);
}

// Issue #35: Pause All on a run over several processes, which cannot pause (its log says so), left it
// labelled "paused" while it kept training. It reads running, and the toolbar's Pause All is not checked.
TEST(MainWindow, PauseAllOnAMultiProcessRunLeavesItLabelledRunning) {
    Window win;
    win.prepareTinyRun(100000);
    win.w->deviceList()->setChecked(0, false);
    win.w->deviceList()->setChecked(2, true);  // CPU · 2 processes (Gloo)
    ASSERT_TRUE(win.w->launcher()->startRuns()) << win.w->errors()->lastError().toStdString();
    RunController* run = win.w->launcher()->scheduler()->controllers().value(0);
    ASSERT_NE(run, nullptr);
    QStringList log;
    QObject::connect(run, &RunController::logLine, [&](const QString& line) { log << line; });
    ASSERT_TRUE(waitFor([&] { return run->lastProgress().step > 0; }, 120000));
    win.w->launcher()->pauseAll(true);
    // The worker says so when it reaches the request; a progress report it sent before may still be on its
    // way, so the steps are counted from the log line on.
    const auto refused = [&] {
        return std::any_of(log.begin(), log.end(),
                           [](const QString& l) { return l.contains(QStringLiteral("cannot pause")); });
    };
    ASSERT_TRUE(waitFor(refused, 60000)) << log.join(QLatin1Char('\n')).toStdString();
    const auto stepRefused = run->lastProgress().step;
    ASSERT_TRUE(waitFor([&] { return run->lastProgress().step > stepRefused + 2; }, 60000))
        << "a multi-process run goes on training when asked to pause";
    EXPECT_EQ(run->state(), RunController::State::Running);
    EXPECT_FALSE(win.w->launcher()->scheduler()->allPaused());
    // The Runs list says so too, with the steps the worker reports.
    const QString key = run->runDir();
    EXPECT_EQ(win.w->runsPanel()->runStatus(key), QStringLiteral("running"));
    const int index = win.w->launcher()->runs()->indexOf(key);
    ASSERT_GE(index, 0);
    EXPECT_GT(win.w->launcher()->runs()->at(index).record.info.summary.steps, 0);
    // Stop, from the app: every rank stops at one step, and the run is saved as stopped (issue #32).
    win.w->launcher()->stopAll();
    ASSERT_TRUE(waitFor([&] { return run->isDone(); }, 120000));
    EXPECT_EQ(run->state(), RunController::State::Stopped);
    const auto stopped = wb::loadRunFolder(key.toStdString());
    EXPECT_EQ(stopped.info.status, wb::RunStatus::Stopped);
    EXPECT_GT(stopped.info.summary.steps, 0);
    EXPECT_TRUE(
        waitFor([&] { return win.w->runsPanel()->runStatus(key) == QStringLiteral("stopped"); }, 1000))
        << win.w->runsPanel()->runStatus(key).toStdString();
}

TEST(MainWindow, DroppingRunFolderAddsItToComparison) {
    Window win;
    const QString run = wbuitest::trainedLanguageModelRun();
    dropFiles(win.w.get(), {run});
    EXPECT_EQ(win.w->launcher()->runs()->size(), 1);
    EXPECT_FALSE(win.w->corpusPanel()->hasCorpus());
    const QString notRun = QString::fromStdString(win.tmp.file("empty-folder"));
    QDir().mkpath(notRun);
    win.w->openPath(notRun);  // a folder without class sub-folders: the corpus loader says so
    wbuitest::waitForCorpusReads(win.w.get());
    EXPECT_EQ(win.w->errors()->errorCount(), 1);
    EXPECT_FALSE(win.w->corpusPanel()->hasCorpus());
}
