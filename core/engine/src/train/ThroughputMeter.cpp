// ThroughputMeter (see ThroughputMeter.h).
#include "train/ThroughputMeter.h"

#include <utility>

#include "device/DeviceSetup.h"

namespace wb {

ThroughputMeter::ThroughputMeter(ProgressState& state, std::int64_t warmupSteps, const torch::Device& device,
                                 Now now)
    : m_state(state),
      m_warmupSteps(warmupSteps),
      m_device(device),
      m_now(std::move(now)),
      m_start(m_now()),
      m_baseWall(state.wallSeconds),
      m_startStep(state.step),
      m_priorSeconds(state.measuredSeconds),
      m_priorSamples(state.measuredSamples) {}

double ThroughputMeter::sinceStart() const {
    return std::chrono::duration<double>(m_now() - m_start).count();
}

double ThroughputMeter::wall() const { return m_baseWall + sinceStart() - m_paused; }

void ThroughputMeter::afterStep() {
    if (m_measuring || m_state.step - m_startStep < m_warmupSteps) return;
    synchronize(m_device);
    m_measuring = true;
    m_windowStart = wall();
    m_windowStartSamples = m_state.samples;
}

void ThroughputMeter::update() {
    if (!m_measuring) return;
    m_state.measuredSeconds = m_priorSeconds + (wall() - m_windowStart - m_windowExcluded);
    m_state.measuredSamples = m_priorSamples + (m_state.samples - m_windowStartSamples);
}

double ThroughputMeter::samplesPerSecond() const {
    return m_state.measuredSeconds > 0
               ? static_cast<double>(m_state.measuredSamples) / m_state.measuredSeconds
               : 0.0;
}

double ThroughputMeter::etaSeconds(std::int64_t plannedSteps) const {
    const auto done = m_state.step - m_startStep;
    if (done <= 0 || plannedSteps <= m_state.step) return -1;
    return (wall() - m_baseWall) / static_cast<double>(done) *
           static_cast<double>(plannedSteps - m_state.step);
}

ThroughputMeter::Excluded::Excluded(ThroughputMeter& meter, Kind kind) : m_meter(meter), m_kind(kind) {
    synchronize(meter.m_device);  // work queued before the scope belongs to the window
    m_start = meter.m_now();
}

ThroughputMeter::Excluded::~Excluded() {
    try {
        synchronize(m_meter.m_device);
    } catch (...) {
        // Destructors do not throw; the error that matters is already on its way.
    }
    const double seconds = std::chrono::duration<double>(m_meter.m_now() - m_start).count();
    if (m_kind == Pause) {
        m_meter.m_paused += seconds;  // off the wall clock, hence off the window too
    } else if (m_meter.m_measuring) {
        m_meter.m_windowExcluded += seconds;
    }
}

}  // namespace wb
