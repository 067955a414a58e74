// The trainer end to end on tiny synthetic corpora: it learns, it validates, it resumes exactly, it stops
// within a batch, it refuses bad input without leaving files, and it stops on a NaN loss keeping the last
// good checkpoint.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "support/TestSupport.h"
#include "support/TinyExperiments.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Training.h"

using namespace wb;
namespace fs = std::filesystem;

namespace {
using wbtest::tinyClassifier;
ExperimentConfig tinyLm(const std::string& corpus) { return wbtest::tinyLanguageModel(corpus); }

std::vector<double> trainLosses(const std::string& runDir) {
    std::vector<double> out;
    for (const auto& r : seriesOf(loadRunFolder(runDir).metrics, "train", "loss")) out.push_back(r.value);
    return out;
}
}  // namespace

TEST(TrainingJob, LanguageModelLearnsAPatternWellBelowUnigramEntropy) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(120));
    TrainingJob job(tinyLm(dir.file("pattern.txt")), dir.file("run"));
    const auto summary = job.run();
    EXPECT_EQ(job.status(), RunStatus::Completed);
    EXPECT_EQ(summary.steps, 120);
    // 8 letters and a newline, nearly uniform: unigram entropy is about ln 9 = 2.2 nats.
    EXPECT_LT(summary.finalTrainLoss, 0.5);
    EXPECT_GT(summary.bestValLoss, 0);
    EXPECT_LT(summary.bestValLoss, 0.5);
    EXPECT_GT(summary.samplesPerSecond, 0);
    const auto run = loadRunFolder(dir.file("run"));
    EXPECT_TRUE(run.hasCheckpoint);
    EXPECT_EQ(run.info.status, RunStatus::Completed);
    EXPECT_FALSE(seriesOf(run.metrics, "val", "loss").empty());
    EXPECT_FALSE(seriesOf(run.metrics, "speed", "samples_per_s").empty());
    for (const char* f : {"config.json", "run.json", "metrics.csv", "vocab.json", "model.safetensors",
                          "optimizer.safetensors"})
        EXPECT_TRUE(fs::exists(dir.path() / "run" / f)) << f;
}

TEST(TrainingJob, ClassifierReachesHighAccuracyOnSeparableText) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "reviews.tsv", wbtest::separableTsv(400));
    TrainingJob job(tinyClassifier(dir.file("reviews.tsv")), dir.file("run"));
    const auto summary = job.run();
    EXPECT_GT(summary.bestValAccuracy, 0.95);
    EXPECT_EQ(job.classCount(), 2);
}

TEST(TrainingJob, ResumedRunRepeatsTheUninterruptedLossSequence) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(60));
    auto config = tinyLm(dir.file("pattern.txt"));
    config.model.dropout = 0.2;  // dropout draws random numbers: the resume must reproduce them too
    config.model.layers = 2;
    config.train.maxSteps = 24;
    config.train.logEvery = 1;
    TrainingJob whole(config, dir.file("whole"));
    whole.run();

    auto firstHalf = config;
    firstHalf.train.maxSteps = 11;  // not at an epoch boundary
    TrainingJob part(firstHalf, dir.file("part"));
    part.run();
    auto rest = TrainingJob::resume(dir.file("part"), 0, 24);
    rest->run();

    const auto a = trainLosses(dir.file("whole")), b = trainLosses(dir.file("part"));
    ASSERT_EQ(a.size(), 24u);
    ASSERT_EQ(b.size(), 24u);
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_DOUBLE_EQ(a[i], b[i]) << "step " << i + 1;
}

// A stop inside a train-loss window (--log-every 4, stopped after step 1, 2 or 3 of one): the checkpoint
// keeps the window's sum, the resumed run finishes it, and every record is the uninterrupted run's, digit for
// digit (none at the stop's step).
TEST(TrainingJob, AStopInsideALossWindowResumesToTheUninterruptedRecords) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(60));
    auto config = tinyLm(dir.file("pattern.txt"));
    config.model.dropout = 0.2;
    config.train.maxSteps = 24;
    config.train.logEvery = 4;
    TrainingJob whole(config, dir.file("whole"));
    whole.run();

    TrainingJob part(config, dir.file("part"));
    TrainingCallbacks cb;
    std::int64_t stoppedAt = -1;
    cb.onProgress = [&](const TrainingProgress& p) {
        if (p.phase == "training" && p.step % 4 != 0 && stoppedAt < 0) {
            stoppedAt = p.step;
            part.requestStop();
        }
    };
    part.run(cb);
    ASSERT_EQ(part.status(), RunStatus::Stopped);
    ASSERT_GT(stoppedAt, 0);
    ASSERT_NE(stoppedAt % 4, 0) << "stopped inside a window";
    EXPECT_EQ(loadRunFolder(dir.file("part")).info.summary.steps, stoppedAt);
    auto rest = TrainingJob::resume(dir.file("part"));
    rest->run();

    const auto a = trainLosses(dir.file("whole")), b = trainLosses(dir.file("part"));
    ASSERT_GE(a.size(), 6u);  // every 4 steps, and at each epoch's end
    ASSERT_EQ(b.size(), a.size()) << "no record at the stop's step";
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << "record " << i + 1;
}

// A stop that comes as a validation starts drops it (the stop does not wait for a whole validation); the
// resumed run validates at that step first, so its validation records are the uninterrupted run's.
TEST(TrainingJob, AStopDuringAValidationResumesWithThatValidation) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(60));
    auto config = tinyLm(dir.file("pattern.txt"));
    config.train.maxSteps = 12;
    config.train.logEvery = 1;
    config.train.validateEvery = 4;
    TrainingJob whole(config, dir.file("whole"));
    whole.run();

    TrainingJob part(config, dir.file("part"));
    TrainingCallbacks cb;
    std::int64_t stoppedAt = -1;
    cb.onProgress = [&](const TrainingProgress& p) {
        if (p.phase == "validating" && stoppedAt < 0) {
            stoppedAt = p.step;
            part.requestStop();
        }
    };
    part.run(cb);
    ASSERT_EQ(part.status(), RunStatus::Stopped);
    ASSERT_EQ(stoppedAt, 4);
    TrainingJob::resume(dir.file("part"))->run();

    const auto records = [](const std::string& run) {
        std::vector<std::pair<std::string, double>> out;
        for (const auto& r : loadRunFolder(run).metrics)
            if (r.metric == "loss") out.emplace_back(std::to_string(r.step) + " " + r.split, r.value);
        return out;
    };
    EXPECT_EQ(records(dir.file("part")), records(dir.file("whole")));
}

TEST(TrainingJob, StopRequestEndsTheRunWithinOneBatchAndKeepsACheckpoint) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(120));
    auto config = tinyLm(dir.file("pattern.txt"));
    config.train.maxSteps = 100000;
    config.train.logEvery = 1;
    TrainingJob job(config, dir.file("run"));
    TrainingCallbacks cb;
    std::int64_t stoppedAt = -1;
    cb.onMetrics = [&](const std::vector<MetricRecord>& records) {
        for (const auto& r : records)
            if (r.split == "train" && r.metric == "loss" && r.step == 5 && stoppedAt < 0) {
                stoppedAt = r.step;
                job.requestStop();
            }
    };
    const auto summary = job.run(cb);
    EXPECT_EQ(job.status(), RunStatus::Stopped);
    EXPECT_EQ(summary.steps, stoppedAt);
    const auto run = loadRunFolder(dir.file("run"));
    EXPECT_EQ(run.info.status, RunStatus::Stopped);
    EXPECT_TRUE(run.hasCheckpoint);
}

TEST(TrainingJob, StopFromAnotherThreadAndPauseWork) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(120));
    auto config = tinyLm(dir.file("pattern.txt"));
    config.train.maxSteps = 1000000;
    config.train.logEvery = 1;  // a train-loss record after every step: a step taken while paused shows
    TrainingJob job(config, dir.file("run"));
    std::mutex mutex;
    std::condition_variable changed;
    std::int64_t step = 0, pausedAt = -1, lastRecordStep = 0;
    TrainingCallbacks cb;
    cb.onProgress = [&](const TrainingProgress& p) {
        std::lock_guard<std::mutex> lock(mutex);
        step = p.step;
        // Reported by the worker itself when it blocks (TrainingSession::waitWhilePaused): the observable
        // paused state.
        if (p.phase == "paused" && pausedAt < 0) pausedAt = p.step;
        changed.notify_all();
    };
    cb.onMetrics = [&](const std::vector<MetricRecord>& records) {
        std::lock_guard<std::mutex> lock(mutex);
        for (const auto& r : records) lastRecordStep = std::max(lastRecordStep, r.step);
        changed.notify_all();
    };
    RunSummary summary;
    std::thread worker([&] { summary = job.run(cb); });
    // A failed assertion returns early: the worker must still end before the thread object goes.
    struct StopAndJoin {
        TrainingJob& job;
        std::thread& worker;
        ~StopAndJoin() {
            job.requestStop();
            if (worker.joinable()) worker.join();
        }
    } stopAndJoin{job, worker};
    {
        std::unique_lock<std::mutex> lock(mutex);
        // Hang guards: each wait fails loudly after a minute instead of blocking the suite.
        ASSERT_TRUE(changed.wait_for(lock, std::chrono::seconds(60), [&] { return step >= 3; }));
        job.setPaused(true);
        ASSERT_TRUE(changed.wait_for(lock, std::chrono::seconds(60), [&] { return pausedAt >= 0; }))
            << "the run never reported that it paused";
        // Paused: no step is taken and no record arrives, however long we look. A worker that went on
        // would send a train-loss record per step within this window.
        EXPECT_FALSE(changed.wait_for(lock, std::chrono::milliseconds(300),
                                      [&] { return step != pausedAt || lastRecordStep > pausedAt; }))
            << "paused at step " << pausedAt << ", now at step " << step << " (records up to "
            << lastRecordStep << ")";
    }
    // Stopped while paused: the run ends at the step it paused at, no batch after it.
    job.requestStop();
    worker.join();  // the pause wait wakes on a stop
    EXPECT_EQ(job.status(), RunStatus::Stopped);
    EXPECT_EQ(summary.steps, pausedAt);
}

TEST(TrainingJob, BadInputThrowsAndLeavesNoRunFolder) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(10));
    auto config = tinyLm(dir.file("pattern.txt"));
    config.model.hidden = 0;
    EXPECT_THROW(TrainingJob(config, dir.file("run")), InputError);
    config = tinyLm(dir.file("pattern.txt"));
    config.data.seqLen = 5000;  // longer than the corpus
    EXPECT_THROW(TrainingJob(config, dir.file("run")), InputError);
    config = tinyLm(dir.file("missing.txt"));
    EXPECT_THROW(TrainingJob(config, dir.file("run")), InputError);
    config = tinyLm(dir.file("pattern.txt"));
    config.task = Task::Classifier;  // unlabelled text for a classifier
    EXPECT_THROW(TrainingJob(config, dir.file("run")), InputError);
    EXPECT_FALSE(fs::exists(dir.path() / "run"));
}

TEST(TrainingJob, NanLossStopsTheRunAndKeepsTheLastGoodCheckpoint) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(120));
    auto config = tinyLm(dir.file("pattern.txt"));
    config.train.maxSteps = 10;
    config.train.logEvery = 1;
    TrainingJob(config, dir.file("run")).run();  // a good checkpoint at step 10

    // Resumed with an absurd learning rate, the weights overflow and the loss turns NaN within a few steps.
    auto diverging = TrainingJob::resume(dir.file("run"), 0, 40, 1e38);
    try {
        diverging->run();
        FAIL() << "a learning rate of 1e38 did not blow up";
    } catch (const TrainingError& e) {
        EXPECT_NE(std::string(e.what()).find("lower the learning rate"), std::string::npos) << e.what();
    }
    auto run = loadRunFolder(dir.file("run"));
    EXPECT_EQ(run.info.status, RunStatus::Failed);
    EXPECT_NE(run.info.error.find("NaN"), std::string::npos) << run.info.error;
    const auto model = wbtest::readText(dir.path() / "run" / "model.safetensors");
    EXPECT_NE(model.find("\"step\":\"10\""), std::string::npos);  // still the good checkpoint

    // The cure the message suggests works: resume from the good checkpoint with a sane rate.
    auto cured = TrainingJob::resume(dir.file("run"), 0, 15, 1e-2);
    EXPECT_EQ(cured->run().steps, 15);
    EXPECT_EQ(loadRunFolder(dir.file("run")).info.status, RunStatus::Completed);
}
