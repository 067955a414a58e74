// A checkable list of what this machine can train on (wb::listDevices): "CPU · 1 thread", "CPU · N
// threads", "CPU · N processes (Gloo)" (the data-parallel engine, one thread each), each CUDA GPU by name.
// Run trains the same experiment on every ticked entry.
#pragma once

#include <QString>
#include <QWidget>

#include <vector>

#include "workbench/domain/DeviceSpec.h"
#include "workbench/engine/Devices.h"

class QCheckBox;
class QListWidget;

namespace wbui {

struct DeviceChoice {
    // The CPU with its threads per process (0 = default) and data-parallel processes (c10d Gloo), or a GPU.
    wb::DeviceSpec device;
    QString label;
    std::string name;  // hardware name
};

class DeviceList : public QWidget {
    Q_OBJECT
public:
    explicit DeviceList(QWidget* parent = nullptr);

    // Fills from the given devices (tests pass their own; the app calls refresh()).
    void setDevices(const std::vector<wb::DeviceInfo>& devices);
    void refresh();

    std::vector<DeviceChoice> checkedChoices() const;
    std::vector<DeviceChoice> allChoices() const { return m_choices; }
    // Ticks the entries whose label is in labels (QSettings restore).
    void setCheckedLabels(const QStringList& labels);
    QStringList checkedLabels() const;
    void setChecked(int row, bool checked);
    int count() const;

    bool sequentialCpu() const;
    void setSequentialCpu(bool sequential);

Q_SIGNALS:
    void selectionChanged();

private:
    QListWidget* m_list = nullptr;
    QCheckBox* m_sequential = nullptr;
    std::vector<DeviceChoice> m_choices;
};

}  // namespace wbui
