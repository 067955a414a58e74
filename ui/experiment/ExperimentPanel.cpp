// The experiment page.
#include "experiment/ExperimentPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "experiment/ModelSummaryView.h"
#include "workbench/domain/ConfigFields.h"
#include "workbench/domain/ModelSummary.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

namespace {
// A box for a number field: its range, tooltip, what 0 means and its affixes from the config table
// (workbench/domain/ConfigFields.h), as validation reads them.
QSpinBox* integerBox(const wb::ConfigField& field, QWidget* parent) {
    auto* box = new QSpinBox(parent);
    const double lo = std::max(field.min, double(std::numeric_limits<int>::min()));
    const double hi = std::min(field.max, double(std::numeric_limits<int>::max()));
    box->setRange(int(lo), int(hi));
    if (!field.zeroMeans.empty() && field.min == 0) box->setSpecialValueText(toQt(field.zeroMeans));
    box->setPrefix(toQt(field.form.prefix));
    box->setSuffix(toQt(field.form.suffix));
    box->setKeyboardTracking(true);
    return box;
}

QDoubleSpinBox* numberBox(const wb::ConfigField& field, QWidget* parent) {
    auto* box = new QDoubleSpinBox(parent);
    const int decimals = field.form.decimals;
    box->setDecimals(decimals);
    const double unit = std::pow(10.0, -decimals);
    // An open end is shown as the nearest value the box can hold inside it.
    const double lo = field.minOpen ? field.min + unit : field.min;
    const double hi = std::min(field.maxOpen ? field.max - unit : field.max, field.form.shownMax);
    box->setRange(lo, hi);
    box->setSingleStep(field.form.step);
    if (!field.zeroMeans.empty() && field.min == 0) box->setSpecialValueText(toQt(field.zeroMeans));
    box->setPrefix(toQt(field.form.prefix));
    box->setSuffix(toQt(field.form.suffix));
    return box;
}

// A choice box lists the table's choices (shown by their form labels) with the choice itself as the item's
// data: the config is read back by value, never by the item's position.
QComboBox* choiceBox(const wb::ConfigField& field, QWidget* parent) {
    auto* box = new QComboBox(parent);
    for (std::size_t i = 0; i < field.choices.size(); ++i) {
        const auto& shown =
            i < field.form.choiceLabels.size() ? field.form.choiceLabels[i] : field.choices[i];
        box->addItem(toQt(shown), toQt(field.choices[i]));
    }
    return box;
}

QWidget* fieldWidget(const wb::ConfigField& field, QWidget* parent) {
    QWidget* widget = nullptr;
    switch (field.type) {
        case wb::FieldType::Integer:
        case wb::FieldType::UnsignedInteger:
            widget = integerBox(field, parent);
            break;
        case wb::FieldType::Number:
            widget = numberBox(field, parent);
            break;
        case wb::FieldType::Boolean:
            widget = new QCheckBox(toQt(field.form.label), parent);
            break;
        case wb::FieldType::Choice:
            widget = choiceBox(field, parent);
            break;
        case wb::FieldType::Text:
            widget = new QLineEdit(parent);
            break;
    }
    widget->setObjectName(toQt(field.key));
    widget->setToolTip(toQt(field.help + field.form.hint));
    return widget;
}
}  // namespace

ExperimentPanel::ExperimentPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);

    auto* presetRow = new QHBoxLayout;
    m_preset = new QComboBox(this);
    m_preset->addItem(tr("Choose a preset…"), QString());
    m_preset->addItem(tr("Default language model"), QStringLiteral("default-lm"));
    m_preset->addItem(tr("Default classifier"), QStringLiteral("default-classify"));
    for (const auto& preset : wb::presets())
        m_preset->addItem(toQt(preset.name + " (" + preset.description + ")"), toQt(preset.name));
    m_preset->setToolTip(tr("Load the shapes and hyper-parameters of a reference model; the corpus stays"));
    connect(m_preset, &QComboBox::activated, this, [this](int i) {
        const QString name = m_preset->itemData(i).toString();
        if (!name.isEmpty()) applyPreset(name);
        m_preset->setCurrentIndex(0);
    });
    presetRow->addWidget(new QLabel(tr("Preset:"), this));
    presetRow->addWidget(m_preset, 1);
    layout->addLayout(presetRow);

    buildForm(layout);

    m_problemsLabel = new QLabel(this);
    m_problemsLabel->setWordWrap(true);
    m_problemsLabel->setStyleSheet(QStringLiteral("color: #b00020;"));
    layout->addWidget(m_problemsLabel);

    auto* summaryBox = new QGroupBox(tr("Model summary"), this);
    auto* summaryLayout = new QVBoxLayout(summaryBox);
    m_summary = new ModelSummaryView(summaryBox);
    summaryLayout->addWidget(m_summary);
    layout->addWidget(summaryBox, 1);

    connect(m_lrFinder, &QPushButton::clicked, this, &ExperimentPanel::lrFinderRequested);
    connect(m_batchFinder, &QPushButton::clicked, this, &ExperimentPanel::batchSizeFinderRequested);
    writeWidgets();
    refresh();
}

// One group box per form group of the config table, a row per field in the table's order. The two fields a
// finder sets get its button beside them; the task switches through switchTask, which keeps what the user
// set.
void ExperimentPanel::buildForm(QVBoxLayout* layout) {
    std::map<std::string, QFormLayout*> groups;
    const auto changed = [this] {
        if (m_updating) return;
        readWidgets();
        refresh();
    };
    for (const auto& field : wb::configFields()) {
        if (field.form.group.empty()) continue;
        QFormLayout*& rows = groups[field.form.group];
        if (!rows) {
            auto* box = new QGroupBox(toQt(field.form.group), this);
            rows = new QFormLayout(box);
            layout->addWidget(box);
        }
        QWidget* box = rows->parentWidget();
        QWidget* widget = fieldWidget(field, box);
        m_form.push_back({&field, widget});
        if (auto* spin = qobject_cast<QSpinBox*>(widget))
            connect(spin, &QSpinBox::valueChanged, this, changed);
        if (auto* number = qobject_cast<QDoubleSpinBox*>(widget))
            connect(number, &QDoubleSpinBox::valueChanged, this, changed);
        if (auto* check = qobject_cast<QCheckBox*>(widget))
            connect(check, &QCheckBox::toggled, this, changed);
        if (auto* combo = qobject_cast<QComboBox*>(widget)) {
            if (field.key == "task")
                connect(combo, &QComboBox::activated, this, [this, combo](int i) {
                    switchTask(wb::taskFromString(toStd(combo->itemData(i).toString())));
                });
            else
                connect(combo, &QComboBox::currentIndexChanged, this, changed);
        }
        if (field.type == wb::FieldType::Boolean) {
            rows->addRow(QString(), widget);
        } else if (field.key == "learning_rate" || field.key == "batch_size") {
            auto* row = new QHBoxLayout;
            row->addWidget(widget, 1);
            auto* finder = new QPushButton(tr("Find…"), box);
            row->addWidget(finder);
            rows->addRow(toQt(field.form.label) + QLatin1Char(':'), row);
            if (field.key == "learning_rate") {
                m_lrFinder = finder;
                finder->setToolTip(
                    tr("LR finder: sweep the rate on a fresh model and plot the loss (needs a corpus)"));
            } else {
                m_batchFinder = finder;
                finder->setToolTip(
                    tr("Batch-size finder: the largest batch that fits and the fastest per sample"));
            }
        } else {
            rows->addRow(toQt(field.form.label) + QLatin1Char(':'), widget);
        }
    }
}

QWidget* ExperimentPanel::formWidget(const QString& key) const {
    for (const auto& row : m_form)
        if (toQt(row.field->key) == key) return row.widget;
    return nullptr;
}

wb::ExperimentConfig ExperimentPanel::config() const { return m_config; }

void ExperimentPanel::setConfig(const wb::ExperimentConfig& config) {
    m_config = config;
    writeWidgets();
    refresh();
}

bool ExperimentPanel::restoreConfigJson(const QByteArray& json) {
    try {
        setConfig(wb::ExperimentConfig::fromJson(json.toStdString(), "settings"));
        return true;
    } catch (const std::exception&) {
        return false;  // settings from an older version: the defaults are a fine start
    }
}

void ExperimentPanel::addPresetActions(QMenu* menu) {
    menu->addAction(tr("Default language model"), this,
                    [this] { applyPreset(QStringLiteral("default-lm")); });
    menu->addAction(tr("Default classifier"), this,
                    [this] { applyPreset(QStringLiteral("default-classify")); });
    for (const auto& preset : wb::presets()) {
        const QString name = toQt(preset.name);
        QAction* a = menu->addAction(name + QStringLiteral(" — ") + toQt(preset.description), this,
                                     [this, name] { applyPreset(name); });
        if (preset.name == "poems") a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    }
}

void ExperimentPanel::applyPreset(const QString& name) {
    wb::ExperimentConfig fresh;
    if (name == QLatin1String("default-lm")) {
        fresh = wb::defaultConfig(wb::Task::LanguageModel);
    } else if (name == QLatin1String("default-classify")) {
        fresh = wb::defaultConfig(wb::Task::Classifier);
    } else {
        fresh = wb::presetConfig(toStd(name));
    }
    // A preset is a model shape; the corpus the user loaded stays.
    if (!m_config.data.corpus.empty()) {
        fresh.data.corpus = m_config.data.corpus;
        fresh.data.format = m_config.data.format;
    }
    setConfig(fresh);
}

QStringList ExperimentPanel::switchTask(wb::Task task) {
    QStringList changes;
    if (task == m_config.task) return changes;
    const wb::ExperimentConfig oldDefaults = wb::defaultConfig(m_config.task);
    const wb::ExperimentConfig newDefaults = wb::defaultConfig(task);
    wb::ExperimentConfig next = m_config;
    next.task = task;
    // Per field of the config table: one the user left at the old task's default follows the task; anything
    // the user set stays, and so does the loaded corpus (its path and format are data, not settings).
    for (const auto& field : wb::configFields()) {
        if (field.key == "task" || field.path() == "data.corpus" || field.path() == "data.format") continue;
        const std::string now = field.get(m_config);
        if (now != field.get(oldDefaults)) continue;
        const std::string wanted = field.get(newDefaults);
        if (wanted == now) continue;
        field.set(next, wanted);
        changes << QStringLiteral("%1: %2 → %3")
                       .arg(QString::fromStdString(field.label), QString::fromStdString(now),
                            QString::fromStdString(wanted));
    }
    setConfig(next);
    return changes;
}

void ExperimentPanel::setLearningRate(double rate) {
    m_config.train.learningRate = rate;
    writeWidgets();
    refresh();
}

void ExperimentPanel::setBatchSize(std::int64_t size) {
    m_config.train.batchSize = size;
    writeWidgets();
    refresh();
}

void ExperimentPanel::setRunLength(std::int64_t maxSteps, std::int64_t lrScheduleSteps) {
    m_config.train.maxSteps = maxSteps;
    m_config.train.lrScheduleSteps = lrScheduleSteps;
    writeWidgets();
    refresh();
}

QString ExperimentPanel::followCorpus(const QString& path, const wb::CorpusOverview& corpus) {
    const wb::Task task = m_config.task;
    const auto said = [](const QStringList& changes) {
        return changes.isEmpty()
                   ? QString()
                   : tr(" (%1; your other settings kept)").arg(changes.join(QStringLiteral(", ")));
    };
    QString switched;
    if (corpus.labelled() && task == wb::Task::LanguageModel)
        switched = tr("Labelled corpus: switched the experiment to a classifier") +
                   said(switchTask(wb::Task::Classifier));
    else if (!corpus.labelled() && task == wb::Task::Classifier)
        switched = tr("Unlabelled text: switched the experiment to a language model") +
                   said(switchTask(wb::Task::LanguageModel));
    setCorpus(path, corpus.format, corpus.stats.distinctCharacters, corpus.stats.distinctWords,
              std::int64_t(corpus.classes.size()));
    return switched;
}

void ExperimentPanel::setCorpus(const QString& path, wb::CorpusFormat format, std::int64_t distinctChars,
                                std::int64_t distinctWords, std::int64_t classes) {
    m_config.data.corpus = toStd(path);
    m_config.data.format = format;
    m_distinctChars = distinctChars;
    m_distinctWords = distinctWords;
    m_classes = classes;
    refresh();
}

void ExperimentPanel::writeWidgets() {
    m_updating = true;
    wb::ExperimentConfig c = m_config;  // the table's accessors take a config they could write
    const bool classifier = c.task == wb::Task::Classifier;
    for (const auto& [field, widget] : m_form) {
        if (auto* spin = qobject_cast<QSpinBox*>(widget))
            spin->setValue(field->type == wb::FieldType::UnsignedInteger ? int(field->unsignedInteger(c))
                                                                         : int(field->integer(c)));
        else if (auto* number = qobject_cast<QDoubleSpinBox*>(widget))
            number->setValue(field->number(c));
        else if (auto* check = qobject_cast<QCheckBox*>(widget))
            check->setChecked(field->boolean(c));
        else if (auto* combo = qobject_cast<QComboBox*>(widget))
            combo->setCurrentIndex(combo->findData(toQt(field->getChoice(c))));
        else if (auto* line = qobject_cast<QLineEdit*>(widget))
            line->setText(toQt(field->get(c)));
        if (field->form.classifierOnly) widget->setEnabled(classifier);
    }
    m_updating = false;
}

void ExperimentPanel::readWidgets() {
    auto& c = m_config;
    for (const auto& [field, widget] : m_form) {
        if (field->key == "task") continue;  // switchTask sets it, with the defaults that follow
        if (auto* spin = qobject_cast<QSpinBox*>(widget)) {
            if (field->type == wb::FieldType::UnsignedInteger)
                field->unsignedInteger(c) = std::uint64_t(spin->value());
            else
                field->integer(c) = spin->value();
        } else if (auto* number = qobject_cast<QDoubleSpinBox*>(widget)) {
            field->number(c) = number->value();
        } else if (auto* check = qobject_cast<QCheckBox*>(widget)) {
            field->boolean(c) = check->isChecked();
        } else if (auto* combo = qobject_cast<QComboBox*>(widget)) {
            field->setChoice(c, toStd(combo->currentData().toString()));
        } else if (auto* line = qobject_cast<QLineEdit*>(widget)) {
            field->set(c, toStd(line->text()));
        }
    }
}

std::int64_t ExperimentPanel::estimatedVocabulary(QString* note) const {
    const bool chars = m_config.data.tokens == wb::TokenLevel::Char;
    std::int64_t distinct = chars ? m_distinctChars : m_distinctWords;
    if (distinct <= 0) {
        *note = tr("Vocabulary estimated until a corpus is loaded.");
        distinct = chars ? 96 : 15000;
    }
    std::int64_t v = distinct + 4;  // <pad> <unk> <bos> <eos>
    std::int64_t cap = m_config.data.vocabSize;
    if (cap <= 0 && !chars) cap = 15000;
    if (cap > 0) v = std::min(v, cap);
    return v;
}

void ExperimentPanel::refresh() {
    m_problems.clear();
    try {
        for (const auto& p : m_config.validate()) m_problems << toQt(p);
    } catch (const std::exception& e) {
        m_problems << toQt(e.what());
    }
    // The corpus is checked when it is loaded; a missing one is said once, in the corpus panel.
    m_problemsLabel->setText(
        m_problems.isEmpty() ? QString() : QStringLiteral("⚠ ") + m_problems.join(QStringLiteral("\n⚠ ")));
    m_problemsLabel->setVisible(!m_problems.isEmpty());
    try {
        QString note;
        const std::int64_t vocab = estimatedVocabulary(&note);
        const std::int64_t classes =
            m_config.task == wb::Task::Classifier ? std::max<std::int64_t>(m_classes, 2) : 0;
        m_summary->setSummary(wb::summarizeModel(m_config, vocab, classes), note);
    } catch (const std::exception& e) {
        m_summary->setUnavailable(tr("No summary: %1").arg(toQt(e.what())));
    }
    Q_EMIT configChanged();
}

}  // namespace wbui
