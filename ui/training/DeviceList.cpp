// The checkable device list.
#include "training/DeviceList.h"

#include <QCheckBox>
#include <QListWidget>
#include <QVBoxLayout>

#include <algorithm>

#include "workbench/domain/DeviceSpec.h"
#include "workbench/domain/Format.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

DeviceList::DeviceList(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_list = new QListWidget(this);
    m_list->setToolTip(tr("Tick every device to compare; Run trains the same experiment on each"));
    m_list->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_sequential = new QCheckBox(tr("Run CPU entries one after another"), this);
    m_sequential->setChecked(true);
    m_sequential->setToolTip(
        tr("CPU runs side by side would steal cores from each other and distort the timing"));
    layout->addWidget(m_list);
    layout->addWidget(m_sequential);
    connect(m_list, &QListWidget::itemChanged, this, &DeviceList::selectionChanged);
}

void DeviceList::refresh() {
    try {
        setDevices(wb::listDevices());
    } catch (const std::exception& e) {
        // Without a device list we still offer the CPU: training on it needs nothing special.
        wb::DeviceInfo cpu;
        cpu.name = "CPU";
        cpu.threads = 1;
        setDevices({cpu});
    }
}

namespace {
DeviceChoice cpuChoice(long long threads, long long processes, const std::string& name) {
    wb::DeviceSpec cpu;
    cpu.threads = threads;
    cpu.processes = processes;
    return {cpu, deviceLabel("cpu", threads, name, processes), name};
}
}  // namespace

void DeviceList::setDevices(const std::vector<wb::DeviceInfo>& devices) {
    const QStringList previouslyChecked = checkedLabels();
    m_choices.clear();
    for (const auto& d : devices) {
        const wb::DeviceSpec& device = d.device;
        if (device.isCpu()) {
            m_choices.push_back(cpuChoice(1, 1, d.name));
            if (d.threads > 1) {
                m_choices.push_back(cpuChoice(d.threads, 1, d.name));
                // The same cores as N processes of one thread each, joined by c10d: the distributed engine
                // next to the threaded one.
                m_choices.push_back(cpuChoice(1, d.threads, d.name));
            }
        } else {
            QString label = toQt(d.name.empty() ? d.id() : d.name);
            if (d.memoryBytes > 0)
                label += QStringLiteral(" · ") + toQt(wb::humanBytes(double(d.memoryBytes)));
            label += QStringLiteral(" (%1)").arg(toQt(d.id()));
            m_choices.push_back({device, label, d.name});
        }
    }
    QSignalBlocker block(m_list);
    m_list->clear();
    for (const auto& c : m_choices) {
        auto* item = new QListWidgetItem(c.label, m_list);
        item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled | Qt::ItemIsSelectable);
        item->setCheckState(previouslyChecked.contains(c.label) ? Qt::Checked : Qt::Unchecked);
    }
    // As tall as its entries (up to six; more scroll): an empty box under two CPU lines only takes room
    // from the panels above.
    const int rows = std::clamp(m_list->count(), 1, 6);
    const int rowHeight =
        m_list->count() > 0 ? m_list->sizeHintForRow(0) : m_list->fontMetrics().height() + 4;
    m_list->setFixedHeight(rows * rowHeight + 2 * m_list->frameWidth() + 2);
    // Something sensible ticked on first use: the fastest CPU entry.
    if (previouslyChecked.isEmpty() && m_list->count() > 0) {
        int pick = 0;
        for (int i = 0; i < int(m_choices.size()); ++i)
            if (m_choices[std::size_t(i)].device.isCpu() && m_choices[std::size_t(i)].device.processes == 1)
                pick = i;
        m_list->item(pick)->setCheckState(Qt::Checked);
    }
    Q_EMIT selectionChanged();
}

std::vector<DeviceChoice> DeviceList::checkedChoices() const {
    std::vector<DeviceChoice> out;
    for (int i = 0; i < m_list->count(); ++i)
        if (m_list->item(i)->checkState() == Qt::Checked) out.push_back(m_choices[std::size_t(i)]);
    return out;
}

QStringList DeviceList::checkedLabels() const {
    QStringList out;
    for (int i = 0; i < m_list->count(); ++i)
        if (m_list->item(i)->checkState() == Qt::Checked) out << m_list->item(i)->text();
    return out;
}

void DeviceList::setCheckedLabels(const QStringList& labels) {
    if (labels.isEmpty()) return;
    for (int i = 0; i < m_list->count(); ++i)
        m_list->item(i)->setCheckState(labels.contains(m_list->item(i)->text()) ? Qt::Checked
                                                                                : Qt::Unchecked);
}

void DeviceList::setChecked(int row, bool checked) {
    if (row >= 0 && row < m_list->count())
        m_list->item(row)->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
}

int DeviceList::count() const { return m_list->count(); }

bool DeviceList::sequentialCpu() const { return m_sequential->isChecked(); }
void DeviceList::setSequentialCpu(bool sequential) { m_sequential->setChecked(sequential); }

}  // namespace wbui
