// The settings of several runs side by side, like W&B's run comparer: one row per field of the config table
// (workbench/domain/ConfigFields.h) plus the device the run really used, one column per run, rows whose
// values differ highlighted, and "Differences only" to hide the rest.
#pragma once

#include <QDialog>

#include <vector>

#include "workbench/domain/RunFolder.h"

class QCheckBox;
class QLabel;
class QTableWidget;

namespace wbui {

class SettingsDiffDialog : public QDialog {
    Q_OBJECT
public:
    SettingsDiffDialog(std::vector<wb::RunRecord> runs, QWidget* parent = nullptr);

    void setDifferencesOnly(bool on);
    QTableWidget* table() const { return m_table; }
    // The fields (labels) of the rows shown now.
    QStringList shownFields() const;

private:
    void fill();

    std::vector<wb::RunRecord> m_runs;
    QCheckBox* m_differencesOnly = nullptr;
    QTableWidget* m_table = nullptr;
    QLabel* m_summary = nullptr;
};

}  // namespace wbui
