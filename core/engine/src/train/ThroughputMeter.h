// The honest clock of one sitting of a run: wall time without pauses (continuing a resumed run's), and
// samples/s over the steps after the warm-up with validation and checkpoints cut out. The device is
// synchronised before every clock read that starts or ends a measured stretch.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include <torch/torch.h>

#include "workbench/domain/RunState.h"

namespace wb {

class ThroughputMeter {
public:
    using Clock = std::chrono::steady_clock;
    // The clock is a parameter only so that tests can step time by hand (ThroughputMeterTest); the session
    // uses the steady clock.
    using Now = std::function<Clock::time_point()>;

    ThroughputMeter(ProgressState& state, std::int64_t warmupSteps, const torch::Device& device,
                    Now now = Clock::now);

    double wall() const;  // seconds of training in this run so far (earlier sittings included)
    void afterStep();     // after each step: opens the measured window once the warm-up steps are done
    void update();        // folds the window so far into the state's measured seconds and samples
    double samplesPerSecond() const;
    bool measuring() const { return m_measuring; }
    double etaSeconds(std::int64_t plannedSteps) const;  // -1 while unknown

    // The time a scope takes is cut from the window and (for pauses) from the wall clock too, however the
    // scope ends: a validation stopped half-way or a failed checkpoint is excluded like a finished one.
    class Excluded {
    public:
        enum Kind { Work, Pause };
        Excluded(ThroughputMeter& meter, Kind kind);
        ~Excluded();
        Excluded(const Excluded&) = delete;
        Excluded& operator=(const Excluded&) = delete;

    private:
        ThroughputMeter& m_meter;
        Kind m_kind;
        Clock::time_point m_start;
    };

private:
    double sinceStart() const;

    ProgressState& m_state;
    std::int64_t m_warmupSteps;
    torch::Device m_device;
    Now m_now;
    Clock::time_point m_start;
    double m_baseWall, m_paused = 0;
    std::int64_t m_startStep;
    bool m_measuring = false;
    double m_windowStart = 0, m_windowExcluded = 0;
    std::int64_t m_windowStartSamples = 0;
    double m_priorSeconds;
    std::int64_t m_priorSamples;
};

}  // namespace wb
