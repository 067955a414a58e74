// What only the window exports: a Qt Charts view (the throughput bars) as PNG, SVG or PDF, and the dialog
// that asks for a bundle's new folder. Plots, CSVs and bundles as files are workbench/graphics/PlotFiles.h,
// shared with the CLI.
#pragma once

#include <QString>

class QChartView;
class QWidget;

namespace wbui {

class ChartExporter {
public:
    // A shown chart as laid out on screen. Returns false with *error set (one line naming the file).
    static bool saveChartView(QChartView* view, const QString& path, QString* error);
    // Asks for the path of a folder to create (a bundle), starting at `suggested`: a name that does not
    // exist yet is what the user types, which a folder picker would refuse. "" when cancelled.
    static QString askForNewFolder(QWidget* parent, const QString& title, const QString& suggested);
};

}  // namespace wbui
