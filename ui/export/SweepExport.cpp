// A sweep's plots and its bundle folder.
#include "export/SweepExport.h"

#include <QDate>
#include <QDir>
#include <QFileInfo>

#include "common/QtConversions.h"
#include "export/ChartExporter.h"
#include "sweep/SweepChart.h"
#include "workbench/RunFolder.h"

namespace wbui {

QString sweepSubtitle(const wb::Sweep& sweep) {
    return QFileInfo(toQt(sweep.base.data.corpus)).fileName() + QStringLiteral(" · ") +
           QDate::currentDate().toString(Qt::ISODate);
}

bool exportSweepPlots(const std::vector<wb::SweepPlot>& plots, const QString& subtitle, const QString& dir,
                      QStringList* written, QString* error) {
    if (!QDir().mkpath(dir)) {
        if (error) *error = dir + QStringLiteral(": cannot create the folder");
        return false;
    }
    for (const auto& p : plots) {
        if (!p.unavailable.empty()) continue;
        SweepChart chart;
        chart.resize(ChartExporter::kWidth, ChartExporter::kHeight);
        chart.setPlot(p, subtitle);
        const QString base = QDir(dir).filePath(toQt(p.id));
        if (!ChartExporter::savePlot(chart.plot(), base + QStringLiteral(".png"), error) ||
            !ChartExporter::writeFile(base + QStringLiteral(".csv"), QByteArray::fromStdString(p.toCsv()),
                                      error))
            return false;
        if (written) *written << base + QStringLiteral(".png") << base + QStringLiteral(".csv");
    }
    return true;
}

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
            !ChartExporter::copyFile(src.filePath(QLatin1String(name)), out.filePath(QLatin1String(name)),
                                     error))
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
                !ChartExporter::copyFile(
                    from, out.filePath(runFolder + QLatin1Char('/') + QLatin1String(name)), error))
                return false;
        }
    }
    return ChartExporter::writeFile(out.filePath(QStringLiteral("environment.json")),
                                    ChartExporter::environmentJson(), error);
}

}  // namespace wbui
