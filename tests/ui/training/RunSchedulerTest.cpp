// RunScheduler and RunController without a window: a queued run that is stopped never starts, and a
// controller destroyed mid-run stops and joins its thread.
#include <gtest/gtest.h>

#include "UiTestSupport.h"
#include "training/RunScheduler.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/RunFolder.h"

using namespace wbui;

TEST(RunScheduler, StoppedQueuedRunNeverStarts) {
    wbtest::TempDir tmp;
    wbtest::writeText(tmp.file("p.txt"), wbtest::patternText(100));
    auto corpus = std::make_shared<wb::Corpus>(wb::loadCorpus(tmp.file("p.txt")));
    const auto config = wbuitest::tinyConfig(wb::Task::LanguageModel, tmp.file("p.txt"), 100000);
    RunScheduler scheduler;
    auto* first =
        new RunController(config, QString::fromStdString(tmp.file("a")), QStringLiteral("a"), corpus);
    auto* second =
        new RunController(config, QString::fromStdString(tmp.file("b")), QStringLiteral("b"), corpus);
    scheduler.submit(first);
    scheduler.submit(second);
    EXPECT_TRUE(first->isActive());
    EXPECT_EQ(second->state(), RunController::State::Queued);
    scheduler.stopAll();
    ASSERT_TRUE(wbuitest::waitFor([&] { return !scheduler.anyPending(); }, 120000));
    EXPECT_EQ(second->state(), RunController::State::Stopped);
    EXPECT_FALSE(wb::isRunFolder(tmp.file("b")));
}

TEST(RunController, DestructorStopsAndJoins) {
    wbtest::TempDir tmp;
    wbtest::writeText(tmp.file("p.txt"), wbtest::patternText(100));
    auto corpus = std::make_shared<wb::Corpus>(wb::loadCorpus(tmp.file("p.txt")));
    const auto config = wbuitest::tinyConfig(wb::Task::LanguageModel, tmp.file("p.txt"), 100000);
    {
        RunController run(config, QString::fromStdString(tmp.file("r")), QStringLiteral("r"), corpus);
        run.start();
        ASSERT_TRUE(wbuitest::waitFor([&] { return run.lastProgress().step >= 2; }, 120000));
    }
    ASSERT_TRUE(wb::isRunFolder(tmp.file("r")));
    EXPECT_EQ(wb::loadRunFolder(tmp.file("r")).info.status, wb::RunStatus::Stopped);
}
