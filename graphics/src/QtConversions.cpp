// Conversions between the core facade's plain C++ types and Qt types.
#include "workbench/graphics/QtConversions.h"

#include <cmath>

#include "workbench/domain/DeviceSpec.h"

namespace wbui {

QStringList toQt(const std::vector<std::string>& v) {
    QStringList out;
    out.reserve(static_cast<qsizetype>(v.size()));
    for (const auto& s : v) out << toQt(s);
    return out;
}

QString describeError(const std::exception& e) { return toQt(e.what()); }

QColor runColor(int index) {
    static const QColor palette[] = {QColor(0, 114, 178),   QColor(213, 94, 0),  QColor(0, 158, 115),
                                     QColor(204, 121, 167), QColor(230, 159, 0), QColor(86, 180, 233),
                                     QColor(120, 120, 120), QColor(170, 50, 50)};
    constexpr int n = sizeof(palette) / sizeof(palette[0]);
    if (index >= 0 && index < n) return palette[index];
    return QColor::fromHsvF(std::fmod(index * 0.618033988749895, 1.0), 0.65, 0.8);
}

QString deviceLabel(const std::string& device, long long threads, const std::string& deviceName,
                    long long processes) {
    if (wb::isCpuDevice(device)) {
        if (processes > 1) {
            const QString label = QStringLiteral("CPU · %1 processes (Gloo)").arg(processes);
            return threads > 1 ? label + QStringLiteral(" × %1 threads").arg(threads) : label;
        }
        if (threads <= 0) return QStringLiteral("CPU · default threads");
        return threads == 1 ? QStringLiteral("CPU · 1 thread")
                            : QStringLiteral("CPU · %1 threads").arg(threads);
    }
    if (!deviceName.empty()) return QStringLiteral("%1 (%2)").arg(toQt(deviceName), toQt(device));
    return toQt(device);
}

}  // namespace wbui
