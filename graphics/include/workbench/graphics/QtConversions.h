// Conversions between the core facade's plain C++ types and Qt types. The core never sees Qt, so every
// crossing of that boundary goes through these helpers (UTF-8 both ways).
#pragma once

#include <QColor>
#include <QString>
#include <QStringList>

#include <string>
#include <vector>

#include "workbench/domain/Errors.h"
#include "workbench/engine/Devices.h"

namespace wbui {

inline QString toQt(const std::string& s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}
inline std::string toStd(const QString& s) { return s.toUtf8().toStdString(); }
QStringList toQt(const std::vector<std::string>& v);

// An error message for a dialog: the core's one-line message (what to do after a failed run is said by
// training/FailureAdvice.h, which knows the run folder).
QString describeError(const std::exception& e);

// Distinct, colour-blind-friendly colours for runs (Okabe-Ito first, then a golden-angle walk).
QColor runColor(int index);

// "CPU · 1 thread", "CPU · 2 threads", "NVIDIA H100 80GB HBM3 (cuda:0)".
// "CPU · 1 thread", "CPU · 2 processes (Gloo)", "NVIDIA H100 (cuda:0)": how a device is named everywhere.
QString deviceLabel(const std::string& device, long long threads, const std::string& deviceName,
                    long long processes = 1);

}  // namespace wbui
