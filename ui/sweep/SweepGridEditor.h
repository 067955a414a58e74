// The grid a sweep will train: one row per axis (a config field, or the link, and its values), the repeats
// per cell and the steps per cell, with the plan line (the run count, or the first problem) and the time
// estimate. It edits and shows; planning and estimating are the Sweep tab's.
#pragma once

#include <QWidget>

#include <vector>

#include "workbench/domain/Sweep.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QVBoxLayout;

namespace wbui {

class SweepGridEditor : public QWidget {
    Q_OBJECT
public:
    explicit SweepGridEditor(QWidget* parent = nullptr);

    void setAxes(const std::vector<wb::SweepAxis>& axes);
    std::vector<wb::SweepAxis> axes() const;  // the rows with a field and values, as typed
    void setRepeats(int repeats);
    int repeats() const;
    void setStepsPerCell(int steps);  // 0: the experiment's epochs
    int stepsPerCell() const;

    void setPlan(const QString& text, bool ok);
    void setEstimate(const QString& text);
    void setEstimateEnabled(bool enabled);
    void setEditable(bool editable);  // not while a sweep runs
    // Where Start and Resume run the cells: 0 this machine, 1 the Slurm cluster this machine submits to;
    // beside it, the Slurm settings (enabled on Slurm).
    QComboBox* runOnBox() const { return m_runOn; }
    QPushButton* slurmSettingsButton() const { return m_slurmSettings; }

Q_SIGNALS:
    void changed();  // an axis, a value, the repeats or the steps
    void estimateRequested();
    void slurmSettingsRequested();

private:
    void addAxisRow(const QString& field, const QString& values);
    QWidget* settingsRow();

    QVBoxLayout* m_axisRows;
    QSpinBox* m_repeats;
    QSpinBox* m_steps;
    QLabel* m_plan;
    QLabel* m_estimate;
    QPushButton* m_estimateButton;
    QComboBox* m_runOn;
    QPushButton* m_slurmSettings;
};

}  // namespace wbui
