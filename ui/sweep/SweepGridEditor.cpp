// The sweep's grid, as edited.
#include "sweep/SweepGridEditor.h"

#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include "workbench/domain/ConfigFields.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

SweepGridEditor::SweepGridEditor(QWidget* parent) : QWidget(parent) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* box = new QGroupBox(tr("Grid"), this);
    outer->addWidget(box);
    auto* layout = new QVBoxLayout(box);
    m_axisRows = new QVBoxLayout;
    layout->addLayout(m_axisRows);
    layout->addWidget(settingsRow());
    auto* planRow = new QHBoxLayout;
    m_plan = new QLabel(box);
    m_plan->setWordWrap(true);
    m_estimate = new QLabel(box);
    m_estimateButton = new QPushButton(tr("Estimate Time"), box);
    m_estimateButton->setToolTip(
        tr("Time a few steps of the first cell and scale by each cell's FLOPs and samples"));
    m_runOn = new QComboBox(box);
    m_runOn->addItem(tr("On this machine"));
    m_runOn->addItem(tr("On Slurm"));
    m_runOn->setToolTip(tr(
        "Where Start and Resume run the cells: on this machine, one after another, or each as a batch job of "
        "the Slurm cluster this machine submits to (sbatch on PATH, the sweep folder on a filesystem the "
        "nodes share)"));
    m_slurmSettings = new QPushButton(tr("Slurm Settings…"), box);
    m_slurmSettings->setToolTip(tr("The partition, the account and each cell's time limit"));
    m_slurmSettings->setEnabled(false);
    planRow->addWidget(m_plan, 1);
    planRow->addWidget(m_estimate);
    planRow->addWidget(m_runOn);
    planRow->addWidget(m_slurmSettings);
    connect(m_slurmSettings, &QPushButton::clicked, this, &SweepGridEditor::slurmSettingsRequested);
    connect(m_runOn, &QComboBox::currentIndexChanged, this,
            [this](int index) { m_slurmSettings->setEnabled(index == 1 && m_runOn->isEnabled()); });
    planRow->addWidget(m_estimateButton);
    layout->addLayout(planRow);
    connect(m_estimateButton, &QPushButton::clicked, this, &SweepGridEditor::estimateRequested);
    // The question the reference write-ups ask first: devices against batch size.
    addAxisRow(QStringLiteral("device"), QStringLiteral("cpu:1,cpu:2"));
    addAxisRow(QStringLiteral("batch_size"), QStringLiteral("16,32,64"));
}

// Add Axis, the repeats and the steps per cell.
QWidget* SweepGridEditor::settingsRow() {
    auto* row = new QWidget(this);
    auto* settings = new QHBoxLayout(row);
    settings->setContentsMargins(0, 0, 0, 0);
    auto* addAxis = new QPushButton(tr("Add Axis"), row);
    addAxis->setToolTip(tr("Another config field to vary: every combination of the axes' values is a cell"));
    connect(addAxis, &QPushButton::clicked, this, [this] {
        addAxisRow(QStringLiteral("lr"), QString());
        Q_EMIT changed();
    });
    m_repeats = new QSpinBox(row);
    m_repeats->setRange(1, 100);
    m_repeats->setToolTip(tr("Runs per cell, with seeds base, base + 1, …: the table shows mean ± std"));
    m_steps = new QSpinBox(row);
    m_steps->setRange(0, 10000000);
    m_steps->setValue(200);
    m_steps->setSpecialValueText(tr("the experiment's epochs"));
    m_steps->setToolTip(tr("Training steps of every cell (0: the epochs set on the Experiment page)"));
    settings->addWidget(addAxis);
    settings->addSpacing(12);
    settings->addWidget(new QLabel(tr("Repeats"), row));
    settings->addWidget(m_repeats);
    settings->addSpacing(12);
    settings->addWidget(new QLabel(tr("Steps per cell"), row));
    settings->addWidget(m_steps);
    settings->addStretch(1);
    connect(m_repeats, qOverload<int>(&QSpinBox::valueChanged), this, &SweepGridEditor::changed);
    connect(m_steps, qOverload<int>(&QSpinBox::valueChanged), this, &SweepGridEditor::changed);
    return row;
}

void SweepGridEditor::addAxisRow(const QString& field, const QString& values) {
    auto* row = new QWidget(this);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* fieldBox = new QComboBox(row);
    fieldBox->setObjectName(QStringLiteral("axisField"));
    for (const auto& f : wb::configFields()) {
        if (f.key == "corpus" || f.key == "format" || f.key == "task" || f.key == "name") continue;
        fieldBox->addItem(toQt(f.key));
        fieldBox->setItemData(fieldBox->count() - 1, toQt(f.label + ": " + f.help), Qt::ToolTipRole);
    }
    fieldBox->addItem(QString::fromLatin1(wb::kLinkAxis));
    fieldBox->setItemData(fieldBox->count() - 1, toQt(wb::kLinkAxisHelp), Qt::ToolTipRole);
    // A field by key, path or flag name ("lr" is learning_rate).
    const auto* known = wb::findConfigField(toStd(field));
    fieldBox->setCurrentText(known ? toQt(known->key) : field);
    auto* valuesEdit = new QLineEdit(values, row);
    valuesEdit->setObjectName(QStringLiteral("axisValues"));
    valuesEdit->setPlaceholderText(tr("values, separated by commas"));
    auto updateHint = [fieldBox, valuesEdit] {
        if (const auto* f = wb::findConfigField(toStd(fieldBox->currentText())))
            valuesEdit->setToolTip(toQt(f->help));
        else if (fieldBox->currentText() == QLatin1String(wb::kLinkAxis))
            valuesEdit->setToolTip(toQt(wb::kLinkAxisHelp));
    };
    updateHint();
    auto* remove = new QToolButton(row);
    remove->setText(QStringLiteral("✕"));
    remove->setToolTip(tr("Remove this axis"));
    layout->addWidget(fieldBox);
    layout->addWidget(valuesEdit, 1);
    layout->addWidget(remove);
    m_axisRows->addWidget(row);
    connect(fieldBox, &QComboBox::currentTextChanged, this, [this, updateHint] {
        updateHint();
        Q_EMIT changed();
    });
    connect(valuesEdit, &QLineEdit::textChanged, this, &SweepGridEditor::changed);
    connect(remove, &QToolButton::clicked, this, [this, row] {
        row->hide();
        row->deleteLater();
        m_axisRows->removeWidget(row);
        Q_EMIT changed();
    });
}

void SweepGridEditor::setAxes(const std::vector<wb::SweepAxis>& axes) {
    while (auto* item = m_axisRows->takeAt(0)) {
        if (auto* w = item->widget()) {
            w->hide();
            w->deleteLater();
        }
        delete item;
    }
    for (const auto& a : axes) {
        QStringList values;
        for (const auto& v : a.values) values << toQt(v);
        addAxisRow(toQt(a.field), values.join(QLatin1Char(',')));
    }
    Q_EMIT changed();
}

std::vector<wb::SweepAxis> SweepGridEditor::axes() const {
    std::vector<wb::SweepAxis> out;
    for (int i = 0; i < m_axisRows->count(); ++i) {
        auto* row = m_axisRows->itemAt(i)->widget();
        if (!row) continue;
        auto* field = row->findChild<QComboBox*>(QStringLiteral("axisField"));
        auto* values = row->findChild<QLineEdit*>(QStringLiteral("axisValues"));
        if (!field || !values) continue;
        const QString text = values->text().simplified().remove(QLatin1Char(' '));
        if (text.isEmpty()) continue;
        wb::SweepAxis axis;
        axis.field = toStd(field->currentText());
        for (const auto& v : text.split(QLatin1Char(','))) axis.values.push_back(toStd(v));
        out.push_back(axis);
    }
    return out;
}

void SweepGridEditor::setRepeats(int repeats) { m_repeats->setValue(repeats); }
int SweepGridEditor::repeats() const { return m_repeats->value(); }
void SweepGridEditor::setStepsPerCell(int steps) { m_steps->setValue(steps); }
int SweepGridEditor::stepsPerCell() const { return m_steps->value(); }

void SweepGridEditor::setPlan(const QString& text, bool ok) {
    m_plan->setText(text);
    m_plan->setStyleSheet(ok ? QString() : QStringLiteral("color: #b00020"));
}

void SweepGridEditor::setEstimate(const QString& text) { m_estimate->setText(text); }
void SweepGridEditor::setEstimateEnabled(bool enabled) { m_estimateButton->setEnabled(enabled); }

void SweepGridEditor::setEditable(bool editable) {
    for (int i = 0; i < m_axisRows->count(); ++i)
        if (auto* w = m_axisRows->itemAt(i)->widget()) w->setEnabled(editable);
    m_repeats->setEnabled(editable);
    m_steps->setEnabled(editable);
    m_runOn->setEnabled(editable);
    m_slurmSettings->setEnabled(editable && m_runOn->currentIndex() == 1);
}

}  // namespace wbui
