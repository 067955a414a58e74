// Run names fitted to their room (workbench/graphics/RunNames.h).
#include "workbench/graphics/RunNames.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace wbui {

namespace {

const QString kSeparator = QStringLiteral(" · ");
const QString kEllipsis = QStringLiteral("…");

// The parts of `parts` (after the first, the run's number) found in every other name of `shown`.
std::vector<bool> sharedParts(const QStringList& parts, const QString& name, const QStringList& shown) {
    std::vector<QStringList> others;
    for (const QString& other : shown)
        if (other != name) others.push_back(other.split(kSeparator));
    std::vector<bool> shared(std::size_t(parts.size()), false);
    if (others.empty()) return shared;
    for (int i = 1; i < parts.size(); ++i)
        shared[std::size_t(i)] = std::all_of(others.begin(), others.end(),
                                             [&](const QStringList& o) { return o.contains(parts[i]); });
    return shared;
}

// The parts joined, the dropped ones as one "…" for each run of them.
QString joined(const QStringList& parts, const std::vector<bool>& dropped) {
    QStringList out;
    for (int i = 0; i < parts.size(); ++i) {
        if (!dropped[std::size_t(i)])
            out << parts[i];
        else if (out.isEmpty() || out.back() != kEllipsis)
            out << kEllipsis;
    }
    return out.join(kSeparator);
}

}  // namespace

QString fitRunName(const QString& name, const QStringList& shown, const QFontMetrics& metrics, int width) {
    if (metrics.horizontalAdvance(name) <= width) return name;
    const QStringList parts = name.split(kSeparator);
    const std::vector<bool> shared = sharedParts(parts, name, shown);
    // The shared parts, longest first: each one dropped saves the most room for the least said.
    std::vector<int> order(std::size_t(parts.size()));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return parts[a].size() > parts[b].size(); });
    std::vector<bool> dropped(std::size_t(parts.size()), false);
    QString text = name;
    for (int i : order) {
        if (!shared[std::size_t(i)]) continue;
        dropped[std::size_t(i)] = true;
        text = joined(parts, dropped);
        if (metrics.horizontalAdvance(text) <= width) return text;
    }
    // Still too wide: the rest cut in its middle after the number, so that the number and the start (at the
    // end) stay (issue #45).
    const QString head = parts.front() + kSeparator;
    const int room = width - metrics.horizontalAdvance(head);
    if (parts.size() < 2 || room < metrics.horizontalAdvance(QStringLiteral("m…m")))
        return metrics.elidedText(text, Qt::ElideRight, width);
    return head + metrics.elidedText(text.mid(head.size()), Qt::ElideMiddle, room);
}

QStringList differingRunParts(const QString& name, const QStringList& shown) {
    const QStringList parts = name.split(kSeparator);
    const std::vector<bool> shared = sharedParts(parts, name, shown);
    QStringList out;
    for (int i = 1; i < parts.size(); ++i)
        if (!shared[std::size_t(i)]) out << parts[i];
    return out;
}

QString distinctRunName(const QString& name, const QStringList& shown) {
    const QStringList parts = name.split(kSeparator);
    return joined(parts, sharedParts(parts, name, shown));
}

}  // namespace wbui
