// A run's name fitted to the room a list, a chart title or an axis gives it, among the runs shown beside it
// (issue #63: cut in its middle, "run 1 · tang-quatrains-7 …read · fp32" beside "run 2 · tang-quatrains-7
// …eads" lost the very words that told the runs apart). A name is read as parts joined by " · " (the run's
// number, corpus and task, device words, precision, start); the parts every shown run shares go first,
// longest first, each as one "…", so that the number and what differs stay. Only when that is not enough is
// the rest cut in its middle (the number at its start and the start time at its end stay, issue #45).
#pragma once

#include <QFontMetrics>
#include <QString>
#include <QStringList>

namespace wbui {

// `name` within `width` pixels of `metrics`, the parts it shares with every one of `shown` (the names beside
// it; may hold `name` itself) elided first. The whole name when it fits or nothing else is shown.
QString fitRunName(const QString& name, const QStringList& shown, const QFontMetrics& metrics, int width);
// Without a width: the run's number and the parts it does not share with all of `shown`, the shared ones
// as "…" (a narrow axis: "run 2 · … · 2 threads · … · 11-28 09:30").
QString distinctRunName(const QString& name, const QStringList& shown);
// The parts after the run's number that `name` does not share with every one of `shown`, in order
// ("2 threads", "12-02 11:19"): what a line under the number says in the narrowest room.
QStringList differingRunParts(const QString& name, const QStringList& shown);

}  // namespace wbui
