// Charts written without a window.
#include "workbench/graphics/HeadlessExport.h"

#include <QApplication>
#include <QDate>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <unistd.h>

#include <memory>

#include "workbench/graphics/QCustomPlot.h"

#include "workbench/domain/RunFolder.h"
#include "workbench/domain/SweepPlots.h"
#include "workbench/graphics/LossCurves.h"
#include "workbench/graphics/PlotFiles.h"
#include "workbench/graphics/QtConversions.h"
#include "workbench/graphics/SweepPlotDrawing.h"

namespace wbui {

namespace {
// Widgets need a QApplication; the CLI has none and may run without a display.
std::unique_ptr<QApplication> ensureApplication() {
    if (QApplication::instance()) return nullptr;
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    // What Qt falls back to anyway, without its warning on every headless export.
    if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
        const QString runtime = QDir::tempPath() + QStringLiteral("/runtime-") + QString::number(getuid());
        if (QDir().mkpath(runtime) &&
            QFile::setPermissions(runtime,
                                  QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner))
            qputenv("XDG_RUNTIME_DIR", runtime.toLocal8Bit());
    }
    static int argc = 1;
    static char name[] = "lstm-workbench-cli";
    static char* argv[] = {name, nullptr};
    return std::make_unique<QApplication>(argc, argv);
}
}  // namespace

int exportComparison(const std::vector<std::string>& runDirs, const std::string& pngPath,
                     const std::string& csvPath, std::string* error) {
    const auto fail = [error](int code, const std::string& message) {
        if (error) *error = message;
        return code;
    };
    if (runDirs.empty()) return fail(2, "compare: no run folders given");
    std::vector<wb::RunRecord> records;
    for (const auto& dir : runDirs) {
        if (!wb::isRunFolder(dir))
            return fail(2, dir + ": not a run folder (config.json and run.json expected)");
        try {
            records.push_back(wb::loadRunFolder(dir));
        } catch (const std::exception& e) {
            return fail(2, e.what());
        }
    }
    if (!csvPath.empty()) {
        QString why;
        if (!PlotFiles::writeRunsCsv(records, toQt(csvPath), &why)) return fail(1, toStd(why));
    }
    if (pngPath.empty()) return 0;

    const auto ownApp = ensureApplication();
    QCustomPlot plot;
    plot.resize(PlotFiles::kWidth, PlotFiles::kHeight);
    // Loss against wall-clock time: the comparison of devices the reference write-ups make.
    drawLossCurves(&plot, records, kOverlayMetrics[0], XAxisMode::WallSeconds);
    QString why;
    if (!PlotFiles::savePlot(&plot, toQt(pngPath), &why, PlotFiles::kWidth, PlotFiles::kHeight,
                             PlotFiles::caption(QStringLiteral("Loss against wall-clock time"), records)))
        return fail(1, toStd(why));
    return 0;
}

bool exportSweepFolderPlots(const std::string& sweepDir, std::string* error) {
    try {
        const auto sweep = wb::loadSweep(sweepDir);
        const auto plots = wb::sweepPlots(sweep, wb::sweepResults(sweepDir, sweep));
        const auto ownApp = ensureApplication();
        QString why;
        if (!exportSweepPlots(plots, sweepSubtitle(sweep), toQt(sweepDir) + QStringLiteral("/plots"), nullptr,
                              &why)) {
            if (error) *error = toStd(why);
            return false;
        }
        return true;
    } catch (const std::exception& e) {
        if (error) *error = e.what();
        return false;
    }
}

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
        QCustomPlot plot;
        plot.resize(PlotFiles::kWidth, PlotFiles::kHeight);
        setUpSweepPlot(&plot);
        drawSweepPlot(&plot, p, subtitle);
        const QString base = QDir(dir).filePath(toQt(p.id));
        if (!PlotFiles::savePlot(&plot, base + QStringLiteral(".png"), error) ||
            !PlotFiles::writeFile(base + QStringLiteral(".csv"), QByteArray::fromStdString(p.toCsv()), error))
            return false;
        if (written) *written << base + QStringLiteral(".png") << base + QStringLiteral(".csv");
    }
    return true;
}

}  // namespace wbui
