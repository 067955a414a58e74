// Issue #35: the first launch did not say how long the default experiment would take. The run controls
// estimate the ticked runs (RunEstimator: the CLI's planner times a few steps in a child process): by
// themselves when the app loads a corpus, on demand after a change, never while runs train.
#include <gtest/gtest.h>

#include "TestWindow.h"
#include "support/TestSupport.h"
#include "training/RunControls.h"
#include "training/RunEstimator.h"
#include "training/RunScheduler.h"

using namespace wbui;
using wbuitest::waitFor;

namespace {

bool waitForEstimate(RunControls* controls) {
    return waitFor([&] { return !controls->estimator()->busy(); }, 120000);
}

}  // namespace

TEST(RunEstimate, SaysHowLongTheTickedRunsTakeAndWhenTheExperimentChanged) {
    wbuitest::TestWindow win;
    win.prepareTinyRun(40);
    RunControls* controls = win.w->runControls();
    EXPECT_TRUE(controls->estimateText().isEmpty()) << "tests load corpora without estimating";
    ASSERT_TRUE(controls->estimate());
    EXPECT_TRUE(controls->estimator()->busy());
    ASSERT_TRUE(waitForEstimate(controls));
    EXPECT_TRUE(controls->estimateText().startsWith(QStringLiteral("About ")))
        << controls->estimateText().toStdString();
    EXPECT_TRUE(controls->estimateText().contains(QStringLiteral("on the ticked device")))
        << controls->estimateText().toStdString();

    // Another device ticked: the estimate no longer holds, and says so.
    win.w->deviceList()->setChecked(1, true);
    EXPECT_TRUE(controls->estimateText().contains(QStringLiteral("changed")))
        << controls->estimateText().toStdString();
    ASSERT_TRUE(controls->estimate());
    ASSERT_TRUE(waitForEstimate(controls));
    EXPECT_TRUE(
        controls->estimateText().contains(QStringLiteral("for the 2 ticked devices, one after another")))
        << controls->estimateText().toStdString();
    // Setting the same experiment again changes nothing it would train: the estimate stays.
    win.w->experimentPanel()->setConfig(win.w->experimentPanel()->config());
    EXPECT_TRUE(controls->estimateText().startsWith(QStringLiteral("About ")))
        << controls->estimateText().toStdString();
}

TEST(RunEstimate, TheAppEstimatesALoadedCorpusAtOnce) {
    wbuitest::TestWindow win;
    win.w->runControls()->setAutoEstimate(true);
    const QString corpus = win.write("pattern.txt", wbtest::patternText(200));
    win.w->experimentPanel()->setConfig(
        wbuitest::tinyConfig(wb::Task::LanguageModel, corpus.toStdString(), 40));  // as restored at launch
    win.w->deviceList()->setChecked(0, true);
    win.w->deviceList()->setChecked(1, false);
    RunControls* controls = win.w->runControls();
    EXPECT_TRUE(controls->estimateText().isEmpty());
    ASSERT_TRUE(win.w->openPath(corpus));
    ASSERT_TRUE(waitFor([&] { return controls->estimator()->busy(); }, 10000))
        << "the corpus is estimated at once";
    ASSERT_TRUE(waitForEstimate(controls));
    EXPECT_TRUE(controls->estimateText().startsWith(QStringLiteral("About ")))
        << controls->estimateText().toStdString();
}

TEST(RunEstimate, StartingTheRunsStopsTheEstimate) {
    wbuitest::TestWindow win;
    win.prepareTinyRun(100000);
    RunControls* controls = win.w->runControls();
    ASSERT_TRUE(controls->estimate());
    ASSERT_TRUE(win.w->launcher()->startRuns());
    EXPECT_FALSE(controls->estimator()->busy()) << "its timing and the runs' would share the cores";
    EXPECT_TRUE(controls->estimateText().contains(QStringLiteral("stopped")))
        << controls->estimateText().toStdString();
    EXPECT_FALSE(controls->estimate()) << "not while runs train";
    EXPECT_FALSE(controls->estimator()->busy());
    win.w->launcher()->stopAll();
    ASSERT_TRUE(waitFor([&] { return !win.w->launcher()->scheduler()->anyPending(); }, 120000));
}

TEST(RunEstimate, WithoutACorpusItSaysWhy) {
    wbuitest::TestWindow win;
    RunControls* controls = win.w->runControls();
    EXPECT_FALSE(controls->estimate());
    EXPECT_TRUE(controls->estimateText().startsWith(QStringLiteral("No estimate: ")))
        << controls->estimateText().toStdString();
    EXPECT_FALSE(controls->estimator()->busy());
}

// Issue #45: the automatic estimate of a 300 MB file wrote a 627 MB token store without a word. Above a size
// (64 MiB in the app; 1 KiB here), the line says that the corpus is read into a token store first.
TEST(RunEstimate, ALargeCorpusIsSaidToBeReadIntoATokenStoreFirst) {
    wbtest::TempDir tmp;
    wbtest::writeText(tmp.path() / "big.txt", std::string(4096, 'a'));
    wbtest::writeText(tmp.path() / "small.txt", std::string(100, 'a'));
    wb::ExperimentConfig run;
    run.data.corpus = tmp.file("small.txt");
    const QString small = RunControls::estimatingText({run}, 1024);
    EXPECT_EQ(small.indexOf(QStringLiteral("token store")), -1) << small.toStdString();
    run.data.corpus = tmp.file("big.txt");
    const QString big = RunControls::estimatingText({run}, 1024);
    EXPECT_NE(big.indexOf(QStringLiteral("big.txt")), -1) << big.toStdString();
    EXPECT_NE(big.indexOf(QStringLiteral("token store")), -1) << big.toStdString();
    run.data.corpus =
        "tang-quatrains-7";  // a prepared corpus's name, not a file: its store is made on preparing
    EXPECT_EQ(RunControls::estimatingText({run}, 1).indexOf(QStringLiteral("token store")), -1);
}
