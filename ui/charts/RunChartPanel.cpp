// The live chart of one run.
#include "charts/RunChartPanel.h"

#include "workbench/graphics/CurvePen.h"

#include <QVBoxLayout>

#include <cmath>

#include "workbench/graphics/QCustomPlot.h"
#include "workbench/graphics/RunNames.h"

#include "runs/RunCollection.h"
#include "workbench/domain/Baseline.h"

namespace wbui {

RunChartPanel::RunChartPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_plot = new QCustomPlot(this);
    m_plot->setMinimumSize(280, 200);
    m_plot->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    // In the layout: without it the plot stayed at its minimum size in the panel's corner.
    layout->addWidget(m_plot);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(
        0, 0, new QCPTextElement(m_plot, QString(), QFont(font().family(), 10, QFont::Bold)));
    m_plot->xAxis->setLabel(tr("step"));
    m_plot->yAxis->setLabel(tr("loss"));
    m_plot->yAxis2->setLabel(tr("accuracy"));
    m_plot->yAxis2->setRange(0, 1);
    m_plot->legend->setVisible(true);
    m_plot->legend->setFont(QFont(font().family(), 8));
    m_plot->legend->setBrush(QColor(255, 255, 255, 200));
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);

    m_trainLoss = m_plot->addGraph();
    m_trainLoss->setName(tr("train loss"));
    m_valLoss = m_plot->addGraph();
    m_valLoss->setName(tr("val loss"));
    m_valLoss->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    m_valAccuracy = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis2);
    m_valAccuracy->setName(tr("val accuracy"));
    m_valAccuracy->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, 6));
    m_valAccuracy->setPen(QPen(QColor(0, 158, 115), 1.5, Qt::DashLine));
    m_valAccuracy->removeFromLegend();
}

int RunChartPanel::pointCount() const {
    return m_trainLoss->dataCount() + m_valLoss->dataCount() + m_valAccuracy->dataCount();
}

QString RunChartPanel::title() const { return m_heading; }

void RunChartPanel::fitHeading(int chartWidth) {
    auto* title = qobject_cast<QCPTextElement*>(m_plot->plotLayout()->element(0, 0));
    if (!title) return;
    const QFontMetrics metrics(title->font());
    const int width = std::max(80, chartWidth - 16);
    QStringList lines;
    for (const auto& line : m_heading.split(QLatin1Char('\n')))
        lines << (lines.isEmpty() ? fitRunName(line, m_shownNames, metrics, width)
                                  : metrics.elidedText(line, Qt::ElideMiddle, width));
    title->setText(lines.join(QLatin1Char('\n')));
    setToolTip(m_heading);
}

void RunChartPanel::setShownNames(const QStringList& names) {
    if (names == m_shownNames) return;
    m_shownNames = names;
    fitHeading(m_plot->width());
}

void RunChartPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitHeading(m_plot->width());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

// The baseline's loss as a dashed line with its label: the level the curve must get under.
void RunChartPanel::showBaseline(const wb::NgramBaseline& baseline) {
    m_baselineLoss = baseline.bitsPerToken * std::log(2.0);
    m_baselineLine = new QCPItemStraightLine(m_plot);
    m_baselineLine->point1->setCoords(0, m_baselineLoss);
    m_baselineLine->point2->setCoords(1, m_baselineLoss);
    m_baselineLine->setPen(QPen(QColor(110, 110, 110), 1.2, Qt::DashLine));
    m_baselineText = new QCPItemText(m_plot);
    m_baselineText->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    m_baselineText->position->setTypeY(QCPItemPosition::ptPlotCoords);
    m_baselineText->position->setCoords(0.01, m_baselineLoss);
    m_baselineText->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    m_baselineText->setColor(QColor(90, 90, 90));
    m_baselineText->setFont(QFont(font().family(), 8));
    // On a white ground: the training curve often runs right through the label.
    m_baselineText->setBrush(QColor(255, 255, 255, 210));
    // The axis is the loss in nats a character; the label says both, so the line's height reads right.
    m_baselineText->setText(tr("5-gram baseline: loss %1 (%2 bits/char)")
                                .arg(m_baselineLoss, 0, 'f', 2)
                                .arg(baseline.bitsPerToken, 0, 'f', 2));
}

QString RunChartPanel::baselineLabel() const { return m_baselineText ? m_baselineText->text() : QString(); }

void RunChartPanel::sync(const RunEntry& entry, bool rebuild) {
    // A character model's title says how far its last validation is from the n-gram baseline, in bits per
    // character; its chart draws the baseline's loss as a dashed line, the level the curve must get under.
    const auto& baseline = entry.record.baseline;
    if (baseline && !m_baselineLine) showBaseline(*baseline);
    m_valLoss->setPen(QPen(entry.color.darker(130), 2));
    if (rebuild) {
        m_trainLoss->data()->clear();
        m_valLoss->data()->clear();
        m_valAccuracy->data()->clear();
        m_consumed = 0;
        m_lastValBpc = -1;
    }
    const auto& metrics = entry.record.metrics;
    QVector<double> tx, ty, vx, vy, ax, ay;
    for (std::size_t i = m_consumed; i < metrics.size(); ++i) {
        const auto& r = metrics[i];
        if (r.metric == "loss" && r.split == "train") {
            tx << double(r.step);
            ty << r.value;
        } else if (r.metric == "loss" && r.split == "val") {
            vx << double(r.step);
            vy << r.value;
        } else if (r.metric == "accuracy" && r.split == "val") {
            ax << double(r.step);
            ay << r.value;
        } else if (r.metric == "bpc" && r.split == "val") {
            m_lastValBpc = r.value;
        }
    }
    m_consumed = metrics.size();
    QString heading = entry.label;
    QStringList bits;
    if (m_lastValBpc >= 0) bits << tr("val %1 bits/char").arg(m_lastValBpc, 0, 'f', 3);
    if (baseline) bits << tr("5-gram %1").arg(baseline->bitsPerToken, 0, 'f', 3);
    if (!bits.isEmpty()) heading += QStringLiteral("\n") + bits.join(QStringLiteral(" · "));
    if (heading != m_heading) {
        m_heading = heading;
        fitHeading(m_plot->width());
    }
    // Records arrive in step order: alreadySorted saves QCustomPlot a sort per batch.
    if (!tx.isEmpty()) m_trainLoss->addData(tx, ty, true);
    m_trainLoss->setPen(curvePen(entry.color.lighter(130), 1.2, m_trainLoss->dataCount()));
    m_trainLoss->setScatterStyle(curveMarkers(m_trainLoss->dataCount()));
    if (!vx.isEmpty()) m_valLoss->addData(vx, vy, true);
    if (!ax.isEmpty()) {
        m_valAccuracy->addData(ax, ay, true);
        if (!m_hasAccuracy) {
            m_hasAccuracy = true;
            m_valAccuracy->addToLegend();
            m_plot->yAxis2->setVisible(true);
        }
    }
    m_plot->yAxis2->setVisible(m_hasAccuracy);
    m_trainLoss->rescaleAxes();
    m_valLoss->rescaleAxes(true);
    // The baseline stays in view: how far the curve still has to fall is the point of drawing it.
    if (m_baselineLine && pointCount() > 0) {
        auto range = m_plot->yAxis->range();
        range.expand(m_baselineLoss);
        m_plot->yAxis->setRange(range);
    }
    // A little room above and below: the newest (lowest) points sat on the axis line.
    if (pointCount() > 1) m_plot->yAxis->scaleRange(1.08);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace wbui
