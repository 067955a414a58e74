// The sweep bundle folder: sweep.json, results, the plots (workbench/graphics/HeadlessExport.h writes them as
// the CLI's `sweep` does), each finished cell's run files and environment.json.
#pragma once

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

#include "workbench/domain/Sweep.h"
#include "workbench/domain/SweepResults.h"

namespace wbui {

// The sweep bundle: the sweep in sweepDir, its results and the speed-up against baselineDevice, into outDir.
bool writeSweepBundle(const wb::Sweep& sweep, const QString& sweepDir, const wb::SweepResults& results,
                      const std::string& baselineDevice, const QString& outDir, QString* error);

}  // namespace wbui
