// The comparison's chart, CSV and bundle exports.
#include "export/ComparisonExport.h"
#include "workbench/graphics/PlotFiles.h"
#include "workbench/graphics/QCustomPlot.h"

#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>

#include <memory>

#include "charts/ComparisonTable.h"
#include "charts/OverlayChart.h"
#include "charts/RunChartGrid.h"
#include "charts/RunChartPanel.h"
#include "charts/ThroughputChart.h"
#include "common/ErrorPresenter.h"
#include "export/ChartExporter.h"
#include "runs/RunCollection.h"

namespace wbui {

ComparisonExport::ComparisonExport(const Views& views, ErrorPresenter* errors, QWidget* dialogParent)
    : QObject(dialogParent), m_views(views), m_errors(errors), m_dialogParent(dialogParent) {}

bool ComparisonExport::fail(const QString& error, const QString& hint) {
    m_errors->showError(tr("Export failed"), error + hint);
    return false;
}

bool ComparisonExport::exportChart(const QString& path) {
    m_views.overlay->flush();
    QString error;
    m_views.overlay->fitLegend(PlotFiles::kWidth);  // the image's width, not the screen's
    const bool saved =
        PlotFiles::savePlot(m_views.overlay->plot(), path, &error, PlotFiles::kWidth, PlotFiles::kHeight,
                            PlotFiles::caption(tr("LSTM Workbench comparison"), m_views.runs->records()));
    m_views.overlay->fitLegend(m_views.overlay->plot()->width());
    if (!saved) return fail(error, tr("\n\nPick another folder or file name."));
    Q_EMIT statusMessage(tr("Chart saved to %1").arg(path), 6000);
    return true;
}

bool ComparisonExport::exportCsv(const QString& path) {
    QString error;
    if (!PlotFiles::writeRunsCsv(m_views.runs->records(), path, &error))
        return fail(error, tr("\n\nPick another folder or file name."));
    Q_EMIT statusMessage(tr("All series saved to %1").arg(path), 6000);
    return true;
}

bool ComparisonExport::exportBundle(const QString& dir) {
    const QString hint = tr("\n\nPick another folder.");
    if (!QDir().mkpath(dir + QStringLiteral("/configs")))
        return fail(tr("%1: cannot create the folder").arg(dir), hint);
    OverlayChart* overlay = m_views.overlay;
    RunCollection* runs = m_views.runs;
    overlay->flush();
    overlay->fitLegend(PlotFiles::kWidth);  // the images' width (the screen's again below)
    m_views.grid->flush();
    m_views.table->refresh();
    QString error;
    // The overlay in every x-axis mode a reader may ask about, then each run's own chart.
    const XAxisMode shown = overlay->xAxisMode();
    const struct {
        XAxisMode mode;
        const char* name;
    } modes[] = {{XAxisMode::Step, "overlay-step.png"},
                 {XAxisMode::WallSeconds, "overlay-wall-seconds.png"},
                 {XAxisMode::Samples, "overlay-samples.png"}};
    for (const auto& m : modes) {
        overlay->setXAxisMode(m.mode);
        const bool saved = PlotFiles::savePlot(
            overlay->plot(), dir + QLatin1Char('/') + QLatin1String(m.name), &error, PlotFiles::kWidth,
            PlotFiles::kHeight, PlotFiles::caption(tr("LSTM Workbench comparison"), runs->records()));
        if (!saved) {
            overlay->setXAxisMode(shown);
            return fail(error, hint);
        }
    }
    overlay->setXAxisMode(shown);
    overlay->fitLegend(overlay->plot()->width());
    for (int i = 0; i < runs->size(); ++i) {
        const RunEntry& e = runs->at(i);
        const QString id = QFileInfo(e.key).fileName();
        // A run opened only to compare it has no panel on the Training tab: one is drawn for the file.
        std::unique_ptr<RunChartPanel> drawn;
        RunChartPanel* panel = m_views.grid->panel(e.key);
        if (!panel) {
            drawn = std::make_unique<RunChartPanel>();
            drawn->resize(900, 560);
            drawn->sync(e, true);
            panel = drawn.get();
        }
        {
            panel->fitHeading(900);  // the image's width, not the screen's
            const bool saved = PlotFiles::savePlot(panel->plot(), dir + QStringLiteral("/run-%1.png").arg(id),
                                                   &error, 900, 560);
            panel->fitHeading(panel->plot()->width());
            if (!saved) return fail(error, hint);
        }
        if (!PlotFiles::writeFile(dir + QStringLiteral("/configs/%1.json").arg(id),
                                  QByteArray::fromStdString(e.record.config.toJson()), &error))
            return fail(error, hint);
    }
    // One image per throughput chart (runs of another task or corpus have their own): throughput.png,
    // throughput-2.png, ...
    if (m_views.throughput->barCount() > 0) {
        for (int i = 0; i < m_views.throughput->charts().size(); ++i) {
            const QString name =
                i == 0 ? QStringLiteral("/throughput.png") : QStringLiteral("/throughput-%1.png").arg(i + 1);
            const auto view = m_views.throughput->exportView(i);  // the runs' whole names
            if (!ChartExporter::saveChartView(view.get(), dir + name, &error)) return fail(error, hint);
        }
    }
    const bool written =
        PlotFiles::writeRunsCsv(runs->records(), dir + QStringLiteral("/metrics.csv"), &error) &&
        PlotFiles::writeComparisonTableCsv(m_views.table->rows(), dir + QStringLiteral("/comparison.csv"),
                                           &error) &&
        PlotFiles::writeFile(dir + QStringLiteral("/environment.json"), PlotFiles::environmentJson(), &error);
    if (!written) return fail(error, hint);
    Q_EMIT statusMessage(tr("Comparison bundle written to %1").arg(dir), 8000);
    return true;
}

void ComparisonExport::exportChartDialog(const QString& startDir) {
    QString selected;
    const QString path = QFileDialog::getSaveFileName(
        m_dialogParent, tr("Export the overlay chart"), startDir + QStringLiteral("/comparison.png"),
        tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"), &selected);
    if (path.isEmpty()) return;
    QString file = path;
    if (QFileInfo(file).suffix().isEmpty())
        file += selected.contains(QLatin1String("svg"))   ? QStringLiteral(".svg")
                : selected.contains(QLatin1String("pdf")) ? QStringLiteral(".pdf")
                                                          : QStringLiteral(".png");
    exportChart(file);
}

void ComparisonExport::exportCsvDialog(const QString& startDir) {
    QString path = QFileDialog::getSaveFileName(m_dialogParent, tr("Export all series"),
                                                startDir + QStringLiteral("/metrics.csv"), tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".csv");
    exportCsv(path);
}

void ComparisonExport::exportBundleDialog(const QString& startDir) {
    const QString dir = ChartExporter::askForNewFolder(
        m_dialogParent, tr("Save the comparison bundle as a new folder"),
        startDir + QStringLiteral("/comparison-") +
            QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
    if (!dir.isEmpty()) exportBundle(dir);
}

}  // namespace wbui
