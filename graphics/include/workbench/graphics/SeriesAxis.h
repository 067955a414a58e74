// What the x axis of a metric chart measures, and how a metric record maps onto it. Shared by the live
// charts, the overlay chart and the exporters so that an exported chart matches what the user saw.
#pragma once

#include <QString>

#include "workbench/domain/Metrics.h"

namespace wbui {

enum class XAxisMode { Step, Epoch, Samples, WallSeconds };

inline double xValue(const wb::MetricRecord& r, XAxisMode mode) {
    switch (mode) {
        case XAxisMode::Step:
            return double(r.step);
        case XAxisMode::Epoch:
            return r.epoch;
        case XAxisMode::Samples:
            return double(r.samples);
        case XAxisMode::WallSeconds:
            return r.wallSeconds;
    }
    return double(r.step);
}

inline QString xAxisTitle(XAxisMode mode) {
    switch (mode) {
        case XAxisMode::Step:
            return QStringLiteral("step");
        case XAxisMode::Epoch:
            return QStringLiteral("epoch");
        case XAxisMode::Samples:
            return QStringLiteral("samples seen");
        case XAxisMode::WallSeconds:
            return QStringLiteral("wall-clock seconds");
    }
    return {};
}

// A series plotted in the overlay: a (split, metric) pair of metrics.csv.
struct MetricChoice {
    const char* split;
    const char* metric;
    const char* title;
};
inline constexpr MetricChoice kOverlayMetrics[] = {
    {"train", "loss", "train loss"},
    {"val", "loss", "validation loss"},
    {"val", "accuracy", "validation accuracy"},
    {"speed", "samples_per_s", "samples per second"},
};

}  // namespace wbui
