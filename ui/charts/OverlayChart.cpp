// All compared runs on one chart.
#include "charts/OverlayChart.h"

#include "workbench/graphics/CurvePen.h"
#include "workbench/graphics/LossCurves.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QToolButton>
#include <QVBoxLayout>

#include "workbench/graphics/QCustomPlot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "charts/ReplotThrottle.h"
#include "runs/RunCollection.h"
#include "workbench/graphics/QtConversions.h"
#include "workbench/graphics/RunNames.h"

namespace wbui {

// The metric, x axis, log scale and smoothing controls, in two rows when the chart is narrow (in one they
// set the Compare page's width, which scrolled sideways on a 1024-pixel screen, issue #63); returns the Fit
// button.
QToolButton* OverlayChart::buildToolbar(QVBoxLayout* layout) {
    auto* bar = new QHBoxLayout;
    m_metricBox = new QComboBox(this);
    for (const auto& m : kOverlayMetrics) {
        m_metrics.push_back({m.split, m.metric, tr(m.title)});
        m_metricBox->addItem(m_metrics.back().title);
    }
    m_metricBox->setToolTip(tr("The metric plotted for every run"));
    // Narrow enough for the Compare page on a small screen; the list opens as wide as its items.
    m_metricBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_metricBox->setMinimumContentsLength(10);
    m_axisBox = new QComboBox(this);
    for (auto mode : {XAxisMode::Step, XAxisMode::Epoch, XAxisMode::Samples, XAxisMode::WallSeconds})
        m_axisBox->addItem(xAxisTitle(mode));
    m_axisBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_axisBox->setMinimumContentsLength(8);
    m_axisBox->setToolTip(
        tr("Compare by step, epoch, samples seen or wall-clock time (which device learns faster)"));
    m_logBox = new QCheckBox(tr("log scale"), this);
    m_smoothSlider = new QSlider(Qt::Horizontal, this);
    m_smoothSlider->setRange(0, 99);
    m_smoothSlider->setMaximumWidth(140);
    m_smoothSlider->setToolTip(tr("Exponential smoothing of the curves (0 = raw)"));
    auto* reset = new QToolButton(this);
    reset->setText(tr("Fit"));
    reset->setToolTip(tr("Fit all data (after zooming with the wheel or panning by dragging)"));
    bar->addWidget(new QLabel(tr("Metric:"), this));
    bar->addWidget(m_metricBox);
    bar->addWidget(new QLabel(tr("x axis:"), this));
    bar->addWidget(m_axisBox);
    bar->addStretch(1);
    auto* view = new QHBoxLayout;
    view->addWidget(m_logBox);
    view->addWidget(new QLabel(tr("Smoothing:"), this));
    view->addWidget(m_smoothSlider);
    view->addWidget(reset);
    view->addStretch(1);
    m_toolbar = new QBoxLayout(QBoxLayout::LeftToRight);
    m_toolbar->addLayout(bar);
    m_toolbar->addLayout(view);
    m_toolbarRows[0] = bar;
    m_toolbarRows[1] = view;
    layout->addLayout(m_toolbar);
    return reset;
}

// The plot with its hover tracer and read-out box.
void OverlayChart::buildPlot(QVBoxLayout* layout) {
    m_plot = new QCustomPlot(this);
    m_plot->setMinimumSize(300, 220);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->setNoAntialiasingOnDrag(true);
    styleLossPlot(m_plot);
    m_tracer = new QCPItemTracer(m_plot);
    m_tracer->setStyle(QCPItemTracer::tsCircle);
    m_tracer->setSize(8);
    m_tracer->setVisible(false);
    m_readout = new QCPItemText(m_plot);
    m_readout->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    m_readout->position->setType(QCPItemPosition::ptAbsolute);
    m_readout->setPadding(QMargins(5, 3, 5, 3));
    m_readout->setBrush(QColor(255, 255, 240, 230));
    m_readout->setPen(QPen(Qt::gray));
    m_readout->setTextAlignment(Qt::AlignLeft);
    m_readout->setVisible(false);
    // An empty chart says what fills it, rather than showing bare axes.
    m_emptyHint = new QCPItemText(m_plot);
    m_emptyHint->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_emptyHint->position->setCoords(0.5, 0.5);
    m_emptyHint->setPositionAlignment(Qt::AlignCenter);
    m_emptyHint->setColor(QColor(110, 110, 110));
    m_emptyHint->setText(tr("No run to compare: tick the runs to compare in the Runs list"));
    layout->addWidget(m_plot, 1);
}

void OverlayChart::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitToolbar();
    fitLegend(m_plot->width());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void OverlayChart::fitToolbar() {
    const int oneRow =
        m_toolbarRows[0]->sizeHint().width() + m_toolbar->spacing() + m_toolbarRows[1]->sizeHint().width();
    const auto direction = width() >= oneRow ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
    if (m_toolbar->direction() != direction) m_toolbar->setDirection(direction);
}

void OverlayChart::updateEmptyHint() {
    m_emptyHint->setVisible(m_series.isEmpty());
    m_plot->legend->setVisible(!m_series.isEmpty());  // an empty legend is a stray box in the corner
}

QString OverlayChart::emptyHint() const { return m_emptyHint->visible() ? m_emptyHint->text() : QString(); }

OverlayChart::OverlayChart(RunCollection* runs, QWidget* parent) : QWidget(parent), m_runs(runs) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    QToolButton* reset = buildToolbar(layout);

    buildPlot(layout);
    // As narrow as the wider of the toolbar's rows or the plot allows: set here, so that the layout does not
    // make the toolbar in one row the chart's minimum (fitToolbar stacks them below that width).
    setMinimumWidth(std::max({m_plot->minimumWidth(), m_toolbarRows[0]->minimumSize().width(),
                              m_toolbarRows[1]->minimumSize().width()}));

    m_throttle = new ReplotThrottle(this);
    connect(m_throttle, &ReplotThrottle::due, this, &OverlayChart::syncPending);

    connect(m_metricBox, &QComboBox::currentIndexChanged, this, &OverlayChart::setMetric);
    connect(m_axisBox, &QComboBox::currentIndexChanged, this,
            [this](int i) { setXAxisMode(static_cast<XAxisMode>(i)); });
    connect(m_logBox, &QCheckBox::toggled, this, &OverlayChart::setLogScale);
    connect(m_smoothSlider, &QSlider::valueChanged, this, [this](int v) { setSmoothing(v / 100.0); });
    connect(reset, &QToolButton::clicked, this, [this] {
        m_userZoomed = false;
        applyAxes();
        m_plot->replot();
    });
    connect(m_plot, &QCustomPlot::mouseMove, this, &OverlayChart::onMouseMove);
    connect(m_plot, &QCustomPlot::mouseWheel, this, [this] { m_userZoomed = true; });
    connect(m_plot, &QCustomPlot::mousePress, this, [this] { m_userZoomed = true; });

    connect(m_runs, &RunCollection::runAdded, this, [this](const QString& key) {
        m_pending[key] = true;
        m_throttle->request();
    });
    connect(m_runs, &RunCollection::metricsAppended, this, [this](const QString& key) {
        if (!m_pending.contains(key)) m_pending[key] = false;
        m_throttle->request();
    });
    connect(m_runs, &RunCollection::runUpdated, this, [this](const QString& key) {
        m_pending[key] = true;
        m_throttle->request();
    });
    connect(m_runs, &RunCollection::runRemoved, this, [this](const QString& key) {
        removeRun(key);
        updateEmptyHint();
        m_plot->replot();
    });
    connect(m_runs, &RunCollection::cleared, this, [this] {
        for (const QString& key : m_series.keys()) removeRun(key);
        updateEmptyHint();
        m_plot->replot();
    });
    rebuildAll();
}

void OverlayChart::setXAxisMode(XAxisMode mode) {
    m_mode = mode;
    {
        QSignalBlocker b(m_axisBox);
        m_axisBox->setCurrentIndex(int(mode));
    }
    m_userZoomed = false;
    rebuildAll();
}

void OverlayChart::setMetric(int index) {
    if (index < 0 || index >= metricCount()) return;
    m_metric = index;
    {
        QSignalBlocker b(m_metricBox);
        m_metricBox->setCurrentIndex(index);
    }
    m_userZoomed = false;
    rebuildAll();
}

void OverlayChart::setLogScale(bool on) {
    m_log = on;
    {
        QSignalBlocker b(m_logBox);
        m_logBox->setChecked(on);
    }
    if (on) {
        m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    } else {
        m_plot->yAxis->setScaleType(QCPAxis::stLinear);
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    }
    applyAxes();
    m_plot->replot();
}

void OverlayChart::setSmoothing(double weight) {
    m_smoothing = std::clamp(weight, 0.0, 0.99);
    {
        QSignalBlocker b(m_smoothSlider);
        m_smoothSlider->setValue(int(std::lround(m_smoothing * 100)));
    }
    rebuildAll();
}

QString OverlayChart::metricTitle(int index) const {
    return index >= 0 && index < metricCount() ? m_metrics[std::size_t(index)].title : QString();
}

void OverlayChart::noteMetric(const std::string& split, const std::string& metric) {
    for (const auto& m : m_metrics)
        if (m.metric == metric && m.split == split) return;
    QString title = QString::fromStdString(split + " " + metric);
    title.replace(QLatin1Char('_'), QLatin1Char(' '));
    m_metrics.push_back({split, metric, title});
    QSignalBlocker b(m_metricBox);
    m_metricBox->addItem(title);
}

int OverlayChart::graphCount() const { return m_series.size(); }

int OverlayChart::pointCount() const {
    int n = 0;
    for (const auto& s : m_series) n += s.graph->dataCount();
    return n;
}

void OverlayChart::removeRun(const QString& key) {
    auto it = m_series.find(key);
    if (it == m_series.end()) return;
    m_plot->removeGraph(it->graph);
    m_series.erase(it);
    m_pending.remove(key);
    m_tracer->setGraph(nullptr);
}

void OverlayChart::rebuildAll() {
    for (int i = 0; i < m_runs->size(); ++i) m_pending[m_runs->at(i).key] = true;
    syncPending();
}

void OverlayChart::flush() { rebuildAll(); }

void OverlayChart::syncPending() {
    for (auto it = m_pending.cbegin(); it != m_pending.cend(); ++it) syncRun(it.key(), it.value());
    m_pending.clear();
    m_plot->xAxis->setLabel(xAxisTitle(m_mode));
    m_plot->yAxis->setLabel(m_metrics[std::size_t(m_metric)].title);
    applyAxes();
    updateEmptyHint();
    fitLegend(m_plot->width());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void OverlayChart::fitLegend(int width) {
    QStringList names;
    for (int i = 0; i < m_runs->size(); ++i) names << m_runs->at(i).label;
    const QFontMetrics metrics(m_plot->legend->font());
    const int room = std::max(120, width * 3 / 4 - 40);  // the legend's icons and margins take the rest
    for (auto it = m_series.cbegin(); it != m_series.cend(); ++it)
        if (const int i = m_runs->indexOf(it.key()); i >= 0 && it->graph)
            it->graph->setName(fitRunName(m_runs->at(i).label, names, metrics, room));
}

void OverlayChart::syncRun(const QString& key, bool rebuild) {
    const int index = m_runs->indexOf(key);
    if (index < 0) return;
    const RunEntry& entry = m_runs->at(index);
    Series& s = m_series[key];
    if (!s.graph) {
        s.graph = m_plot->addGraph();
        rebuild = true;
    }
    s.graph->setName(entry.label);
    if (rebuild) {
        s.graph->data()->clear();
        s.cursor = {};
    }
    // A copy: noteMetric may grow m_metrics while the records are read.
    const Choice metric = m_metrics[std::size_t(m_metric)];
    QVector<double> xs, ys;
    appendCurvePoints(entry.record.metrics, metric.split, metric.metric, m_mode, m_smoothing, &s.cursor, &xs,
                      &ys,
                      [this](const std::string& split, const std::string& name) { noteMetric(split, name); });
    if (!xs.isEmpty()) s.graph->addData(xs, ys, m_mode != XAxisMode::WallSeconds);
    s.graph->setPen(curvePen(entry.color, 1.8, s.graph->dataCount()));
    s.graph->setScatterStyle(curveMarkers(s.graph->dataCount()));
}

void OverlayChart::applyAxes() {
    if (m_userZoomed || m_series.isEmpty()) return;
    fitLossAxes(m_plot, m_log);
}

QString OverlayChart::readoutAt(const QPointF& pixel) {
    const double x = m_plot->xAxis->pixelToCoord(pixel.x());
    const double y = m_plot->yAxis->pixelToCoord(pixel.y());
    QString text = QStringLiteral("%1 = %2").arg(xAxisTitle(m_mode)).arg(x, 0, 'g', 5);
    QCPGraph* nearest = nullptr;
    double nearestDistance = std::numeric_limits<double>::max();
    double nearestKey = 0;
    for (int i = 0; i < m_runs->size(); ++i) {
        auto it = m_series.find(m_runs->at(i).key);
        if (it == m_series.end() || it->graph->dataCount() == 0) continue;
        auto data = it->graph->data();
        auto found = data->findBegin(x, false);
        if (found == data->constEnd()) continue;
        if (found != data->constBegin()) {
            auto prev = found - 1;
            if (std::fabs(prev->key - x) < std::fabs(found->key - x)) found = prev;
        }
        text += QStringLiteral("\n%1: %2").arg(m_runs->at(i).label).arg(found->value, 0, 'g', 5);
        const double d = std::fabs(m_plot->yAxis->coordToPixel(found->value) - pixel.y());
        if (d < nearestDistance) {
            nearestDistance = d;
            nearest = it->graph;
            nearestKey = found->key;
        }
    }
    Q_UNUSED(y);
    if (nearest) {
        m_tracer->setGraph(nearest);
        m_tracer->setGraphKey(nearestKey);
        m_tracer->setPen(nearest->pen());
    }
    return text;
}

void OverlayChart::onMouseMove(QMouseEvent* event) {
    if (m_series.isEmpty() || !m_plot->axisRect()->rect().contains(event->pos())) {
        if (m_readout->visible()) {
            m_readout->setVisible(false);
            m_tracer->setVisible(false);
            m_plot->replot(QCustomPlot::rpQueuedReplot);
        }
        return;
    }
    m_readout->setText(readoutAt(event->position()));
    // Keep the box inside the plot: flip it to the left of the cursor in the right half.
    const bool right = event->position().x() > m_plot->axisRect()->center().x();
    m_readout->setPositionAlignment((right ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignBottom);
    m_readout->position->setCoords(event->position().x() + (right ? -12 : 12), event->position().y() - 8);
    m_readout->setVisible(true);
    m_tracer->setVisible(m_tracer->graph() != nullptr);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace wbui
