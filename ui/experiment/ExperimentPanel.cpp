// The experiment page.
#include "experiment/ExperimentPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/QtConversions.h"
#include "experiment/ModelSummaryView.h"
#include "workbench/ConfigFields.h"
#include "workbench/ModelSummary.h"

namespace wbui {

namespace {
// Ranges, tooltips and what 0 means come from the config table (workbench/ConfigFields.h), as validation's
// do.
QSpinBox* intBox(QWidget* parent, const char* key) {
    // A named string: GCC 14 calls a reference returned by a call with a temporary argument dangling.
    const std::string name = key;
    const auto& field = wb::configField(name);
    auto* box = new QSpinBox(parent);
    const double lo = std::max(field.min, double(std::numeric_limits<int>::min()));
    const double hi = std::min(field.max, double(std::numeric_limits<int>::max()));
    box->setRange(int(lo), int(hi));
    box->setToolTip(toQt(field.help));
    if (!field.zeroMeans.empty() && field.min == 0) box->setSpecialValueText(toQt(field.zeroMeans));
    box->setKeyboardTracking(true);
    return box;
}

QDoubleSpinBox* numberBox(QWidget* parent, const char* key, int decimals, double step, double shownMax) {
    const std::string name = key;
    const auto& field = wb::configField(name);
    auto* box = new QDoubleSpinBox(parent);
    box->setDecimals(decimals);
    const double unit = std::pow(10.0, -decimals);
    // An open end is shown as the nearest value the box can hold inside it.
    const double lo = field.minOpen ? field.min + unit : field.min;
    const double hi = std::min(field.maxOpen ? field.max - unit : field.max, shownMax);
    box->setRange(lo, hi);
    box->setSingleStep(step);
    box->setToolTip(toQt(field.help));
    return box;
}
}  // namespace

ExperimentPanel::ExperimentPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);

    auto* presetRow = new QHBoxLayout;
    m_preset = new QComboBox(this);
    m_preset->addItem(tr("Choose a preset…"), QString());
    m_preset->addItem(tr("Default language model"), QStringLiteral("default-lm"));
    m_preset->addItem(tr("Default classifier"), QStringLiteral("default-classify"));
    for (const auto& name : wb::presetNames()) {
        QString text = toQt(name);
        if (name == "poems") text += tr(" (reference 000: 2×512 LSTM, Tang poems)");
        if (name == "charrnn") text += tr(" (reference 001: char-rnn 2×128)");
        if (name == "imdb") text += tr(" (reference 004: IMDB Embedding 32 → LSTM 100)");
        m_preset->addItem(text, toQt(name));
    }
    m_preset->setToolTip(tr("Load the shapes and hyper-parameters of a reference model; the corpus stays"));
    connect(m_preset, &QComboBox::activated, this, [this](int i) {
        const QString name = m_preset->itemData(i).toString();
        if (!name.isEmpty()) applyPreset(name);
        m_preset->setCurrentIndex(0);
    });
    presetRow->addWidget(new QLabel(tr("Preset:"), this));
    presetRow->addWidget(m_preset, 1);
    layout->addLayout(presetRow);

    layout->addWidget(buildModelBox());

    layout->addWidget(buildTrainingBox());

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
    connect(m_task, &QComboBox::activated, this, [this](int i) {
        const wb::Task task = i == 0 ? wb::Task::LanguageModel : wb::Task::Classifier;
        switchTask(task);
    });
    const auto changed = [this] {
        if (m_updating) return;
        readWidgets();
        refresh();
    };
    for (QSpinBox* box : {m_vocabSize, m_embedding, m_hidden, m_layers, m_seqLen, m_batch, m_epochs,
                          m_maxSteps, m_validateEvery, m_patience, m_seed, m_lrWarmup})
        connect(box, &QSpinBox::valueChanged, this, changed);
    for (QDoubleSpinBox* box : {m_dropout, m_lr, m_valFraction, m_weightDecay, m_gradClip})
        connect(box, &QDoubleSpinBox::valueChanged, this, changed);
    for (QComboBox* box : {m_tokens, m_pooling, m_optimizer, m_precision, m_threadSplit, m_lrSchedule})
        connect(box, &QComboBox::currentIndexChanged, this, changed);
    connect(m_bidirectional, &QCheckBox::toggled, this, changed);

    writeWidgets();
    refresh();
}

// The model's rows: task, tokens, vocabulary, sizes, dropout, pooling.
QGroupBox* ExperimentPanel::buildModelBox() {
    auto* modelBox = new QGroupBox(tr("Model"), this);
    auto* model = new QFormLayout(modelBox);
    m_task = new QComboBox(modelBox);
    m_task->addItem(tr("Language model (generate text)"));
    m_task->addItem(tr("Classifier (label text)"));
    m_task->setToolTip(tr("Changing the task loads that task's defaults"));
    m_tokens = new QComboBox(modelBox);
    m_tokens->addItems({tr("characters"), tr("words")});
    m_vocabSize = intBox(modelBox, "vocab_size");
    m_embedding = intBox(modelBox, "embedding");
    m_hidden = intBox(modelBox, "hidden");
    m_layers = intBox(modelBox, "layers");
    m_bidirectional = new QCheckBox(tr("bidirectional (classifier)"), modelBox);
    m_dropout = numberBox(modelBox, "dropout", 2, 0.05, 1.0);
    m_pooling = new QComboBox(modelBox);
    m_pooling->addItems({tr("last state"), tr("mean"), tr("max")});
    m_pooling->setToolTip(tr("How the classifier turns the sequence into one vector"));
    model->addRow(tr("Task:"), m_task);
    model->addRow(tr("Tokens:"), m_tokens);
    model->addRow(tr("Vocabulary size:"), m_vocabSize);
    model->addRow(tr("Embedding:"), m_embedding);
    model->addRow(tr("Hidden:"), m_hidden);
    model->addRow(tr("Layers:"), m_layers);
    model->addRow(QString(), m_bidirectional);
    model->addRow(tr("Dropout:"), m_dropout);
    model->addRow(tr("Pooling:"), m_pooling);
    return modelBox;
}

// The training rows: sequence, batch, optimiser and schedule, stopping, precision, validation.
QGroupBox* ExperimentPanel::buildTrainingBox() {
    auto* trainBox = new QGroupBox(tr("Training"), this);
    auto* train = new QFormLayout(trainBox);
    m_seqLen = intBox(trainBox, "seq_len");
    m_batch = intBox(trainBox, "batch_size");
    m_lr = numberBox(trainBox, "learning_rate", 6, 1e-4, 10.0);
    m_lr->setToolTip(m_lr->toolTip() + tr("; the LR finder suggests one"));
    m_optimizer = new QComboBox(trainBox);
    m_optimizer->addItems({QStringLiteral("Adam"), QStringLiteral("SGD"), QStringLiteral("RMSprop")});
    m_lrSchedule = new QComboBox(trainBox);
    m_lrSchedule->addItems({tr("constant"), tr("cosine decay")});
    m_lrSchedule->setToolTip(toQt(wb::configField("lr_schedule").help));
    m_lrWarmup = intBox(trainBox, "lr_warmup_steps");
    m_lrWarmup->setSuffix(tr(" steps"));
    m_weightDecay = numberBox(trainBox, "weight_decay", 4, 0.001, 1.0);
    m_weightDecay->setSpecialValueText(tr("off"));
    m_gradClip = numberBox(trainBox, "grad_clip", 2, 0.5, 1000.0);
    m_gradClip->setSpecialValueText(tr("off"));
    m_lrSchedule->setObjectName(QStringLiteral("lrSchedule"));
    m_lrWarmup->setObjectName(QStringLiteral("lrWarmup"));
    m_weightDecay->setObjectName(QStringLiteral("weightDecay"));
    m_gradClip->setObjectName(QStringLiteral("gradClip"));
    m_epochs = intBox(trainBox, "epochs");
    m_maxSteps = intBox(trainBox, "max_steps");
    m_validateEvery = intBox(trainBox, "validate_every");
    m_patience = intBox(trainBox, "early_stop_patience");
    // A bare "30" next to "Validate:" did not say 30 what.
    m_maxSteps->setSuffix(tr(" steps"));
    m_validateEvery->setPrefix(tr("every "));
    m_validateEvery->setSuffix(tr(" steps"));
    m_patience->setSuffix(tr(" validations"));
    m_seed = intBox(trainBox, "seed");
    m_precision = new QComboBox(trainBox);
    // In wb::Precision's order: the index is the value.
    m_precision->addItems(
        {QStringLiteral("fp32"), QStringLiteral("bf16"), QStringLiteral("fp16"), QStringLiteral("auto")});
    m_precision->setToolTip(
        tr("bf16/fp16 where the device supports it; auto trains a language model in bf16 on a "
           "CPU with AVX512_BF16 and everything else in fp32 (the run's log says which)"));
    m_threadSplit = new QComboBox(trainBox);
    m_threadSplit->setObjectName(QStringLiteral("threadSplit"));
    m_threadSplit->addItems({tr("each its share of the batch"), tr("split every operation")});
    m_threadSplit->setToolTip(toQt(wb::configField("thread_split").help) +
                              tr(" (for CPU devices with 2 or more threads; docs/performance.md)"));
    m_valFraction = numberBox(trainBox, "val_fraction", 2, 0.05, 1.0);
    auto* lrRow = new QHBoxLayout;
    lrRow->addWidget(m_lr, 1);
    m_lrFinder = new QPushButton(tr("Find…"), trainBox);
    m_lrFinder->setToolTip(
        tr("LR finder: sweep the rate on a fresh model and plot the loss (needs a corpus)"));
    lrRow->addWidget(m_lrFinder);
    auto* batchRow = new QHBoxLayout;
    batchRow->addWidget(m_batch, 1);
    m_batchFinder = new QPushButton(tr("Find…"), trainBox);
    m_batchFinder->setToolTip(
        tr("Batch-size finder: the largest batch that fits and the fastest per sample"));
    batchRow->addWidget(m_batchFinder);
    train->addRow(tr("Sequence length:"), m_seqLen);
    train->addRow(tr("Batch size:"), batchRow);
    train->addRow(tr("Learning rate:"), lrRow);
    train->addRow(tr("Optimizer:"), m_optimizer);
    train->addRow(tr("LR schedule:"), m_lrSchedule);
    train->addRow(tr("LR warm-up:"), m_lrWarmup);
    train->addRow(tr("Weight decay:"), m_weightDecay);
    train->addRow(tr("Gradient clipping:"), m_gradClip);
    train->addRow(tr("Epochs:"), m_epochs);
    train->addRow(tr("Max steps:"), m_maxSteps);
    train->addRow(tr("Validate:"), m_validateEvery);
    train->addRow(tr("Early stopping:"), m_patience);
    train->addRow(tr("Seed:"), m_seed);
    train->addRow(tr("Precision:"), m_precision);
    train->addRow(tr("CPU threads:"), m_threadSplit);
    train->addRow(tr("Validation fraction:"), m_valFraction);
    return trainBox;
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
    for (const auto& name : wb::presetNames()) {
        QAction* a = menu->addAction(toQt(name), this, [this, n = toQt(name)] { applyPreset(n); });
        if (name == "poems") {
            a->setText(tr("poems — reference 000 model size"));
            a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
        }
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

QString ExperimentPanel::followCorpus(const QString& path, const wb::Corpus& corpus,
                                      const wb::CorpusStats& stats) {
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
    setCorpus(path, corpus.format, stats.distinctCharacters, stats.distinctWords,
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
    const auto& c = m_config;
    m_task->setCurrentIndex(c.task == wb::Task::LanguageModel ? 0 : 1);
    m_tokens->setCurrentIndex(c.data.tokens == wb::TokenLevel::Char ? 0 : 1);
    m_vocabSize->setValue(int(c.data.vocabSize));
    m_embedding->setValue(int(c.model.embedding));
    m_hidden->setValue(int(c.model.hidden));
    m_layers->setValue(int(c.model.layers));
    m_bidirectional->setChecked(c.model.bidirectional);
    m_dropout->setValue(c.model.dropout);
    m_pooling->setCurrentIndex(int(c.model.pooling));
    m_seqLen->setValue(int(c.data.seqLen));
    m_batch->setValue(int(c.train.batchSize));
    m_lr->setValue(c.train.learningRate);
    m_optimizer->setCurrentIndex(int(c.train.optimizer));
    m_lrSchedule->setCurrentIndex(int(c.train.lrSchedule));
    m_lrWarmup->setValue(int(c.train.lrWarmupSteps));
    m_weightDecay->setValue(c.train.weightDecay);
    m_gradClip->setValue(c.train.gradClip);
    m_epochs->setValue(int(c.train.epochs));
    m_maxSteps->setValue(int(c.train.maxSteps));
    m_validateEvery->setValue(int(c.train.validateEvery));
    m_patience->setValue(int(c.train.earlyStopPatience));
    m_seed->setValue(int(c.train.seed));
    m_precision->setCurrentIndex(int(c.device.precision));
    m_threadSplit->setCurrentIndex(int(c.device.threadSplit));
    m_valFraction->setValue(c.data.valFraction);
    const bool classifier = c.task == wb::Task::Classifier;
    m_bidirectional->setEnabled(classifier);
    m_pooling->setEnabled(classifier);
    m_updating = false;
}

void ExperimentPanel::readWidgets() {
    auto& c = m_config;
    c.data.tokens = m_tokens->currentIndex() == 0 ? wb::TokenLevel::Char : wb::TokenLevel::Word;
    c.data.vocabSize = m_vocabSize->value();
    c.model.embedding = m_embedding->value();
    c.model.hidden = m_hidden->value();
    c.model.layers = m_layers->value();
    c.model.bidirectional = m_bidirectional->isChecked();
    c.model.dropout = m_dropout->value();
    c.model.pooling = static_cast<wb::Pooling>(m_pooling->currentIndex());
    c.data.seqLen = m_seqLen->value();
    c.train.batchSize = m_batch->value();
    c.train.learningRate = m_lr->value();
    c.train.optimizer = static_cast<wb::OptimizerKind>(m_optimizer->currentIndex());
    c.train.lrSchedule = static_cast<wb::LrSchedule>(m_lrSchedule->currentIndex());
    c.train.lrWarmupSteps = m_lrWarmup->value();
    c.train.weightDecay = m_weightDecay->value();
    c.train.gradClip = m_gradClip->value();
    c.train.epochs = m_epochs->value();
    c.train.maxSteps = m_maxSteps->value();
    c.train.validateEvery = m_validateEvery->value();
    c.train.earlyStopPatience = m_patience->value();
    c.train.seed = std::uint64_t(m_seed->value());
    c.device.precision = static_cast<wb::Precision>(m_precision->currentIndex());
    c.device.threadSplit = static_cast<wb::ThreadSplit>(m_threadSplit->currentIndex());
    c.data.valFraction = m_valFraction->value();
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
