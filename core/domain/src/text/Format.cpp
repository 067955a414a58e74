// Numbers and durations as text.
#include "workbench/domain/Format.h"

#include <cmath>
#include <cstdio>

namespace wb {

std::string formatNumber(const char* format, double value) {
    char out[64];
    std::snprintf(out, sizeof out, format, value);
    return out;
}

std::string humanCount(double value) {
    const double a = std::fabs(value);
    if (a >= 1e12) return formatNumber("%.2f T", value / 1e12);
    if (a >= 1e9) return formatNumber("%.2f G", value / 1e9);
    if (a >= 1e6) return formatNumber("%.2f M", value / 1e6);
    if (a >= 1e4) return formatNumber("%.1f k", value / 1e3);
    return std::to_string(std::llround(value));
}

std::string humanBytes(double bytes) {
    const double kib = 1024.0, mib = kib * 1024, gib = mib * 1024;
    if (bytes >= gib) return formatNumber("%.1f GiB", bytes / gib);
    if (bytes >= mib) return formatNumber("%.1f MiB", bytes / mib);
    if (bytes >= kib) return formatNumber("%.1f KiB", bytes / kib);
    return formatNumber("%.0f bytes", bytes);
}

std::string humanSeconds(double seconds) {
    if (seconds >= 3600) return formatNumber("%.1f h", seconds / 3600);
    if (seconds >= 60) return formatNumber("%.1f min", seconds / 60);
    return formatNumber("%.0f s", seconds);
}

std::string clockDuration(double seconds) {
    if (seconds < 0 || !std::isfinite(seconds)) return "–";
    if (seconds < 60) return formatNumber(seconds < 10 ? "%.1f s" : "%.0f s", seconds);
    const long long s = std::llround(seconds);
    const long long h = s / 3600, m = (s % 3600) / 60, r = s % 60;
    char out[48];
    if (h > 0)
        std::snprintf(out, sizeof out, "%lld:%02lld:%02lld", h, m, r);
    else
        std::snprintf(out, sizeof out, "%lld:%02lld", m, r);
    return out;
}

}  // namespace wb
