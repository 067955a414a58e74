// A CPU step split by batch over threads (train/ThreadShards.h) computes the one-thread step: the same
// parameters after a few SGD steps (to float rounding), dropout masks included, for a language model and a
// bidirectional classifier with uneven chunks and an idle thread; a chunk's error reaches the caller and the
// threads keep working; and a whole run on 2 threads split by batch follows the 1-thread run's losses.
#include <gtest/gtest.h>

#include <cmath>

#include "support/TestSupport.h"
#include "support/TinyExperiments.h"
#include "train/ThreadShards.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Training.h"

using namespace wb;

namespace {

ExperimentConfig lmConfig() {
    auto c = wbtest::tinyLanguageModel("unused");
    c.model.layers = 2;
    c.model.dropout = 0.5;  // between the layers and before the head: masks must match the global batch's
    c.train.optimizer = OptimizerKind::Sgd;
    c.train.learningRate = 0.5;
    c.train.gradClip = 1.0;
    return c;
}

Batch randomBatch(const ExperimentConfig& c, std::int64_t vocab, std::int64_t rows, std::int64_t classes) {
    Batch b;
    b.inputs = torch::randint(4, vocab, {rows, c.data.seqLen}, torch::kInt64);
    if (classes == 0) {
        b.targets = torch::randint(4, vocab, {rows, c.data.seqLen}, torch::kInt64);
    } else {
        b.targets = torch::randint(0, classes, {rows}, torch::kInt64);
        b.lengths = torch::randint(1, c.data.seqLen + 1, {rows}, torch::kInt64);
    }
    return b;
}

double maxParameterDifference(const TrainingSetup& a, const TrainingSetup& b) {
    const auto pa = a.model->parameters(), pb = b.model->parameters();
    double worst = 0;
    for (std::size_t i = 0; i < pa.size(); ++i)
        worst = std::max(worst, (pa[i] - pb[i]).abs().max().item<double>());
    return worst;
}

// Trains `steps` steps of batches of `rows` rows on one thread and split over `threads`; returns the largest
// parameter difference and how far the parameters moved at all.
std::pair<double, double> compareSteps(const ExperimentConfig& c, std::int64_t vocab, std::int64_t classes,
                                       int threads, std::int64_t rows, int steps,
                                       std::vector<double> speeds = {}) {
    const std::int64_t outputs = classes ? classes : vocab;
    auto one = makeTrainingSetup(c, vocab, outputs, torch::kCPU);
    auto many = makeTrainingSetup(c, vocab, outputs, torch::kCPU);
    auto before = makeTrainingSetup(c, vocab, outputs, torch::kCPU);
    ThreadShards shards(threads);
    for (int s = 0; s < steps; ++s) {
        if (!speeds.empty()) shards.setSpeedsForTest(speeds);  // the shares these speeds give, every step
        torch::manual_seed(100 + s);
        const auto batch = randomBatch(c, vocab, rows, classes);
        const std::uint64_t seed = 500 + static_cast<std::uint64_t>(s);
        torch::manual_seed(seed);
        const double l1 = trainStep(one, batch, c).item<double>();
        const double ln = shards.step(many, batch, c, seed).item<double>();
        EXPECT_NEAR(l1, ln, 1e-5 * std::max(1.0, std::abs(l1))) << "step " << s;
    }
    if (!speeds.empty()) EXPECT_EQ(shards.unevenSteps(), steps);  // the shares were the uneven ones
    return {maxParameterDifference(one, many), maxParameterDifference(one, before)};
}

}  // namespace

TEST(ThreadShards, ALanguageModelStepEqualsTheOneThreadStepDropoutIncluded) {
    const auto [difference, moved] = compareSteps(lmConfig(), 30, 0, 2, 8, 4);
    EXPECT_GT(moved, 1e-2);  // the steps changed the weights
    EXPECT_LT(difference, 2e-5);
}

TEST(ThreadShards, AClassifierWithUnevenChunksAndAnIdleThreadEqualsTheOneThreadStep) {
    auto c = wbtest::tinyClassifier("unused");
    c.model.dropout = 0.3;
    c.train.optimizer = OptimizerKind::Sgd;
    c.train.learningRate = 0.5;
    // 7 rows over 3 threads: chunks of 2, 2 and 3 rows, each weighted by its share.
    auto [difference, moved] = compareSteps(c, 50, 3, 3, 7, 3);
    EXPECT_GT(moved, 1e-2);
    EXPECT_LT(difference, 2e-5);
    // 2 rows over 3 threads: two chunks of one row, one thread has nothing to do.
    std::tie(difference, moved) = compareSteps(c, 50, 3, 3, 2, 2);
    EXPECT_GT(moved, 1e-3);
    EXPECT_LT(difference, 2e-5);
}

TEST(ThreadShards, SharesStayEvenUntilAWorkerIsClearlySlower) {
    ThreadShards shards(2);
    using Bounds = std::vector<std::int64_t>;
    EXPECT_EQ(shards.bounds(64), (Bounds{0, 32, 64}));  // nothing measured yet
    EXPECT_EQ(shards.bounds(1), (Bounds{0, 1}));        // fewer rows than threads: one chunk
    shards.setSpeedsForTest({1000, 1080});              // an idle machine's step-to-step noise
    EXPECT_EQ(shards.bounds(64), (Bounds{0, 32, 64}));
    shards.setSpeedsForTest({500, 1000});  // worker 0 shares its core with another process
    EXPECT_EQ(shards.bounds(64), (Bounds{0, 21, 64}));
    EXPECT_EQ(shards.bounds(7), (Bounds{0, 2, 7}));
    shards.setSpeedsForTest({1, 100000});  // every worker keeps a row, so that its speed stays measured
    EXPECT_EQ(shards.bounds(64), (Bounds{0, 1, 64}));
    ThreadShards three(3);
    three.setSpeedsForTest({1000, 1000, 250});
    EXPECT_EQ(three.bounds(90), (Bounds{0, 40, 80, 90}));
}

TEST(ThreadShards, UnevenSharesStillComputeTheOneThreadStep) {
    auto c = lmConfig();
    // Worker 0 measured at a third of worker 1's speed: shares of 2 and 6 rows out of 8.
    auto [difference, moved] = compareSteps(c, 30, 0, 2, 8, 4, {100, 300});
    EXPECT_GT(moved, 1e-2);
    EXPECT_LT(difference, 2e-5);
    auto k = wbtest::tinyClassifier("unused");
    k.model.bidirectional = true;
    k.model.dropout = 0.3;
    k.train.optimizer = OptimizerKind::Sgd;
    k.train.learningRate = 0.5;
    std::tie(difference, moved) = compareSteps(k, 50, 3, 2, 9, 3, {300, 100});
    EXPECT_GT(moved, 1e-2);
    EXPECT_LT(difference, 2e-5);
}

TEST(ThreadShards, AStepMeasuresEveryWorkersSpeed) {
    const auto c = lmConfig();
    auto setup = makeTrainingSetup(c, 30, 30, torch::kCPU);
    ThreadShards shards(2);
    const auto batch = randomBatch(c, 30, 8, 0);
    shards.step(setup, batch, c, 1);
    const auto speeds = shards.speeds();
    ASSERT_EQ(speeds.size(), 2u);
    EXPECT_GT(speeds[0], 0);
    EXPECT_GT(speeds[1], 0);
}

TEST(ThreadShards, AChunksErrorReachesTheCallerAndTheThreadsGoOn) {
    const auto c = lmConfig();
    auto setup = makeTrainingSetup(c, 30, 30, torch::kCPU);
    ThreadShards shards(2);
    auto batch = randomBatch(c, 30, 8, 0);
    auto bad = batch;
    bad.inputs = batch.inputs.clone();
    bad.inputs[7][0] = 1000;  // beyond the embedding: only the second chunk fails
    EXPECT_ANY_THROW(shards.step(setup, bad, c, 1));
    const double loss = shards.step(setup, batch, c, 2).item<double>();
    EXPECT_TRUE(std::isfinite(loss));
}

TEST(ThreadShards, ARunOnTwoThreadsSplitByBatchFollowsTheOneThreadRun) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(120));
    auto c = wbtest::tinyLanguageModel(dir.file("pattern.txt"));
    c.model.layers = 2;
    c.model.dropout = 0.2;
    c.train.maxSteps = 30;
    auto losses = [&](std::int64_t threads, ThreadSplit split, const char* name) {
        auto config = c;
        config.device.spec.threads = threads;
        config.device.threadSplit = split;
        TrainingJob job(config, dir.file(name));
        job.run();
        const auto run = loadRunFolder(dir.file(name));
        EXPECT_EQ(run.info.threads, threads);
        std::vector<double> out;
        for (const auto& r : seriesOf(run.metrics, "train", "loss")) out.push_back(r.value);
        return out;
    };
    const auto one = losses(1, ThreadSplit::Batch, "one");
    const auto two = losses(2, ThreadSplit::Batch, "two");
    ASSERT_EQ(one.size(), two.size());
    ASSERT_GE(one.size(), 3u);
    // Adam over 30 steps: the sums differ only in the order of float additions.
    for (std::size_t i = 0; i < one.size(); ++i) EXPECT_NEAR(one[i], two[i], 1e-3 * one[i]) << "record " << i;
}
