// The comparison table (wb::compareRuns): device, samples/s, µs/sample, time to a target, best validation
// loss and accuracy, and the speed-up against a baseline. Runs fall into groups of comparable runs (the
// same task, corpus and model); speed-ups and targets never cross a group, and the table says when the runs
// form more than one. The target is per group and task unless the user sets one loss. Refreshed from the
// RunCollection at ≤ 4 Hz.
#pragma once

#include <QWidget>

#include <vector>

#include "workbench/domain/RunFolder.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QTableWidget;

namespace wbui {

class RunCollection;
class ReplotThrottle;

class ComparisonTable : public QWidget {
    Q_OBJECT
public:
    explicit ComparisonTable(RunCollection* runs, QWidget* parent = nullptr);

    // 0: per group and task (the default); > 0: this loss for every run.
    double targetLoss() const;
    void setTargetLoss(double loss);
    // The run speed-ups are relative to (an index into the collection), -1: each group's slowest.
    void setBaseline(int index);
    QTableWidget* table() const { return m_table; }
    QString groupsText() const;
    const std::vector<wb::ComparisonRow>& rows() const { return m_rows; }
    void refresh();

Q_SIGNALS:
    void rowsChanged();

private:
    void refillBaselines();
    void fillRow(int i, const wb::ComparisonRow& r);
    void showColumns(int groups, bool anyBits);
    void showNotes(int groups);

    RunCollection* m_runs = nullptr;
    QDoubleSpinBox* m_target = nullptr;
    QComboBox* m_baseline = nullptr;
    QTableWidget* m_table = nullptr;
    QLabel* m_groups = nullptr;
    ReplotThrottle* m_throttle = nullptr;
    std::vector<wb::ComparisonRow> m_rows;
};

}  // namespace wbui
