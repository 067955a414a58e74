// A sweep as files: its plots (PNG + CSV each, drawn by the Sweep tab's own chart) and the sweep bundle
// folder (sweep.json, results, plots, each finished cell's run files, environment.json). The Sweep tab and
// the CLI's `sweep` (export/HeadlessCompare.h) share this code.
#pragma once

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

#include "workbench/Sweep.h"
#include "workbench/SweepPlots.h"

namespace wbui {

// "corpus · 2026-11-23": the subtitle of a sweep's charts.
QString sweepSubtitle(const wb::Sweep& sweep);

// Writes plot.id + ".png" and ".csv" into dir for every plot that the sweep can draw; the names of the files
// written go to *written. Returns false with *error set (one line naming the file).
bool exportSweepPlots(const std::vector<wb::SweepPlot>& plots, const QString& subtitle, const QString& dir,
                      QStringList* written, QString* error);

// The sweep bundle: the sweep in sweepDir, its results and the speed-up against baselineDevice, into outDir.
bool writeSweepBundle(const wb::Sweep& sweep, const QString& sweepDir, const wb::SweepResults& results,
                      const std::string& baselineDevice, const QString& outDir, QString* error);

}  // namespace wbui
