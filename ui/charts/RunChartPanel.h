// The live chart of one run: train loss and validation loss (left axis) and validation accuracy (right
// axis, 0–1) against steps. Data is appended in bulk from the run's records since the last sync, so a
// replot costs what arrived, not the whole history; QCustomPlot's adaptive sampling keeps long series fast.
#pragma once

#include <QWidget>

#include <cstddef>

class QCustomPlot;
class QCPGraph;

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

private:
    QCustomPlot* m_plot = nullptr;
    QCPGraph* m_trainLoss = nullptr;
    QCPGraph* m_valLoss = nullptr;
    QCPGraph* m_valAccuracy = nullptr;
    std::size_t m_consumed = 0;
    bool m_hasAccuracy = false;
};

}  // namespace wbui
