// Headless export for the CLI: `compare` loads run folders, renders the overlay loss chart (the GUI's own
// chart and exporter) to PNG without a display and writes all series as one CSV; `sweep` draws its plots.
// Deliberately free of Qt types so that the CLI can include it without pulling Qt into its sources.
#pragma once

#include <string>
#include <vector>

namespace wbui {

// pngPath or csvPath may be empty to skip that output. Returns 0 on success, 2 for bad input (a folder
// that is not a run folder or cannot be read; *error is one line naming it), 1 when an output cannot be
// written. Creates an offscreen QApplication when the process has none.
int exportComparison(const std::vector<std::string>& runDirs, const std::string& pngPath,
                     const std::string& csvPath, std::string* error);

// A sweep's plots (workbench/SweepPlots.h) as PNG and CSV in SWEEP_DIR/plots/, for `lstm-workbench-cli
// sweep`: the Sweep tab's own charts. Returns false with *error set when a file cannot be written.
bool exportSweepFolderPlots(const std::string& sweepDir, std::string* error);

}  // namespace wbui
