// The comparison table (wb::compareRuns): device, samples/s, µs/sample, time to reach a target loss the
// user sets, best validation loss and accuracy, and the speed-up against the slowest run. Refreshed from
// the RunCollection at ≤ 30 Hz.
#pragma once

#include <QWidget>

#include <vector>

#include "workbench/RunFolder.h"

class QDoubleSpinBox;
class QTableWidget;

namespace wbui {

class RunCollection;
class ReplotThrottle;

class ComparisonTable : public QWidget {
    Q_OBJECT
public:
    explicit ComparisonTable(RunCollection* runs, QWidget* parent = nullptr);

    double targetLoss() const;
    void setTargetLoss(double loss);
    QTableWidget* table() const { return m_table; }
    const std::vector<wb::ComparisonRow>& rows() const { return m_rows; }
    void refresh();

Q_SIGNALS:
    void rowsChanged();

private:
    RunCollection* m_runs = nullptr;
    QDoubleSpinBox* m_target = nullptr;
    QTableWidget* m_table = nullptr;
    ReplotThrottle* m_throttle = nullptr;
    std::vector<wb::ComparisonRow> m_rows;
};

}  // namespace wbui
