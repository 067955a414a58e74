// Issue #35: the window never needs more width than a 1280-pixel screen, whatever it shows: long run
// names, many runs, a sweep in a folder with a long path (that one made it 1807 px wide, and it could not be
// narrowed again until the app was reopened).
#include <QApplication>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>

#include <gtest/gtest.h>

#include "MainWindow.h"
#include "TestWindow.h"
#include "common/PageTabs.h"
#include "runs/RunCollection.h"
#include "sweep/SweepPanel.h"
#include "training/RunLauncher.h"

#include <QTableWidget>

using namespace wbui;

namespace {
constexpr int kScreenWidth = 1280;

int minimumWidth(QWidget* window) {
    QApplication::processEvents();
    return window->minimumSizeHint().width();
}
}  // namespace

TEST(MainWindowLayout, TheMinimumWidthFitsA1280PixelScreenInEveryState) {
    wbuitest::TestWindow win;
    win.w->show();
    EXPECT_LE(minimumWidth(win.w.get()), kScreenWidth) << "at start";

    // Many runs with long names, on the charts, the comparison table and the throughput bars.
    for (int i = 0; i < 12; ++i) {
        RunEntry e;
        e.key = QStringLiteral("/runs/a-run-with-a-long-folder-name-%1").arg(i);
        e.record.annotations.name =
            "tang-quatrains-7 language model · cpu · 2 threads · bf16 · a name a "
            "person gave it that goes on and on · " +
            std::to_string(i);
        for (std::int64_t step = 1; step <= 3; ++step) {
            wb::MetricRecord r;
            r.step = step;
            r.split = "train";
            r.metric = "loss";
            r.value = 3.0 / double(step);
            e.record.metrics.push_back(r);
        }
        e.record.info.summary.samplesPerSecond = 100 + i;
        win.w->launcher()->runs()->add(std::move(e));
    }
    for (int tab = 0; tab < win.w->mainTabs()->count(); ++tab) {
        win.w->mainTabs()->setCurrentIndex(tab);
        EXPECT_LE(minimumWidth(win.w.get()), kScreenWidth) << "many runs, tab " << tab;
    }

    // A sweep in a folder whose path is longer than the screen is wide.
    win.prepareTinyRun(4);
    QString deep = QString::fromStdString(win.tmp.file("sweeps"));
    for (int i = 0; i < 8; ++i) deep += QStringLiteral("/a-folder-with-a-rather-long-name-%1").arg(i);
    SweepPanel* sweep = win.w->sweepPanel();
    sweep->setAxes({{"batch_size", {"4"}}});
    sweep->setStepsPerCell(2);
    win.w->mainTabs()->showPage(sweep);
    ASSERT_TRUE(sweep->start(deep)) << sweep->lastError().toStdString();
    EXPECT_LE(minimumWidth(win.w.get()), kScreenWidth) << "sweep running";
    ASSERT_TRUE(wbuitest::waitFor([&] { return sweep->state() == SweepPanel::State::Finished; }, 240000))
        << sweep->lastError().toStdString();
    EXPECT_LE(minimumWidth(win.w.get()), kScreenWidth) << "sweep finished";
}

// Issue #45: at 1024×768, and on a 1920×1080 screen at scale factor 2 (960×540 in the pixels widgets are
// laid out in), the window's minimum size fits the screen in every state a person reaches: long names on
// every tab, a sweep paused (its longest progress line), Compare and the Playground. Long text elides, panes
// scroll.
TEST(MainWindowLayout, TheMinimumSizeFitsA960By540ScreenInEveryState) {
    constexpr QSize kScreen(960, 540);
    wbuitest::TestWindow win;
    win.w->show();
    const auto fits = [&](const char* state) {
        QApplication::processEvents();
        const QSize minimum = win.w->minimumSizeHint().expandedTo(win.w->minimumSize());
        EXPECT_LE(minimum.width(), kScreen.width()) << state;
        EXPECT_LE(minimum.height(), kScreen.height()) << state;
    };
    for (int tab = 0; tab < win.w->mainTabs()->count(); ++tab) {
        win.w->mainTabs()->setCurrentIndex(tab);
        fits("at start");
    }
    for (int i = 0; i < 12; ++i) {
        RunEntry e;
        e.key = QStringLiteral("/runs/a-run-with-a-long-folder-name-%1").arg(i);
        e.record.annotations.name =
            "tang-quatrains-7 language model · cpu · 2 threads · bf16 · a long name " + std::to_string(i);
        wb::MetricRecord r;
        r.step = 1;
        r.split = "train";
        r.metric = "loss";
        r.value = 3.0;
        e.record.metrics.push_back(r);
        win.w->launcher()->runs()->add(std::move(e));
    }
    for (int tab = 0; tab < win.w->mainTabs()->count(); ++tab) {
        win.w->mainTabs()->setCurrentIndex(tab);
        fits("many runs with long names");
    }
    win.prepareTinyRun(4);
    SweepPanel* sweep = win.w->sweepPanel();
    sweep->setAxes({{"hidden", {"8", "12", "16"}}});
    sweep->setStepsPerCell(30);
    win.w->mainTabs()->showPage(sweep);
    ASSERT_TRUE(sweep->start(QString::fromStdString(win.tmp.file("sweep"))))
        << sweep->lastError().toStdString();
    ASSERT_TRUE(wbuitest::waitFor([&] { return sweep->cellTable()->rowCount() > 0; }, 240000));
    sweep->pause();
    fits("sweep pausing");
    ASSERT_TRUE(wbuitest::waitFor([&] { return sweep->state() == SweepPanel::State::Stopped; }, 240000));
    fits("sweep paused");
}

// A window saved larger than the screen it opens on (another monitor, a larger scale factor) opens within it.
TEST(MainWindowLayout, ASavedGeometryLargerThanTheScreenIsClampedToIt) {
    QSettings settings;
    {
        MainWindow big;
        big.resize(4000, 3000);
        settings.setValue(QStringLiteral("window/geometry"), big.saveGeometry());
    }
    MainWindow w;
    settings.remove(QStringLiteral("window/geometry"));
    const QSize screen = w.screen()->availableGeometry().size();
    EXPECT_LE(w.width(), screen.width());
    EXPECT_LE(w.height(), screen.height());
}

// Issue #45: the Runs list read "tang-quatr…1-27 00:13" at 1920 px, the side pane staying at 420 px whatever
// the window's width. It now takes a quarter of what the window gains.
TEST(MainWindowLayout, TheSidePaneGrowsWithAWideWindow) {
    QSettings().remove(QStringLiteral("window/splitter"));
    MainWindow w;
    auto* splitter = w.findChild<QSplitter*>(QStringLiteral("mainSplitter"));
    ASSERT_NE(splitter, nullptr);
    w.resize(1280, 800);
    w.show();
    QApplication::processEvents();
    const int narrow = splitter->sizes().at(0);
    w.resize(1920, 1000);
    QApplication::processEvents();
    const int wide = splitter->sizes().at(0);
    EXPECT_GE(narrow, 420);
    EXPECT_GE(wide - narrow, (1920 - 1280) / 5) << narrow << " -> " << wide;
}
