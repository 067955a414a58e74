// Issue #35: the window never needs more width than a 1280-pixel screen, whatever it shows: long run
// names, many runs, a sweep in a folder with a long path (that one made it 1807 px wide, and it could not be
// narrowed again until the app was reopened).
#include <QApplication>
#include <QTabWidget>

#include <gtest/gtest.h>

#include "MainWindow.h"
#include "TestWindow.h"
#include "runs/RunCollection.h"
#include "sweep/SweepPanel.h"
#include "training/RunLauncher.h"

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
    win.w->mainTabs()->setCurrentWidget(sweep);
    ASSERT_TRUE(sweep->start(deep)) << sweep->lastError().toStdString();
    EXPECT_LE(minimumWidth(win.w.get()), kScreenWidth) << "sweep running";
    ASSERT_TRUE(wbuitest::waitFor([&] { return sweep->state() == SweepPanel::State::Finished; }, 240000))
        << sweep->lastError().toStdString();
    EXPECT_LE(minimumWidth(win.w.get()), kScreenWidth) << "sweep finished";
}
