// The learning rate of each step: a linear warm-up from 0, then the configured rate held (constant) or
// falling along a half cosine to 0 at the last planned step (cosine), as torch's LinearLR and
// CosineAnnealingLR would give it. A pure function of the step, so a resumed run continues the same curve
// (and a resume that plans more steps stretches the rest of it).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "workbench/domain/Config.h"

namespace wb {

// step: the steps done before this one. plannedSteps <= 0: no known end, so no decay. The decay spans
// lr_schedule_steps when the run plans fewer (a run cut short of a longer plan keeps its rates).
inline double scheduledLearningRate(const TrainConfig& tc, std::int64_t step, std::int64_t plannedSteps) {
    const double peak = tc.learningRate;
    if (plannedSteps > 0) plannedSteps = std::max(plannedSteps, tc.lrScheduleSteps);
    if (tc.lrWarmupSteps > 0 && step < tc.lrWarmupSteps)
        return peak * static_cast<double>(step + 1) / static_cast<double>(tc.lrWarmupSteps);
    if (tc.lrSchedule != LrSchedule::Cosine || plannedSteps <= tc.lrWarmupSteps) return peak;
    const double progress = std::clamp(
        static_cast<double>(step - tc.lrWarmupSteps) / static_cast<double>(plannedSteps - tc.lrWarmupSteps),
        0.0, 1.0);
    return peak * 0.5 * (1 + std::cos(3.14159265358979323846 * progress));
}

}  // namespace wb
