// The learning-rate schedule (warm-up, constant or cosine), decoupled weight decay, and a run that records
// the rate it used at every logged step.
#include <gtest/gtest.h>

#include <cmath>

#include "support/TestSupport.h"
#include "support/TinyExperiments.h"
#include "train/LrSchedule.h"
#include "train/Optimizer.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Training.h"

using namespace wb;

namespace {
TrainConfig schedule(LrSchedule kind, std::int64_t warmup) {
    TrainConfig tc;
    tc.learningRate = 0.01;
    tc.lrSchedule = kind;
    tc.lrWarmupSteps = warmup;
    return tc;
}
}  // namespace

TEST(LrSchedule, WarmUpThenConstant) {
    const auto tc = schedule(LrSchedule::Constant, 4);
    EXPECT_DOUBLE_EQ(scheduledLearningRate(tc, 0, 100), 0.0025);
    EXPECT_DOUBLE_EQ(scheduledLearningRate(tc, 1, 100), 0.005);
    EXPECT_DOUBLE_EQ(scheduledLearningRate(tc, 3, 100), 0.01);
    EXPECT_DOUBLE_EQ(scheduledLearningRate(tc, 4, 100), 0.01);
    EXPECT_DOUBLE_EQ(scheduledLearningRate(tc, 99, 100), 0.01);
    EXPECT_DOUBLE_EQ(scheduledLearningRate(schedule(LrSchedule::Constant, 0), 0, 100), 0.01);
}

TEST(LrSchedule, CosineFallsFromThePeakToZeroAtTheLastPlannedStep) {
    const auto tc = schedule(LrSchedule::Cosine, 10);
    EXPECT_DOUBLE_EQ(scheduledLearningRate(tc, 9, 110), 0.01) << "the warm-up's last step";
    EXPECT_DOUBLE_EQ(scheduledLearningRate(tc, 10, 110), 0.01) << "the cosine starts at the peak";
    EXPECT_NEAR(scheduledLearningRate(tc, 60, 110), 0.005, 1e-12) << "half way: half the peak";
    EXPECT_NEAR(scheduledLearningRate(tc, 110, 110), 0.0, 1e-12);
    EXPECT_NEAR(scheduledLearningRate(tc, 500, 110), 0.0, 1e-12) << "past the plan (a resume): stays at 0";
    double previous = 1;
    for (std::int64_t step = 10; step < 110; ++step) {
        const double lr = scheduledLearningRate(tc, step, 110);
        EXPECT_LE(lr, previous) << step;
        previous = lr;
    }
    EXPECT_DOUBLE_EQ(scheduledLearningRate(tc, 50, 0), 0.01) << "no known end: no decay";
}

TEST(WeightDecay, ShrinksWeightMatricesNotBiases) {
    torch::NoGradGuard noGrad;
    auto weight = torch::ones({2, 3}), bias = torch::ones({3});
    weight.mutable_grad() = torch::zeros({2, 3});
    bias.mutable_grad() = torch::zeros({3});
    Optimizer optimizer(OptimizerKind::Adam, {{"w", weight}, {"b", bias}}, 0.1);
    optimizer.setWeightDecay(0.5);
    optimizer.step();  // a zero gradient: Adam moves nothing, the decay alone acts
    EXPECT_TRUE(torch::allclose(weight, torch::full({2, 3}, 1 - 0.1 * 0.5)));
    EXPECT_TRUE(torch::equal(bias, torch::ones({3})));
}

// The rate used is a metric ("lr"), one per logged step: here the warm-up then the cosine of a 12-step run.
TEST(LrSchedule, ARunRecordsTheRateOfEachLoggedStep) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(120));
    auto config = wbtest::tinyLanguageModel(dir.file("pattern.txt"));
    config.train.maxSteps = 12;
    config.train.epochs = 0;
    config.train.logEvery = 1;
    config.train.lrSchedule = LrSchedule::Cosine;
    config.train.lrWarmupSteps = 3;
    config.train.weightDecay = 0.01;
    TrainingJob(config, dir.file("run")).run({});
    const auto lr = seriesOf(loadRunFolder(dir.file("run")).metrics, "train", "lr");
    ASSERT_EQ(lr.size(), 12u);
    for (const auto& r : lr)  // recorded after step r.step, whose index was r.step - 1
        EXPECT_NEAR(r.value, scheduledLearningRate(config.train, r.step - 1, 12),
                    1e-9 * config.train.learningRate)
            << "step " << r.step;
    EXPECT_LT(lr.front().value, lr[2].value) << "warming up";
    EXPECT_LT(lr.back().value, lr[3].value) << "decaying";
}

// Issue #63: a run cut short of a longer plan (the first run fitted to the machine) keeps that plan's rates:
// its cosine spans lr_schedule_steps, not its own fewer steps; a run planned longer than that spans its own.
TEST(LrSchedule, ARunCutShortKeepsTheRatesOfTheLongerPlan) {
    TrainConfig t;
    t.learningRate = 0.004;
    t.lrSchedule = LrSchedule::Cosine;
    t.lrWarmupSteps = 100;
    t.lrScheduleSteps = 4200;
    for (std::int64_t step : {0, 99, 100, 1000, 1399})
        EXPECT_DOUBLE_EQ(scheduledLearningRate(t, step, 1400), scheduledLearningRate(t, step, 4200)) << step;
    EXPECT_GT(scheduledLearningRate(t, 1399, 1400), 0.9 * t.learningRate * 0.5) << "far from decayed";
    EXPECT_DOUBLE_EQ(scheduledLearningRate(t, 5000, 8000), [&] {
        TrainConfig own = t;
        own.lrScheduleSteps = 0;
        return scheduledLearningRate(own, 5000, 8000);
    }()) << "a longer run spans its own steps";
    t.lrScheduleSteps = 0;
    EXPECT_NEAR(scheduledLearningRate(t, 1399, 1400), 0, 1e-5 * t.learningRate)
        << "0: decays over the run's own";
}
