// The estimates timed on this machine, kept across launches. The estimate used to be timed again at every
// launch, and jumped (3.2, 3.0, 3.9, then 2.2 minutes for one experiment on one machine, issue #63): an
// experiment opened again on the same machine, with the same program and LibTorch, now shows the time
// measured before, until Estimate is pressed or the machine changes. Kept in the app's settings, the newest
// 20 experiments.
#pragma once

#include <QDateTime>
#include <QStringList>

#include <optional>

namespace wbui {

class EstimateMemory {
public:
    struct Entry {
        double seconds = 0;
        QDateTime timed;  // when it was measured
    };
    // What a timing depends on besides the experiment: the CPU's model and cores, the kernels' cap, the
    // threads asked for, LibTorch's version and this program's.
    static QString machine();
    // The runs as the estimator was given them (their configs' JSON).
    static std::optional<Entry> recall(const QStringList& runs);
    static void remember(const QStringList& runs, double seconds);
    static constexpr int kKept = 20;
};

}  // namespace wbui
