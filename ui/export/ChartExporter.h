// Writes what the user sees to files: a QCustomPlot chart as PNG, SVG or PDF (by the file's suffix), a Qt
// Charts view likewise, every metric of every run as one long-format CSV (wb::comparisonCsv), and a
// comparison bundle folder (charts, CSVs, each run's config, devices and library versions). The GUI and
// the headless `compare` share this code so that both produce the same pictures.
#pragma once

#include <QString>

#include <vector>

#include "workbench/RunFolder.h"

class QChartView;
class QCustomPlot;
class QWidget;

namespace wbui {

class ChartExporter {
public:
    static constexpr int kWidth = 1200;
    static constexpr int kHeight = 700;

    // Suffix .png, .svg or .pdf. Returns false with *error set (one line naming the file). A caption is
    // drawn above the plot in the file only (the plot on screen is left as it was).
    static bool savePlot(QCustomPlot* plot, const QString& path, QString* error, int width = kWidth,
                         int height = kHeight, const QString& caption = QString());
    // "what · corpus · date" and the runs' labels, for the caption of a chart of these runs.
    static QString caption(const QString& what, const std::vector<wb::RunRecord>& runs);
    static bool saveChartView(QChartView* view, const QString& path, QString* error);
    static bool writeCsv(const std::vector<wb::RunRecord>& runs, const QString& path, QString* error);
    static bool writeComparisonTableCsv(const std::vector<wb::ComparisonRow>& rows, const QString& path,
                                        QString* error);
    // Writes the whole file or nothing (a temporary file renamed into place); false with *error set.
    static bool writeFile(const QString& path, const QByteArray& bytes, QString* error);
    // Replaces `to` with a copy of `from`; false with *error naming both.
    static bool copyFile(const QString& from, const QString& to, QString* error);
    // Asks for the path of a folder to create (a bundle), starting at `suggested`: a name that does not
    // exist yet is what the user types, which a folder picker would refuse. "" when cancelled.
    static QString askForNewFolder(QWidget* parent, const QString& title, const QString& suggested);
    // environment.json for the bundle: this machine's devices, LibTorch, BLAS, Qt and QCustomPlot versions.
    static QByteArray environmentJson();
};

}  // namespace wbui
