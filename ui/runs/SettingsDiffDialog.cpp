#include "runs/SettingsDiffDialog.h"
#include "workbench/graphics/LossCurves.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "runs/RunCollection.h"
#include "workbench/domain/ConfigFields.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

namespace {
struct Row {
    QString field;
    QStringList values;
    bool differs = false;
};

std::vector<Row> settingRows(const std::vector<wb::RunRecord>& runs) {
    std::vector<Row> rows;
    auto add = [&](const QString& field, auto valueOf) {
        Row row{field, {}, false};
        for (const auto& run : runs) row.values << valueOf(run);
        for (const QString& v : row.values) row.differs = row.differs || v != row.values.front();
        rows.push_back(std::move(row));
    };
    // What ran, not only what was asked: the device label says threads, processes and precision.
    add(QObject::tr("device (as run)"),
        [](const wb::RunRecord& r) { return RunCollection::deviceLabelFor(r); });
    add(QObject::tr("corpus"), [](const wb::RunRecord& r) { return toQt(r.corpusName()); });
    for (const auto& field : wb::configFields()) {
        if (field.key == "corpus" || field.key == "name") continue;  // the corpus row above; the folder name
        add(toQt(field.label), [&field](const wb::RunRecord& r) { return toQt(field.get(r.config)); });
    }
    add(QObject::tr("steps trained"),
        [](const wb::RunRecord& r) { return QString::number(r.info.summary.steps); });
    add(QObject::tr("host"), [](const wb::RunRecord& r) { return toQt(r.info.host); });
    add(QObject::tr("LibTorch"), [](const wb::RunRecord& r) { return toQt(r.info.libtorchVersion); });
    add(QObject::tr("BLAS"), [](const wb::RunRecord& r) { return toQt(r.info.blas); });
    return rows;
}
}  // namespace

SettingsDiffDialog::SettingsDiffDialog(std::vector<wb::RunRecord> runs, QWidget* parent)
    : QDialog(parent), m_runs(std::move(runs)) {
    setWindowTitle(tr("Settings of the compared runs"));
    auto* layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_differencesOnly = new QCheckBox(tr("Differences only"), this);
    m_differencesOnly->setChecked(true);
    connect(m_differencesOnly, &QCheckBox::toggled, this, &SettingsDiffDialog::fill);
    layout->addWidget(m_differencesOnly);
    m_table = new QTableWidget(this);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(m_table, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(900, 600);
    fill();
}

void SettingsDiffDialog::setDifferencesOnly(bool on) { m_differencesOnly->setChecked(on); }

QStringList SettingsDiffDialog::shownFields() const {
    QStringList out;
    for (int r = 0; r < m_table->rowCount(); ++r) out << m_table->verticalHeaderItem(r)->text();
    return out;
}

void SettingsDiffDialog::fill() {
    const auto rows = settingRows(m_runs);
    const bool only = m_differencesOnly->isChecked();
    int differing = 0;
    for (const auto& row : rows) differing += row.differs;
    m_summary->setText(
        m_runs.size() < 2
            ? tr("Tick two or more runs in the Runs list to compare their settings.")
            : tr("%n setting(s) differ between these %1 runs.", nullptr, differing).arg(m_runs.size()));
    m_table->clear();
    m_table->setColumnCount(int(m_runs.size()));
    QStringList headers;
    for (const auto& run : m_runs) headers << runLegendLabel(run);
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setRowCount(0);
    const QColor highlight(255, 236, 179);
    for (const auto& row : rows) {
        if (only && !row.differs) continue;
        const int r = m_table->rowCount();
        m_table->insertRow(r);
        m_table->setVerticalHeaderItem(r, new QTableWidgetItem(row.field));
        for (int c = 0; c < row.values.size(); ++c) {
            auto* item = new QTableWidgetItem(row.values[c]);
            if (row.differs) item->setBackground(highlight);
            m_table->setItem(r, c, item);
        }
    }
}

}  // namespace wbui
