// Charts written without a window, for the CLI: `compare` loads run folders, draws their loss curves as the
// Compare tab's overlay does (LossCurves.h) to PNG and writes every series as one CSV; `sweep` writes each
// plot kind's PNG and CSV as the Sweep tab draws them (SweepPlotDrawing.h). The functions taking std types
// are free of Qt types so that the CLI includes them without pulling Qt into its sources.
#pragma once

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

#include "workbench/domain/Sweep.h"
#include "workbench/domain/SweepPlots.h"

namespace wbui {

// pngPath or csvPath may be empty to skip that output. Returns 0 on success, 2 for bad input (a folder
// that is not a run folder or cannot be read; *error is one line naming it), 1 when an output cannot be
// written. Creates an offscreen QApplication when the process has none.
int exportComparison(const std::vector<std::string>& runDirs, const std::string& pngPath,
                     const std::string& csvPath, std::string* error);

// A sweep's plots (workbench/domain/SweepPlots.h) as PNG and CSV in SWEEP_DIR/plots/, for `lstm-workbench-cli
// sweep`: the Sweep tab's own charts. Returns false with *error set when a file cannot be written.
bool exportSweepFolderPlots(const std::string& sweepDir, std::string* error);

// "corpus · 2026-11-23": the subtitle of a sweep's charts.
QString sweepSubtitle(const wb::Sweep& sweep);

// Writes plot.id + ".png" and ".csv" into dir for every plot that the sweep can draw; the names of the files
// written go to *written (may be null). Returns false with *error set (one line naming the file).
bool exportSweepPlots(const std::vector<wb::SweepPlot>& plots, const QString& subtitle, const QString& dir,
                      QStringList* written, QString* error);

}  // namespace wbui
