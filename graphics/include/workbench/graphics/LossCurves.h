// Runs' metric curves on one QCustomPlot, as the Compare tab's overlay shows them and `lstm-workbench-cli
// compare --png` writes them: the runs' legend names and colours, the points of a (split, metric) pair
// against the chosen x axis with exponential smoothing, and the axes fitted with a little head-room.
#pragma once

#include <QColor>
#include <QString>
#include <QVector>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "workbench/domain/RunFolder.h"
#include "workbench/graphics/SeriesAxis.h"

class QCustomPlot;

namespace wbui {

// The legend text of a run: its name (RunRecord::name), and the host of a run made on another machine (the
// CLI on a GPU server) or every host of a run across machines.
QString runLegendLabel(const wb::RunRecord& record);
// What runLegendLabel adds to a name: " · hostA + hostB" for a run over several hosts, " · host" for one made
// on another machine, else nothing.
QString runHostSuffix(const wb::RunRecord& record);
// The labels of runs shown together: two that would read alike (one experiment on one device started in the
// same minute, or one name given twice) get the folder's id, which is unique.
QStringList runLegendLabels(const std::vector<wb::RunRecord>& records);

// Where a curve has got to in its run's records, so that new records are appended, not redrawn.
struct CurveCursor {
    std::size_t consumed = 0;
    double ema = 0;
    bool started = false;
};

// The points of (split, metric) in records[cursor->consumed...] into xs and ys, smoothed with TensorBoard's
// EMA weight (0 = raw, up to 0.99); non-finite values are skipped. Every other (split, metric) pair met is
// passed to `other` (may be empty), so a chart can offer it.
void appendCurvePoints(const std::vector<wb::MetricRecord>& records, const std::string& split,
                       const std::string& metric, XAxisMode mode, double smoothing, CurveCursor* cursor,
                       QVector<double>* xs, QVector<double>* ys,
                       const std::function<void(const std::string&, const std::string&)>& other = {});

// The legend's look and place (top right, translucent).
void styleLossPlot(QCustomPlot* plot);
// Every graph's data in view, with 5 % head-room above and below (10 % on a log axis).
void fitLossAxes(QCustomPlot* plot, bool logScale);
// The runs' curves of one metric, each in its run colour (runColor by position) with its legend label; what
// the CLI renders to PNG.
void drawLossCurves(QCustomPlot* plot, const std::vector<wb::RunRecord>& records, const MetricChoice& metric,
                    XAxisMode mode);

}  // namespace wbui
