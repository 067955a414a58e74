// The user guide's screenshots (docs/screenshots/guide-*.png), made by driving the app as a person would
// at 1280×800 on the default corpus. Skipped unless LSTM_WORKBENCH_SCREENSHOTS names the folder to write
// them to; the corpus cache must hold tang-quatrains-7 (lstm-workbench-cli prepare tang-quatrains-7):
//
//   LSTM_WORKBENCH_SCREENSHOTS=$PWD/docs/screenshots LSTM_WORKBENCH_DATA=~/.cache/lstm-workbench/corpora \
//     build/bin/ui_tests --gtest_filter='GuideScreenshots.*'
#include <QApplication>
#include <QDir>
#include <QPixmap>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "MainWindow.h"
#include "TestWindow.h"
#include "charts/ComparisonTable.h"
#include "charts/OverlayChart.h"
#include "charts/RunChartGrid.h"
#include "common/ErrorPresenter.h"
#include "common/PageTabs.h"
#include "corpus/CorpusPanel.h"
#include "experiment/ExperimentPanel.h"
#include "help/UserGuide.h"
#include "runs/RunCollection.h"
#include "runs/RunsPanel.h"
#include "support/TestSupport.h"
#include "sweep/SweepPanel.h"
#include "training/DeviceList.h"
#include "training/RunControls.h"
#include "training/RunEstimator.h"
#include "training/RunScheduler.h"
#include "workbench/domain/RunFolder.h"

using namespace wbui;
namespace fs = std::filesystem;

namespace {
void save(MainWindow* window, const QString& folder, const char* name) {
    // What the throttled charts would show a moment later.
    window->overlayChart()->flush();
    window->chartGrid()->flush();
    window->comparisonTable()->refresh();
    QTest::qWait(1000);  // Qt Charts lays its axes out on a later pass (300 ms missed it on a busy machine)
    ASSERT_TRUE(window->grab().save(QDir(folder).filePath(QLatin1String(name)))) << name;
}

// The devices a first launch ticks (DeviceList's default: the fastest CPU entry), not what an earlier test
// saved in the settings: with none ticked, refresh() picks as on a first launch. (setCheckedLabels({}) keeps
// the ticks as they are.)
void tickFirstLaunchDevices(MainWindow* window) {
    for (int i = 0; i < window->deviceList()->count(); ++i) window->deviceList()->setChecked(i, false);
    window->deviceList()->refresh();
}

void save(QWidget* widget, const QString& folder, const char* name) {
    QApplication::processEvents();
    ASSERT_TRUE(widget->grab().save(QDir(folder).filePath(QLatin1String(name)))) << name;
}

// The window filling this screen in the first launch's layout (MainWindow::restoreSettings, whatever earlier
// tests left), shown: the files' name prefix, "window-WxH[@2x]-", in the screen's own pixels.
QString fillTheScreen(MainWindow* w) {
    const QSize screen = w->screen()->availableGeometry().size();
    const qreal scale = w->screen()->devicePixelRatio();
    w->resize(screen);
    const int side = std::clamp(screen.width() / 4, 420, 640);
    w->findChild<QSplitter*>(QStringLiteral("mainSplitter"))->setSizes({side, screen.width() - side});
    w->show();
    return QStringLiteral("window-%1x%2%3-")
        .arg(int(screen.width() * scale))
        .arg(int(screen.height() * scale))
        .arg(scale > 1 ? QStringLiteral("@%1x").arg(scale) : QString());
}
}  // namespace

TEST(GuideScreenshots, TheTourAt1280x800) {
    const QString folder = qEnvironmentVariable("LSTM_WORKBENCH_SCREENSHOTS");
    if (folder.isEmpty()) GTEST_SKIP() << "set LSTM_WORKBENCH_SCREENSHOTS to make them";
    wbuitest::TestWindow win;
    MainWindow* w = win.w.get();
    tickFirstLaunchDevices(w);  // this machine's own devices, ticked as a user's first launch ticks them
    w->resize(1280, 800);
    // The first launch's layout, whatever an earlier test run left in the settings.
    w->findChild<QSplitter*>(QStringLiteral("mainSplitter"))->setSizes({420, 860});
    w->show();
    w->runControls()->setAutoEstimate(true);  // as the app does: the first launch says how long a run takes
    ASSERT_TRUE(w->corpusPanel()->loadPrepared(QStringLiteral("tang-quatrains-7")))
        << "prepare tang-quatrains-7 and point LSTM_WORKBENCH_DATA at the corpus cache";
    wbuitest::waitForCorpusReads(w);
    const QString corpus = w->corpusPanel()->corpusPath();
    QTest::qWait(100);
    ASSERT_TRUE(wbuitest::waitFor([&] { return !w->runControls()->estimator()->busy(); }, 300000));
    w->runControls()->setAutoEstimate(false);
    save(w, folder, "guide-first-launch.png");

    // Two devices at once (not one after another): the comparison then flags that they shared the cores.
    wb::ExperimentConfig config = w->experimentPanel()->config();
    config.data.corpus = corpus.toStdString();
    config.model.embedding = 64;
    config.model.hidden = 128;
    config.train.maxSteps = 240;
    config.train.epochs = 0;
    config.train.validateEvery = 40;
    w->experimentPanel()->setConfig(config);
    w->deviceList()->setSequentialCpu(false);
    w->deviceList()->setChecked(0, true);
    w->deviceList()->setChecked(1, true);
    ASSERT_TRUE(w->launcher()->startRuns()) << w->errors()->lastError().toStdString();
    ASSERT_TRUE(wbuitest::waitFor(
        [&] {
            const auto runs = w->launcher()->scheduler()->controllers();
            return runs.size() == 2 && runs[0]->lastProgress().step > 100 &&
                   runs[1]->lastProgress().step > 100;
        },
        600000));
    save(w, folder, "guide-training.png");
    ASSERT_TRUE(wbuitest::waitFor([&] { return !w->launcher()->scheduler()->anyPending(); }, 600000));
    w->mainTabs()->setCurrentIndex(1);
    w->comparisonTable()->refresh();
    save(w, folder, "guide-compare.png");

    // The Runs list, one run with a long name of its own.
    const QString first = w->launcher()->runs()->at(0).key;
    wb::RunAnnotations names;
    names.name = "quatrains, 2×128 LSTM, one thread — the baseline every other device is measured against";
    names.tags = {"baseline", "cpu"};
    ASSERT_TRUE(w->runsPanel()->annotate(first, names));
    w->sideTabs()->showPage(w->runsPanel());
    save(w, folder, "guide-runs.png");

    // A sweep: two batch sizes on one and two threads.
    w->sideTabs()->showPage(w->experimentPanel());
    SweepPanel* sweep = w->sweepPanel();
    sweep->setAxes({{"batch_size", {"16", "64"}}, {"device", {"cpu:1", "cpu:2"}}});
    sweep->setStepsPerCell(40);
    w->mainTabs()->showPage(sweep);
    ASSERT_TRUE(sweep->start()) << sweep->lastError().toStdString();
    ASSERT_TRUE(wbuitest::waitFor([&] { return sweep->state() == SweepPanel::State::Finished; }, 900000))
        << sweep->lastError().toStdString();
    save(w, folder, "guide-sweep.png");

    UserGuideDialog guide(w);
    guide.resize(1000, 760);
    guide.show();
    save(&guide, folder, "guide-user-guide.png");
}

// The README's two pictures of the Sweep tab: a sweep running (a cell done, one training, the rest queued)
// and the same sweep finished, at the size of the guide's screenshots.
TEST(GuideScreenshots, TheSweepTabRunningAndFinished) {
    const QString folder = qEnvironmentVariable("LSTM_WORKBENCH_SCREENSHOTS");
    if (folder.isEmpty()) GTEST_SKIP() << "set LSTM_WORKBENCH_SCREENSHOTS to make them";
    wbuitest::TestWindow win;
    MainWindow* w = win.w.get();
    tickFirstLaunchDevices(w);
    w->resize(1280, 800);
    w->findChild<QSplitter*>(QStringLiteral("mainSplitter"))->setSizes({420, 860});
    w->show();
    ASSERT_TRUE(w->corpusPanel()->loadPrepared(QStringLiteral("tang-quatrains-7")))
        << "prepare tang-quatrains-7 and point LSTM_WORKBENCH_DATA at the corpus cache";
    wbuitest::waitForCorpusReads(w);
    SweepPanel* sweep = w->sweepPanel();
    sweep->setAxes({{"device", {"cpu:1", "cpu:2"}}, {"batch_size", {"16", "32", "64"}}});
    sweep->setStepsPerCell(40);
    w->mainTabs()->showPage(sweep);
    ASSERT_TRUE(sweep->start()) << sweep->lastError().toStdString();
    const auto cellsIn = [&](const QString& state) {
        int n = 0;
        for (int r = 0; r < sweep->cellTable()->rowCount(); ++r)
            n += sweep->cellTable()->item(r, 1) && sweep->cellTable()->item(r, 1)->text() == state;
        return n;
    };
    ASSERT_TRUE(wbuitest::waitFor(
        [&] { return cellsIn(QStringLiteral("done")) >= 2 && cellsIn(QStringLiteral("running")) == 1; },
        900000));
    save(w, folder, "sweep-during.png");
    ASSERT_TRUE(wbuitest::waitFor([&] { return sweep->state() == SweepPanel::State::Finished; }, 900000))
        << sweep->lastError().toStdString();
    save(w, folder, "sweep-after.png");
}

// Issue #45's screenshots: the window filling this screen (run it under Xvfb at 1024x768, 1280x800, and at
// 1920x1080 with QT_SCALE_FACTOR=2), with a run whose trainer died (it reads "interrupted") in the Runs list
// and a paused sweep in the Sweep tab, then the Compare tab; files window-WxH[@2x]-*.png. The window's
// minimum size must fit the screen in that state.
TEST(GuideScreenshots, TheWindowFillingThisScreen) {
    const QString folder = qEnvironmentVariable("LSTM_WORKBENCH_SCREENSHOTS");
    if (folder.isEmpty()) GTEST_SKIP() << "set LSTM_WORKBENCH_SCREENSHOTS to make them";
    wbuitest::TestWindow win;
    MainWindow* w = win.w.get();
    tickFirstLaunchDevices(w);
    const QSize screen = w->screen()->availableGeometry().size();
    const QString prefix = fillTheScreen(w);
    ASSERT_TRUE(w->corpusPanel()->loadPrepared(QStringLiteral("tang-quatrains-7")))
        << "prepare tang-quatrains-7 and point LSTM_WORKBENCH_DATA at the corpus cache";
    wbuitest::waitForCorpusReads(w);

    // A run whose process died mid-training: run.json still says running, nobody holds its lock.
    const fs::path crashed = win.tmp.path() / "runs" / "20261126-231500-cpu-2";
    fs::create_directories(crashed.parent_path());
    fs::copy(wbuitest::trainedLanguageModelRun().toStdString(), crashed, fs::copy_options::recursive);
    auto info = wb::RunInfo::fromJson(wb::readFile((crashed / "run.json").string()), "run.json");
    info.status = wb::RunStatus::Running;
    info.endedAt.clear();
    wbtest::writeText(crashed / "run.json", info.toJson());
    w->runsPanel()->refresh();
    w->sideTabs()->showPage(w->runsPanel());

    // A sweep paused after its first cell.
    SweepPanel* sweep = w->sweepPanel();
    sweep->setAxes({{"device", {"cpu:1", "cpu:2"}}, {"batch_size", {"16", "32"}}});
    sweep->setStepsPerCell(30);
    w->mainTabs()->showPage(sweep);
    ASSERT_TRUE(sweep->start(QString::fromStdString(win.tmp.file("sweep"))))
        << sweep->lastError().toStdString();
    ASSERT_TRUE(wbuitest::waitFor([&] { return sweep->cellTable()->rowCount() > 0; }, 240000));
    sweep->pause();
    ASSERT_TRUE(wbuitest::waitFor(
        [&] {
            return sweep->state() == SweepPanel::State::Stopped ||
                   sweep->state() == SweepPanel::State::Finished;
        },
        600000));
    ASSERT_EQ(sweep->state(), SweepPanel::State::Stopped) << sweep->lastError().toStdString();
    QApplication::processEvents();
    EXPECT_LE(w->minimumSizeHint().width(), screen.width());
    EXPECT_LE(w->minimumSizeHint().height(), screen.height());
    save(w, folder, (prefix + QStringLiteral("runs-and-paused-sweep.png")).toUtf8().constData());

    ASSERT_TRUE(w->runsPanel()->openRunFolder(QString::fromStdString(crashed.string())));
    w->mainTabs()->setCurrentIndex(1);
    w->comparisonTable()->refresh();
    EXPECT_LE(w->minimumSizeHint().width(), screen.width());
    save(w, folder, (prefix + QStringLiteral("compare.png")).toUtf8().constData());
}

// Issue #63's screenshots: two runs of the default experiment that differ only by device (one CPU thread,
// two), trained here for a few steps, on the window filling this screen (run it under Xvfb at 1024x768,
// 1280x800, and at 1920x1080 with QT_SCALE_FACTOR=2): the Training tab's chart titles and the Runs list, then
// Compare's legends and throughput bars, each keeping the device that tells the runs apart. Files
// window-WxH[@2x]-two-devices-{training,compare}.png.
TEST(GuideScreenshots, TwoRunsThatDifferOnlyByDevice) {
    const QString folder = qEnvironmentVariable("LSTM_WORKBENCH_SCREENSHOTS");
    if (folder.isEmpty()) GTEST_SKIP() << "set LSTM_WORKBENCH_SCREENSHOTS to make them";
    wbuitest::TestWindow win;
    MainWindow* w = win.w.get();
    const QString prefix = fillTheScreen(w) + QStringLiteral("two-devices-");
    ASSERT_TRUE(w->corpusPanel()->loadPrepared(QStringLiteral("tang-quatrains-7")))
        << "prepare tang-quatrains-7 and point LSTM_WORKBENCH_DATA at the corpus cache";
    wbuitest::waitForCorpusReads(w);
    wb::ExperimentConfig config = w->experimentPanel()->config();
    config.train.maxSteps = 40;
    config.train.validateEvery = 10;
    config.train.lrWarmupSteps = 5;
    w->experimentPanel()->setConfig(config);
    w->deviceList()->setCheckedLabels({QStringLiteral("CPU · 1 thread"), QStringLiteral("CPU · 2 threads")});
    ASSERT_EQ(w->deviceList()->checkedLabels().size(), 2);
    ASSERT_TRUE(w->launcher()->startRuns()) << w->errors()->lastError().toStdString();
    ASSERT_TRUE(wbuitest::waitFor([&] { return !w->launcher()->scheduler()->anyPending(); }, 600000));
    w->runsPanel()->refresh();
    w->sideTabs()->showPage(w->runsPanel());
    w->mainTabs()->setCurrentIndex(0);
    save(w, folder, (prefix + QStringLiteral("training.png")).toUtf8().constData());
    w->mainTabs()->setCurrentIndex(1);
    save(w, folder, (prefix + QStringLiteral("compare.png")).toUtf8().constData());
}
