// The Compare tab as files: the overlay chart (PNG, SVG, PDF), every series as one CSV, and the comparison
// bundle folder (the overlay in each x-axis mode, each run's chart and config, the throughput bars, the
// metrics and comparison table as CSV, environment.json). Also the File → Export dialogs that ask for a
// name first. Failures go to the ErrorPresenter; nothing half-written is left (PlotFiles::writeFile).
#pragma once

#include <QObject>
#include <QString>

class QWidget;

namespace wbui {

class ComparisonTable;
class ErrorPresenter;
class OverlayChart;
class RunChartGrid;
class RunCollection;
class ThroughputChart;

class ComparisonExport : public QObject {
    Q_OBJECT
public:
    // What the bundle is drawn from; none is owned.
    struct Views {
        RunCollection* runs = nullptr;
        OverlayChart* overlay = nullptr;
        RunChartGrid* grid = nullptr;
        ComparisonTable* table = nullptr;
        ThroughputChart* throughput = nullptr;
    };
    // dialogParent: the window the file dialogs belong to (also this object's parent).
    ComparisonExport(const Views& views, ErrorPresenter* errors, QWidget* dialogParent);

    bool exportChart(const QString& path);
    bool exportCsv(const QString& path);
    bool exportBundle(const QString& dir);

    // Ask for a file or folder (starting in startDir), then export; a cancelled dialog does nothing.
    void exportChartDialog(const QString& startDir);
    void exportCsvDialog(const QString& startDir);
    void exportBundleDialog(const QString& startDir);

Q_SIGNALS:
    void statusMessage(const QString& text, int milliseconds);

private:
    bool fail(const QString& error, const QString& hint);

    Views m_views;
    ErrorPresenter* m_errors;
    QWidget* m_dialogParent;
};

}  // namespace wbui
