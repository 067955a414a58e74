// Headless comparison export (no display needed).
#include "export/HeadlessCompare.h"

#include <QApplication>

#include <memory>

#include <qcustomplot.h>

#include "charts/OverlayChart.h"
#include "common/QtConversions.h"
#include "export/ChartExporter.h"
#include "runs/RunCollection.h"
#include "workbench/RunFolder.h"

namespace wbui {

int exportComparison(const std::vector<std::string>& runDirs, const std::string& pngPath,
                     const std::string& csvPath, std::string* error) {
    const auto fail = [error](int code, const std::string& message) {
        if (error) *error = message;
        return code;
    };
    if (runDirs.empty()) return fail(2, "compare: no run folders given");
    std::vector<wb::RunRecord> records;
    for (const auto& dir : runDirs) {
        if (!wb::isRunFolder(dir)) return fail(2, dir + ": not a run folder (config.json and run.json expected)");
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

    // Widgets need a QApplication; the CLI has none and may run without a display.
    std::unique_ptr<QApplication> ownApp;
    if (!QApplication::instance()) {
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
        static int argc = 1;
        static char name[] = "lstm-workbench-cli";
        static char* argv[] = {name, nullptr};
        ownApp = std::make_unique<QApplication>(argc, argv);
    }
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
    if (!ChartExporter::savePlot(chart.plot(), toQt(pngPath), &why)) return fail(1, toStd(why));
    return 0;
}

}  // namespace wbui
