// The live chart of one run: train loss and validation loss (left axis) and validation accuracy (right
// axis, 0–1) against steps; for a character model, its n-gram baseline's loss as a dashed line, and the
// latest val loss in bits per character next to the baseline's in the title. Data is appended in bulk from
// the run's records since the last sync, so a replot costs what arrived, not the whole history; QCustomPlot's
// adaptive sampling keeps long series fast.
#pragma once

#include <QWidget>

#include <cstddef>

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;

namespace wb {
struct NgramBaseline;
}

namespace wbui {

struct RunEntry;

class RunChartPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunChartPanel(QWidget* parent = nullptr);

    // Appends what is new in entry.record.metrics (or rebuilds when rebuild is set) and replots.
    void sync(const RunEntry& entry, bool rebuild);
    QCustomPlot* plot() const { return m_plot; }
    int pointCount() const;
    // The 5-gram baseline's loss in nats drawn on the chart; 0 when there is none.
    double baselineLoss() const { return m_baselineLoss; }
    // The baseline line's label ("" without one): its height in the axis's units and in bits per character.
    QString baselineLabel() const;
    QString title() const;

    // The heading fitted to a chart `width` pixels wide: the run's name with what it shares with the other
    // shown runs elided first (fitRunName: its number and what tells it apart stay), the lines below it in
    // their middle. The whole heading is the tooltip; an export fits it to the image's width.
    void fitHeading(int width);
    // The names of the runs shown beside this one (the grid's), which fitHeading elides first.
    void setShownNames(const QStringList& names);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void showBaseline(const wb::NgramBaseline& baseline);
    QString m_heading;
    QStringList m_shownNames;
    QCustomPlot* m_plot = nullptr;
    QCPGraph* m_trainLoss = nullptr;
    QCPGraph* m_valLoss = nullptr;
    QCPGraph* m_valAccuracy = nullptr;
    QCPItemStraightLine* m_baselineLine = nullptr;
    QCPItemText* m_baselineText = nullptr;
    double m_baselineLoss = 0;
    double m_lastValBpc = -1;
    std::size_t m_consumed = 0;
    bool m_hasAccuracy = false;
};

}  // namespace wbui
