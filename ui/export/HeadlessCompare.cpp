// Headless comparison export (no display needed).
#include "export/HeadlessCompare.h"

#include <QApplication>
#include <QDir>
#include <QFile>

#include <unistd.h>

#include <memory>

#include <qcustomplot.h>

#include "charts/OverlayChart.h"
#include "common/QtConversions.h"
#include "export/ChartExporter.h"
#include "export/SweepExport.h"
#include "runs/RunCollection.h"
#include "workbench/RunFolder.h"
#include "workbench/SweepPlots.h"

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
        if (!ChartExporter::writeCsv(records, toQt(csvPath), &why)) return fail(1, toStd(why));
    }
    if (pngPath.empty()) return 0;

    const auto ownApp = ensureApplication();
    RunCollection runs;
    for (auto& r : records) {
        RunEntry entry;
        entry.key = toQt(r.dir);
        entry.record = std::move(r);
        runs.add(std::move(entry));
    }
    OverlayChart chart(&runs);
    chart.resize(ChartExporter::kWidth, ChartExporter::kHeight);
    // Loss against wall-clock time: the comparison of devices the reference write-ups make.
    chart.setMetric(0);
    chart.setXAxisMode(XAxisMode::WallSeconds);
    chart.flush();
    QString why;
    if (!ChartExporter::savePlot(
            chart.plot(), toQt(pngPath), &why, ChartExporter::kWidth, ChartExporter::kHeight,
            ChartExporter::caption(QStringLiteral("Loss against wall-clock time"), runs.records())))
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

}  // namespace wbui
