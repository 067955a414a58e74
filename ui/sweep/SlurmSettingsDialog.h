// The Sweep tab's "Slurm Settings…": what every cell of a sweep on Slurm asks the scheduler for beyond its
// device (workbench/engine/SweepRun.h, SlurmSettings): the partition, the account to charge and each cell's
// time limit. Kept in the app's settings; checked as typed, so that a job sbatch would refuse is never sent.
#pragma once

#include <QDialog>

#include "workbench/engine/SweepRun.h"

class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace wbui {

class SlurmSettingsDialog : public QDialog {
    Q_OBJECT
public:
    explicit SlurmSettingsDialog(const wb::SlurmSettings& settings, QWidget* parent = nullptr);
    wb::SlurmSettings settings() const;

    static wb::SlurmSettings saved();  // from the app's settings; empty fields: the cluster's
    static void save(const wb::SlurmSettings& settings);
    // "partition gpu · account lab · 1:00:00 per cell", or "the cluster's defaults".
    static QString describe(const wb::SlurmSettings& settings);

    QLineEdit* partitionEdit() const { return m_partition; }
    QLineEdit* accountEdit() const { return m_account; }
    QLineEdit* timeLimitEdit() const { return m_timeLimit; }
    QLabel* problemLabel() const { return m_problem; }
    QDialogButtonBox* buttons() const { return m_buttons; }

private:
    void recheck();

    QLineEdit* m_partition;
    QLineEdit* m_account;
    QLineEdit* m_timeLimit;
    QLabel* m_problem;
    QDialogButtonBox* m_buttons;
};

}  // namespace wbui
