// Conversions between the core facade's plain C++ types and Qt types.
#include "common/QtConversions.h"

#include <cmath>

namespace wbui {

QStringList toQt(const std::vector<std::string>& v) {
    QStringList out;
    out.reserve(static_cast<qsizetype>(v.size()));
    for (const auto& s : v) out << toQt(s);
    return out;
}

QString humanCount(double value) {
    const double a = std::fabs(value);
    if (a >= 1e12) return QString::number(value / 1e12, 'f', 2) + QStringLiteral(" T");
    if (a >= 1e9) return QString::number(value / 1e9, 'f', 2) + QStringLiteral(" G");
    if (a >= 1e6) return QString::number(value / 1e6, 'f', 2) + QStringLiteral(" M");
    if (a >= 1e4) return QString::number(value / 1e3, 'f', 1) + QStringLiteral(" k");
    return QString::number(static_cast<long long>(std::llround(value)));
}

QString humanBytes(double bytes) {
    if (bytes >= 1024.0 * 1024 * 1024) return QString::number(bytes / (1024.0 * 1024 * 1024), 'f', 2) + " GB";
    if (bytes >= 1024.0 * 1024) return QString::number(bytes / (1024.0 * 1024), 'f', 1) + " MB";
    if (bytes >= 1024.0) return QString::number(bytes / 1024.0, 'f', 1) + " KB";
    return QString::number(static_cast<long long>(bytes)) + " B";
}

QString humanDuration(double seconds) {
    if (seconds < 0 || !std::isfinite(seconds)) return QStringLiteral("–");
    if (seconds < 60) return QString::number(seconds, 'f', seconds < 10 ? 1 : 0) + QStringLiteral(" s");
    const long long s = std::llround(seconds);
    const long long h = s / 3600, m = (s % 3600) / 60, r = s % 60;
    if (h > 0) return QStringLiteral("%1:%2:%3").arg(h).arg(m, 2, 10, QChar('0')).arg(r, 2, 10, QChar('0'));
    return QStringLiteral("%1:%2").arg(m).arg(r, 2, 10, QChar('0'));
}

QString describeError(const std::exception& e) {
    QString text = toQt(e.what());
    if (const auto* input = dynamic_cast<const wb::InputError*>(&e)) {
        Q_UNUSED(input);
        return text;
    }
    if (dynamic_cast<const wb::TrainingError*>(&e))
        return text + QStringLiteral("\n\nThe run folder keeps the last good checkpoint.");
    return text;
}

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
    if (device.rfind("cpu", 0) == 0) {
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
