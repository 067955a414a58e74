// All compared runs on one chart: pick the metric and the x axis (step, epoch, samples seen, wall-clock
// seconds), log scale, exponential smoothing, hover read-out, zoom and pan, legend with device, threads
// and precision. New records are appended in bulk; a change of metric, axis or smoothing rebuilds.
// Its curves are drawn as workbench/graphics/LossCurves.h draws them for `compare --png`.
#pragma once

#include <QHash>
#include <QWidget>

#include <cstddef>
#include <string>
#include <vector>

#include "workbench/graphics/LossCurves.h"

class QBoxLayout;
class QCheckBox;
class QComboBox;
class QCustomPlot;
class QHBoxLayout;
class QCPGraph;
class QCPItemText;
class QCPItemTracer;
class QMouseEvent;
class QSlider;
class QToolButton;
class QVBoxLayout;

namespace wbui {

class RunCollection;
class ReplotThrottle;

class OverlayChart : public QWidget {
    Q_OBJECT
public:
    explicit OverlayChart(RunCollection* runs, QWidget* parent = nullptr);

    void setXAxisMode(XAxisMode mode);
    XAxisMode xAxisMode() const { return m_mode; }
    // The metrics to choose from: kOverlayMetrics first, then every other (split, metric) pair the runs'
    // records carry, by name ("val macro f1"), added as they first arrive, so a metric the trainer starts
    // to emit can be compared without an edit here. setMetric takes an index into them.
    void setMetric(int index);
    int metric() const { return m_metric; }
    int metricCount() const { return int(m_metrics.size()); }
    QString metricTitle(int index) const;
    void setLogScale(bool on);
    bool logScale() const { return m_log; }
    // 0 = raw, up to 0.99 = heavy (TensorBoard's EMA weight).
    void setSmoothing(double weight);
    double smoothing() const { return m_smoothing; }

    QCustomPlot* plot() const { return m_plot; }
    int graphCount() const;
    int pointCount() const;
    // Rebuilds every series and replots now, without waiting for the throttle (export, tests).
    void flush();
    // The legend's names fitted to a plot `width` pixels wide (fitRunName: what the runs share elided
    // first): a whole name wider than a narrow plot was cut at its start, run number included. An export
    // fits them to the image's width, the screen to the plot's.
    void fitLegend(int width);
    // The hover read-out for a position in plot pixels (what the user sees next to the mouse).
    QString readoutAt(const QPointF& pixel);
    // The line across an empty chart that says how to fill it; "" while runs are drawn.
    QString emptyHint() const;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Series {
        QCPGraph* graph = nullptr;
        CurveCursor cursor;  // how far the run's records are drawn
    };
    QToolButton* buildToolbar(QVBoxLayout* layout);
    void buildPlot(QVBoxLayout* layout);
    // Adds (split, metric) to the choices when it is not one yet.
    void noteMetric(const std::string& split, const std::string& metric);
    void rebuildAll();
    void syncRun(const QString& key, bool rebuild);
    void removeRun(const QString& key);
    void syncPending();
    void applyAxes();
    void updateEmptyHint();
    void onMouseMove(QMouseEvent* event);
    void fitToolbar();  // its two rows side by side when they fit, else one above the other

    RunCollection* m_runs = nullptr;
    QCustomPlot* m_plot = nullptr;
    QComboBox* m_metricBox = nullptr;
    QComboBox* m_axisBox = nullptr;
    QCheckBox* m_logBox = nullptr;
    QBoxLayout* m_toolbar = nullptr;
    QHBoxLayout* m_toolbarRows[2] = {nullptr, nullptr};
    QSlider* m_smoothSlider = nullptr;
    QCPItemTracer* m_tracer = nullptr;
    QCPItemText* m_readout = nullptr;
    QCPItemText* m_emptyHint = nullptr;
    ReplotThrottle* m_throttle = nullptr;

    struct Choice {
        std::string split, metric;
        QString title;
    };
    std::vector<Choice> m_metrics;
    QHash<QString, Series> m_series;
    QHash<QString, bool> m_pending;  // key -> needs rebuild
    XAxisMode m_mode = XAxisMode::Step;
    int m_metric = 0;
    bool m_log = false;
    double m_smoothing = 0.0;
    bool m_userZoomed = false;
};

}  // namespace wbui
