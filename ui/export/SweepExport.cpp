// A sweep's plots and its bundle folder.
#include "export/SweepExport.h"

#include <QDate>
#include <QDir>
#include <QFileInfo>

#include "workbench/domain/RunFolder.h"
#include "workbench/graphics/HeadlessExport.h"
#include "workbench/graphics/PlotFiles.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

bool writeSweepBundle(const wb::Sweep& sweep, const QString& sweepDir, const wb::SweepResults& results,
                      const std::string& baselineDevice, const QString& outDir, QString* error) {
    const QDir out(outDir);
    const auto makeFolder = [&](const QString& relative) {
        if (out.mkpath(relative)) return true;
        if (error) *error = QObject::tr("%1: cannot create the folder").arg(out.filePath(relative));
        return false;
    };
    if (!makeFolder(QStringLiteral("runs"))) return false;
    const QDir src(sweepDir);
    for (const auto* name : {wb::kSweepFile, wb::kSweepResults})
        if (QFileInfo::exists(src.filePath(QLatin1String(name))) &&
            !PlotFiles::copyFile(src.filePath(QLatin1String(name)), out.filePath(QLatin1String(name)), error))
            return false;
    const auto plots = wb::sweepPlots(sweep, results, baselineDevice);
    if (!exportSweepPlots(plots, sweepSubtitle(sweep), out.filePath(QStringLiteral("plots")), nullptr, error))
        return false;
    for (const auto& c : sweep.cells) {
        if (c.state != wb::CellState::Done) continue;
        const QString runFolder = QStringLiteral("runs/") + QFileInfo(toQt(c.runDir)).fileName();
        if (!makeFolder(runFolder)) return false;
        for (const auto* name : {wb::runfiles::kConfig, wb::runfiles::kRun, wb::runfiles::kMetrics}) {
            const QString from = src.filePath(toQt(c.runDir) + QLatin1Char('/') + QLatin1String(name));
            if (QFileInfo::exists(from) &&
                !PlotFiles::copyFile(from, out.filePath(runFolder + QLatin1Char('/') + QLatin1String(name)),
                                     error))
                return false;
        }
    }
    return PlotFiles::writeFile(out.filePath(QStringLiteral("environment.json")),
                                PlotFiles::environmentJson(), error);
}

}  // namespace wbui
