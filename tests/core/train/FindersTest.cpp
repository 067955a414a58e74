// The learning-rate and batch-size finders on a tiny model: they report every point as they go (the app's
// dialogs draw from those reports), the batch-size finder stays within what the corpus can use, and each
// says why it stopped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "support/TestSupport.h"
#include "support/TinyExperiments.h"
#include "workbench/domain/Corpus.h"
#include "workbench/engine/Training.h"

using namespace wb;

namespace {

struct TinyCorpus {
    wbtest::TempDir dir;
    ExperimentConfig config;
    Corpus corpus;
    explicit TinyCorpus(std::size_t lines) {
        wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(lines));
        config = wbtest::tinyLanguageModel(dir.file("pattern.txt"));
        config.device.spec.threads = 1;
        corpus = loadCorpus(config.data.corpus, config.data.format);
    }
};

template <class T>
bool isPrefix(const std::vector<T>& prefix, const std::vector<T>& whole) {
    return prefix.size() <= whole.size() && std::equal(prefix.begin(), prefix.end(), whole.begin());
}

}  // namespace

TEST(LrFinder, ReportsEachPointAsItGoes) {
    TinyCorpus c(120);
    std::vector<LrFinderResult> reports;
    LrFinderOptions options;
    options.minLr = 1e-4;
    options.maxLr = 1e-1;
    options.steps = 8;
    options.onPoint = [&](const LrFinderResult& soFar) { reports.push_back(soFar); };
    const auto r = findLearningRate(c.config, c.corpus, options);
    ASSERT_FALSE(r.rates.empty());
    ASSERT_EQ(reports.size(), r.rates.size()) << "one report per point";
    for (std::size_t i = 0; i < reports.size(); ++i) {
        EXPECT_EQ(reports[i].rates.size(), i + 1);
        EXPECT_TRUE(isPrefix(reports[i].rates, r.rates));
        EXPECT_TRUE(isPrefix(reports[i].losses, r.losses));
        EXPECT_EQ(reports[i].suggestedRate, 0) << "the suggestion comes with the whole sweep";
    }
    EXPECT_GT(r.suggestedRate, 0);
    EXPECT_EQ(r.suggestedRate, suggestLearningRate(r.rates, r.losses));
}

TEST(LrFinder, CancellingStopsBeforeTheNextStep) {
    TinyCorpus c(120);
    int asked = 0;
    LrFinderOptions options;
    options.steps = 30;
    options.cancelled = [&] { return ++asked > 3; };
    const auto r = findLearningRate(c.config, c.corpus, options);
    EXPECT_EQ(r.rates.size(), 3u);
}

// The rule on a known sweep: flat, a fall steepest between the 3rd and 4th points, a minimum, then a rise.
TEST(LrFinder, SuggestsTheSteepestFallBeforeTheMinimum) {
    std::vector<double> rates, losses = {2.0, 2.0, 1.9, 1.3, 1.1, 1.0, 1.4, 3.0};
    for (std::size_t i = 0; i < losses.size(); ++i) rates.push_back(1e-5 * std::pow(10.0, 0.5 * i));
    EXPECT_DOUBLE_EQ(suggestLearningRate(rates, losses), rates[3]);
    // A loss that never falls: a decade under the rate of its minimum (the first point).
    EXPECT_DOUBLE_EQ(suggestLearningRate({1e-4, 1e-3, 1e-2}, {1.0, 1.5, 2.0}), 1e-5);
    EXPECT_EQ(suggestLearningRate({}, {}), 0);
}

// A corpus of a few thousand characters holds a few hundred training windows: a batch of 1024 would be one
// step per epoch. The finder stops at the largest size that leaves 20 steps per epoch and says so.
TEST(BatchSizeFinder, StopsWhereAnEpochWouldHaveFewerThanTwentySteps) {
    TinyCorpus c(700);
    std::vector<std::int64_t> started;
    std::vector<BatchSizeResult> reports;
    BatchSizeOptions options;
    options.onTrialStart = [&](std::int64_t size, const BatchSizeResult& soFar) {
        started.push_back(size);
        EXPECT_GT(soFar.corpusCap, 0) << "the cap is known before the first size";
    };
    options.onTrial = [&](const BatchSizeResult& soFar) { reports.push_back(soFar); };
    const auto r = findBatchSize(c.config, c.corpus, options);

    ASSERT_GT(r.trainSamples, 0);
    EXPECT_EQ(r.corpusCap, r.trainSamples / 20);
    ASSERT_GE(r.corpusCap, 16) << "the corpus should allow at least two sizes";
    EXPECT_LT(r.corpusCap, 1024);
    EXPECT_EQ(r.stoppedBy, BatchSizeResult::Stop::Corpus);
    ASSERT_GE(r.sizes.size(), 2u);
    EXPECT_EQ(r.sizes.front(), 8);
    for (std::size_t i = 0; i < r.sizes.size(); ++i) {
        if (i > 0) EXPECT_EQ(r.sizes[i], 2 * r.sizes[i - 1]);
        EXPECT_LE(r.sizes[i], r.corpusCap);
        EXPECT_GE(r.stepsPerEpoch[i], 20);
        EXPECT_EQ(r.stepsPerEpoch[i], (r.trainSamples + r.sizes[i] - 1) / r.sizes[i]);
        EXPECT_GT(r.usPerSample[i], 0);
    }
    EXPECT_GT(2 * r.sizes.back(), r.corpusCap) << "the next doubling would pass the cap";
    EXPECT_EQ(r.largestTimed, r.sizes.back());
    const auto fastest = std::min_element(r.usPerSample.begin(), r.usPerSample.end()) - r.usPerSample.begin();
    EXPECT_EQ(r.fastest, r.sizes[static_cast<std::size_t>(fastest)]);
    // The recommendation: the smallest size within 5% of the fastest per sample.
    const double bestUs = r.usPerSample[static_cast<std::size_t>(fastest)];
    std::int64_t expected = 0;
    for (std::size_t i = r.sizes.size(); i-- > 0;)
        if (r.usPerSample[i] <= 1.05 * bestUs) expected = r.sizes[i];
    EXPECT_EQ(r.recommended, expected);
    EXPECT_LE(r.recommended, r.fastest);

    EXPECT_EQ(started, r.sizes) << "each size is announced before it is timed";
    ASSERT_EQ(reports.size(), r.sizes.size()) << "one report per size";
    for (std::size_t i = 0; i < reports.size(); ++i) {
        EXPECT_EQ(reports[i].sizes.size(), i + 1);
        EXPECT_TRUE(isPrefix(reports[i].sizes, r.sizes));
        EXPECT_TRUE(isPrefix(reports[i].usPerSample, r.usPerSample));
    }
}

TEST(BatchSizeFinder, ACorpusTooSmallForTheFirstSizeStillGetsOne) {
    TinyCorpus c(40);
    const auto r = findBatchSize(c.config, c.corpus);
    ASSERT_LT(r.trainSamples / 20, 8) << "the corpus should be too small for a batch of 8";
    EXPECT_EQ(r.corpusCap, std::max<std::int64_t>(1, r.trainSamples / 20));
    ASSERT_EQ(r.sizes.size(), 1u);
    EXPECT_EQ(r.sizes.front(), r.corpusCap);
    EXPECT_EQ(r.fastest, r.corpusCap);
    EXPECT_EQ(r.recommended, r.corpusCap);
    EXPECT_EQ(r.stoppedBy, BatchSizeResult::Stop::Corpus);
}

TEST(BatchSizeFinder, TheLimitAndCancellingStopItAndSaySo) {
    TinyCorpus c(700);
    BatchSizeOptions limited;
    limited.limit = 8;
    const auto r = findBatchSize(c.config, c.corpus, limited);
    EXPECT_EQ(r.sizes, std::vector<std::int64_t>{8});
    EXPECT_EQ(r.stoppedBy, BatchSizeResult::Stop::Limit);

    BatchSizeOptions cancelled;
    int asked = 0;
    cancelled.cancelled = [&] { return ++asked > 1; };
    const auto c2 = findBatchSize(c.config, c.corpus, cancelled);
    EXPECT_EQ(c2.sizes, std::vector<std::int64_t>{8});
    EXPECT_EQ(c2.stoppedBy, BatchSizeResult::Stop::Cancelled);
}
