// Charts and tables as files: a QCustomPlot chart as PNG, SVG or PDF (by the file's suffix), every metric of
// every run as one long-format CSV (wb::comparisonCsv), the comparison table as CSV, environment.json (the
// devices and library versions an export was made with), and whole-or-nothing file writes. The app's
// exports and the CLI's `compare --png` and sweep plots share this code, so both write the same files.
#pragma once

#include <QByteArray>
#include <QString>

#include <vector>

#include "workbench/domain/RunFolder.h"

class QCustomPlot;

namespace wbui {

class PlotFiles {
public:
    static constexpr int kWidth = 1200;
    static constexpr int kHeight = 700;

    // Suffix .png, .svg or .pdf. Returns false with *error set (one line naming the file). A caption is
    // drawn above the plot in the file only (the plot on screen is left as it was).
    static bool savePlot(QCustomPlot* plot, const QString& path, QString* error, int width = kWidth,
                         int height = kHeight, const QString& caption = QString());
    // "what · corpus · date" and the runs' labels, for the caption of a chart of these runs.
    static QString caption(const QString& what, const std::vector<wb::RunRecord>& runs);
    static bool writeRunsCsv(const std::vector<wb::RunRecord>& runs, const QString& path, QString* error);
    static bool writeComparisonTableCsv(const std::vector<wb::ComparisonRow>& rows, const QString& path,
                                        QString* error);
    // Writes the whole file or nothing (a temporary file renamed into place); false with *error set.
    static bool writeFile(const QString& path, const QByteArray& bytes, QString* error);
    // Replaces `to` with a copy of `from`; false with *error naming both.
    static bool copyFile(const QString& from, const QString& to, QString* error);
    // Sets *error to "PATH: why" and returns false: the one-line failure of every export.
    static bool fail(QString* error, const QString& path, const QString& why);
    // environment.json for a bundle: this machine's devices, LibTorch, BLAS, Qt and QCustomPlot versions.
    static QByteArray environmentJson();
};

}  // namespace wbui
