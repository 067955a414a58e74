// What samples/s leaves out (README, run.json's timing_method): the warm-up steps, validation, checkpoints
// and pauses. The meter's own tests step a hand-driven clock, so they check exact accounting and never
// depend on how fast the machine is; one run through TrainingJob shows that the session really cuts its
// validations out.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <utility>
#include <vector>

#include "support/TestSupport.h"
#include "support/TinyExperiments.h"
#include "train/ThroughputMeter.h"
#include "workbench/domain/RunState.h"
#include "workbench/engine/Training.h"

using namespace wb;

namespace {

using Clock = ThroughputMeter::Clock;

// A clock that moves only when told to.
struct ManualClock {
    Clock::time_point now{};
    void advance(double seconds) {
        now += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    }
    ThroughputMeter::Now reader() {
        return [this] { return now; };
    }
};

class ThroughputMeterTest : public ::testing::Test {
protected:
    static constexpr std::int64_t kWarmup = 2, kBatch = 8;
    ProgressState state;
    ManualClock clock;
    ThroughputMeter meter{state, kWarmup, torch::Device(torch::kCPU), clock.reader()};

    // One training step of `seconds`, as the session counts it.
    void step(double seconds) {
        clock.advance(seconds);
        ++state.step;
        state.samples += kBatch;
        meter.afterStep();
    }
};

}  // namespace

TEST_F(ThroughputMeterTest, WarmUpStepsAreLeftOut) {
    step(10);  // the warm-up steps are slow (allocation, first-touch): they must not count
    meter.update();
    EXPECT_FALSE(meter.measuring());
    EXPECT_EQ(state.measuredSamples, 0);
    EXPECT_EQ(meter.samplesPerSecond(), 0);
    step(10);
    for (int i = 0; i < 4; ++i) step(0.5);
    meter.update();
    EXPECT_TRUE(meter.measuring());
    EXPECT_DOUBLE_EQ(meter.wall(), 22);
    EXPECT_DOUBLE_EQ(state.measuredSeconds, 2);
    EXPECT_EQ(state.measuredSamples, 4 * kBatch);
    EXPECT_DOUBLE_EQ(meter.samplesPerSecond(), 4 * kBatch / 2.0);
}

TEST_F(ThroughputMeterTest, AnExcludedScopeIsCutFromTheWindowNotFromTheWallClock) {
    for (int i = 0; i < kWarmup; ++i) step(1);
    step(1);
    {
        ThroughputMeter::Excluded validation(meter, ThroughputMeter::Excluded::Work);
        clock.advance(100);
    }
    step(1);
    meter.update();
    EXPECT_DOUBLE_EQ(meter.wall(), kWarmup + 102);  // validation is training time for the wall clock
    EXPECT_DOUBLE_EQ(state.measuredSeconds, 2);
    EXPECT_DOUBLE_EQ(meter.samplesPerSecond(), kBatch);
}

// The session's validation can end by an exception (a NaN loss, a lost peer, a stop): the scope's destructor
// must cut it out all the same.
TEST_F(ThroughputMeterTest, AScopeLeftByAnExceptionIsCutToo) {
    for (int i = 0; i < kWarmup; ++i) step(1);
    step(1);
    try {
        ThroughputMeter::Excluded validation(meter, ThroughputMeter::Excluded::Work);
        clock.advance(50);
        throw std::runtime_error("validation aborted");
    } catch (const std::runtime_error&) {
    }
    step(1);
    meter.update();
    EXPECT_DOUBLE_EQ(state.measuredSeconds, 2);
    EXPECT_DOUBLE_EQ(meter.wall(), kWarmup + 52);
}

TEST_F(ThroughputMeterTest, APauseIsCutFromTheWallClockAndTheWindow) {
    for (int i = 0; i < kWarmup; ++i) step(1);
    step(1);
    {
        ThroughputMeter::Excluded pause(meter, ThroughputMeter::Excluded::Pause);
        clock.advance(3600);
    }
    step(1);
    meter.update();
    EXPECT_DOUBLE_EQ(meter.wall(), kWarmup + 2);
    EXPECT_DOUBLE_EQ(state.measuredSeconds, 2);
    // The estimate of the time left extrapolates from training time, not from the hour of pause.
    EXPECT_DOUBLE_EQ(meter.etaSeconds(state.step + 4), 4);
}

TEST_F(ThroughputMeterTest, AResumedRunAddsToTheMeasurementsOfEarlierSittings) {
    ProgressState resumed;
    resumed.step = 100;
    resumed.samples = 800;
    resumed.wallSeconds = 40;
    resumed.measuredSeconds = 30;
    resumed.measuredSamples = 600;
    ThroughputMeter again(resumed, kWarmup, torch::Device(torch::kCPU), clock.reader());
    for (int i = 0; i < kWarmup + 2; ++i) {  // each sitting has its own warm-up
        clock.advance(1);
        ++resumed.step;
        resumed.samples += kBatch;
        again.afterStep();
    }
    again.update();
    EXPECT_DOUBLE_EQ(again.wall(), 40 + kWarmup + 2);
    EXPECT_DOUBLE_EQ(resumed.measuredSeconds, 32);
    EXPECT_EQ(resumed.measuredSamples, 600 + 2 * kBatch);
}

// Through the real session: a run whose validations take most of its time. The obvious check, comparing
// this run's samples/s with a run without validation, compares two timings taken at different moments; on a
// loaded 2-core machine (a compiler beside us) they can differ by more than any factor that still catches
// the bug. Instead the check is within one run: the time between the "validating" report and the next one
// (which the test measures around the validation, so it is longer than the validation by a few
// microseconds of bookkeeping) must be missing from the measured seconds. Load slows validation and
// training alike and stretches both sides of the inequality; only a validation left in the window breaks it.
TEST(ThroughputMeterSession, ValidationTimeIsNotInTheMeasuredSeconds) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(40000));
    auto config = wbtest::tinyLanguageModel(dir.file("pattern.txt"));
    // Validation must outweigh what the window leaves out besides it (warm-up, checkpoints written with
    // fsync): 500,000 characters to score, against 16 x 20 samples trained between two validations.
    config.data.valFraction = 0.5;
    config.train.maxSteps = 40;
    config.train.validateEvery = 20;  // two validations (step 20 and the end), both after the warm-up
    TrainingJob job(config, dir.file("run"));

    std::vector<std::pair<Clock::time_point, std::string>> reports;
    TrainingCallbacks callbacks;
    callbacks.onProgress = [&](const TrainingProgress& p) { reports.emplace_back(Clock::now(), p.phase); };
    const auto summary = job.run(callbacks);

    double validating = 0;
    int validations = 0;
    for (std::size_t i = 0; i + 1 < reports.size(); ++i)
        if (reports[i].second == "validating") {
            ++validations;
            validating += std::chrono::duration<double>(reports[i + 1].first - reports[i].first).count();
        }
    ASSERT_EQ(validations, 2);
    ASSERT_GT(summary.samplesPerSecond, 0);
    const auto measuredSamples = summary.samples - config.train.warmupSteps * config.train.batchSize;
    const double measuredSeconds = static_cast<double>(measuredSamples) / summary.samplesPerSecond;
    // Half the validation time is the margin: with validation counted, the measured seconds would be the
    // wall clock less only the warm-up and the checkpoints.
    EXPECT_LT(measuredSeconds, summary.trainSeconds - validating / 2)
        << "measured " << measuredSeconds << " s of " << summary.trainSeconds << " s, validation took "
        << validating << " s";
}
