// The playground.
#include "playground/PlaygroundPanel.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "playground/InferenceWorker.h"
#include "playground/VerseMarkup.h"
#include "runs/EvaluationView.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

namespace {
// What the run box calls a run: its name (as every list does), read without its metrics; the folder's name
// when the run cannot be read (loading it then says why).
QString runTitle(const QString& dir) {
    try {
        const std::string d = toStd(dir);
        wb::RunRecord record;
        const std::string config = d + "/" + wb::runfiles::kConfig, run = d + "/" + wb::runfiles::kRun;
        record.config = wb::ExperimentConfig::fromJson(wb::readFile(config), config);
        record.info = wb::RunInfo::fromJson(wb::readFile(run), run);
        record.annotations = wb::readRunAnnotations(d);
        return toQt(record.name());
    } catch (const std::exception&) {
        return QFileInfo(dir).fileName();
    }
}
}  // namespace

PlaygroundPanel::PlaygroundPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    m_run = new QComboBox(this);
    m_run->setMinimumContentsLength(30);
    m_run->setToolTip(tr("Runs with a saved model (this session's and the runs folder's)"));
    m_load = new QPushButton(tr("Load model"), this);
    m_checkpoint = new QComboBox(this);
    // Best first, as Export Model picks it: what a run is worth is its best validation. A run that kept no
    // best weights (never validated) answers with its last ones, and the model line says so.
    m_checkpoint->addItem(tr("best weights"));
    m_checkpoint->addItem(tr("last weights"));
    m_checkpoint->setToolTip(tr(
        "Best: the weights of the validation with the lowest loss (best-model.safetensors), as Export "
        "Model takes them; the last ones where a run kept none. Last: the weights at the end of training"));
    top->addWidget(new QLabel(tr("Run:"), this));
    top->addWidget(m_run, 1);
    top->addWidget(m_checkpoint);
    top->addWidget(m_load);
    layout->addLayout(top);
    m_model = new QLabel(tr("No model loaded. Train a run, or pick a saved run and press Load model."), this);
    m_model->setWordWrap(true);
    layout->addWidget(m_model);
    m_timing = new QLabel(this);
    m_timing->setObjectName(QStringLiteral("timing"));
    m_timing->setToolTip(tr("Wall time of the last request on the inference thread, model already loaded"));
    layout->addWidget(m_timing);

    m_pages = new QStackedWidget(this);
    m_pages->addWidget(buildGeneratePage());
    m_pages->addWidget(buildClassifyPage());
    layout->addWidget(m_pages, 1);
    startWorker();

    connect(m_load, &QPushButton::clicked, this, [this] {
        if (m_run->currentIndex() >= 0) loadRun(m_run->currentData().toString());
    });
    // Picking another run loads it: the box must not name one run while another one's model answers.
    connect(m_run, &QComboBox::activated, this, [this](int index) {
        const QString dir = m_run->itemData(index).toString();
        if (!dir.isEmpty() && dir != m_loadedRun) loadRun(dir);
    });
    // The other weights of the loaded run are loaded at once, as another run would be.
    connect(m_checkpoint, &QComboBox::activated, this, [this] {
        if (!m_loadedRun.isEmpty()) loadRun(m_loadedRun);
    });
    connect(m_generate, &QPushButton::clicked, this, &PlaygroundPanel::generate);
    connect(m_form, &QComboBox::currentIndexChanged, this, &PlaygroundPanel::updateMeter);
    connect(m_strict, &QCheckBox::toggled, this, &PlaygroundPanel::updateMeter);
    updateMeter();
    connect(m_classify, &QPushButton::clicked, this, &PlaygroundPanel::classify);
    m_generate->setEnabled(false);
    m_classify->setEnabled(false);
}

// The language model's page: the sampling options on the left, the samples on the right.
QWidget* PlaygroundPanel::buildGeneratePage() {
    auto* lmPage = new QWidget(this);
    auto* lm = new QHBoxLayout(lmPage);
    lm->addWidget(buildGenerateOptions(lmPage));
    lm->addWidget(buildResultsBox(lmPage), 1);
    return lmPage;
}

// How to sample: seed, temperature, top-k and top-p, length, the poem's form and meter, and Generate.
QGroupBox* PlaygroundPanel::buildGenerateOptions(QWidget* page) {
    auto* lmOptions = new QGroupBox(tr("Generate"), page);
    auto* form = new QFormLayout(lmOptions);
    m_seed = new QLineEdit(lmOptions);
    m_seed->setPlaceholderText(tr("seed text (optional)"));
    m_temperature = new QDoubleSpinBox(lmOptions);
    m_temperature->setRange(0.0, 3.0);
    m_temperature->setSingleStep(0.1);
    m_temperature->setValue(0.8);
    m_temperature->setToolTip(tr("0 = always the most likely token; higher = more surprising"));
    m_topK = new QSpinBox(lmOptions);
    m_topK->setRange(0, 100000);
    m_topK->setSpecialValueText(tr("off"));
    m_topP = new QDoubleSpinBox(lmOptions);
    m_topP->setRange(0.01, 1.0);
    m_topP->setSingleStep(0.05);
    m_topP->setValue(1.0);
    m_topP->setToolTip(
        tr("Nucleus sampling: keep the smallest set of tokens whose probability reaches p (1 = off)"));
    m_length = new QSpinBox(lmOptions);
    m_length->setRange(1, 100000);
    m_length->setValue(120);
    m_form = new QComboBox(lmOptions);
    m_form->addItems({tr("free text"), tr("5-character quatrain"), tr("7-character quatrain"),
                      tr("5-character regulated verse (8 lines)"),
                      tr("7-character regulated verse (8 lines)")});
    // Strict meter: every poem follows a tonal pattern and one rhyme (the corpus's tone and rhyme tables).
    m_strict = new QCheckBox(tr("strict"), lmOptions);
    m_pattern = new QComboBox(lmOptions);
    m_pattern->addItem(tr("any pattern"), static_cast<int>(wb::MeterPattern::Auto));
    for (const auto p : wb::kMeterPatterns)
        m_pattern->addItem(QStringLiteral("%1 · %2").arg(QString::fromUtf8(wb::meterPatternLabel(p)),
                                                         tr(wb::meterPatternGloss(p))),
                           static_cast<int>(p));
    // The box as wide as a pattern's Chinese name; its list wide enough for the English too.
    m_pattern->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_pattern->setMinimumContentsLength(12);
    m_pattern->view()->setMinimumWidth(m_pattern->view()->sizeHintForColumn(0) + 24);
    m_pattern->setToolTip(
        tr("The tonal pattern every poem follows: 平起 or 仄起 (the tone of the first line's second "
           "character), and whether the first line rhymes too (首句入韵). Any: one the seed fits, drawn for "
           "each poem"));
    auto* meterRow = new QHBoxLayout;
    meterRow->setContentsMargins(0, 0, 0, 0);
    meterRow->addWidget(m_strict);
    meterRow->addWidget(m_pattern, 1);
    m_acrostic = new QLineEdit(lmOptions);
    m_acrostic->setPlaceholderText(tr("first character of each line"));
    m_samples = new QSpinBox(lmOptions);
    m_samples->setRange(1, 50);
    m_samples->setValue(3);
    m_generate = new QPushButton(tr("Generate"), lmOptions);
    m_generate->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_generate->setToolTip(tr("Generate (Ctrl+Enter)"));
    form->addRow(tr("Seed:"), m_seed);
    form->addRow(tr("Temperature:"), m_temperature);
    form->addRow(tr("Top-k:"), m_topK);
    form->addRow(tr("Top-p:"), m_topP);
    form->addRow(tr("Length:"), m_length);
    form->addRow(tr("Form:"), m_form);
    form->addRow(tr("Meter:"), meterRow);
    form->addRow(tr("Acrostic:"), m_acrostic);
    form->addRow(tr("Samples:"), m_samples);
    form->addRow(m_generate);
    return lmOptions;
}

// The samples, poems drawn with their verse check, and Copy.
QGroupBox* PlaygroundPanel::buildResultsBox(QWidget* page) {
    auto* resultsBox = new QGroupBox(tr("Results"), page);
    auto* resultsLayout = new QVBoxLayout(resultsBox);
    m_results = new QListWidget(resultsBox);
    m_results->setWordWrap(true);
    m_results->setSelectionMode(QAbstractItemView::ExtendedSelection);
    QFont big = m_results->font();
    big.setPointSizeF(big.pointSizeF() * 1.5);  // poems are read, not scanned
    m_results->setFont(big);
    m_results->setSpacing(8);
    // Samples set apart: a free-text sample runs over several lines, and one ran into the next.
    m_results->setAlternatingRowColors(true);
    // Checked poems are drawn with the characters that break a rule marked, and the rules under them.
    m_results->setItemDelegate(new VerseItemDelegate(m_results));
    auto* copy = new QPushButton(tr("Copy"), resultsBox);
    copy->setToolTip(tr("Copy the selected samples (all when none is selected)"));
    resultsLayout->addWidget(m_results, 1);
    resultsLayout->addWidget(copy, 0, Qt::AlignRight);

    connect(copy, &QPushButton::clicked, this, [this] {
        QStringList texts;
        for (auto* item : m_results->selectedItems()) texts << item->text();
        if (texts.isEmpty()) texts = results();
        QApplication::clipboard()->setText(texts.join(QStringLiteral("\n\n")));
    });
    return resultsBox;
}

// The classifier's page: trying texts on the left, how the model does on its validation split on the right.
QWidget* PlaygroundPanel::buildClassifyPage() {
    auto* clsPage = new QWidget(this);
    auto* clsColumns = new QHBoxLayout(clsPage);
    auto* tryBox = new QGroupBox(tr("Classify"), clsPage);
    auto* cls = new QVBoxLayout(tryBox);
    m_text = new QPlainTextEdit(tryBox);
    m_text->setPlaceholderText(tr("Type or paste a text to classify"));
    m_text->setMaximumHeight(120);
    auto* clsRow = new QHBoxLayout;
    m_classTopK = new QSpinBox(tryBox);
    m_classTopK->setRange(1, 1000);
    m_classTopK->setValue(5);
    m_classify = new QPushButton(tr("Classify"), tryBox);
    clsRow->addWidget(new QLabel(tr("Top-k:"), tryBox));
    clsRow->addWidget(m_classTopK);
    clsRow->addStretch(1);
    clsRow->addWidget(m_classify);
    m_predicted = new QLabel(tryBox);
    m_probabilities = new QTableWidget(0, 2, tryBox);
    m_probabilities->setHorizontalHeaderLabels({tr("Class"), tr("Probability")});
    m_probabilities->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_probabilities->verticalHeader()->hide();
    m_probabilities->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_attributions = new QTextBrowser(tryBox);
    m_attributions->setToolTip(tr("Green tokens pushed toward the predicted class, red ones away from it"));
    auto* legend = new QLabel(
        tr("Tokens that drove the decision: <span style='background-color:rgba(26,166,77,0.6)'>&nbsp;toward "
           "the "
           "predicted class&nbsp;</span> <span style='background-color:rgba(217,38,38,0.6)'>&nbsp;away from "
           "it&nbsp;</span> — the stronger the colour, the more the token weighed"),
        tryBox);
    legend->setWordWrap(true);
    cls->addWidget(m_text);
    cls->addLayout(clsRow);
    cls->addWidget(m_predicted);
    cls->addWidget(m_probabilities, 1);
    cls->addWidget(legend);
    cls->addWidget(m_attributions, 1);
    auto* evaluationBox = new QGroupBox(tr("On the validation split"), clsPage);
    auto* evaluationLayout = new QVBoxLayout(evaluationBox);
    m_evaluation = new EvaluationView(evaluationBox);
    evaluationLayout->addWidget(m_evaluation);
    clsColumns->addWidget(tryBox, 1);
    clsColumns->addWidget(evaluationBox, 1);
    return clsPage;
}

// Loading, generating and classifying run on a thread of their own; the answers come back as signals.
void PlaygroundPanel::startWorker() {
    m_worker = new InferenceWorker;
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &InferenceWorker::loaded, this, &PlaygroundPanel::onLoaded);
    connect(m_worker, &InferenceWorker::generated, this, &PlaygroundPanel::onGenerated);
    connect(m_worker, &InferenceWorker::classified, this, &PlaygroundPanel::onClassified);
    connect(m_worker, &InferenceWorker::failed, this, [this](const QString& message) {
        setBusy(false);
        Q_EMIT errorOccurred(tr("Playground"), message);
    });
    m_thread.setObjectName(QStringLiteral("inference"));
    m_thread.start();
}

PlaygroundPanel::~PlaygroundPanel() {
    m_worker->shutDown();  // a long generation would otherwise hold the window's close for its full length
    m_thread.quit();
    m_thread.wait();
}

void PlaygroundPanel::setRuns(const QStringList& runDirs) {
    const QString current = m_run->currentData().toString();
    m_run->clear();
    for (const QString& d : runDirs) {
        m_run->addItem(runTitle(d), d);
        m_run->setItemData(m_run->count() - 1, d, Qt::ToolTipRole);
    }
    const int keep = m_run->findData(current);
    if (keep >= 0) m_run->setCurrentIndex(keep);
    m_load->setEnabled(m_run->count() > 0);
}

void PlaygroundPanel::loadRun(const QString& runDir) {
    if (m_run->findData(runDir) < 0) {
        m_run->insertItem(0, runTitle(runDir), runDir);
        m_run->setItemData(0, runDir, Qt::ToolTipRole);
    }
    m_run->setCurrentIndex(m_run->findData(runDir));
    m_model->setText(tr("Loading %1…").arg(runDir));
    setBusy(true);
    const bool best = m_checkpoint->currentIndex() == 0;
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, runDir, best] { w->load(runDir, best); }, Qt::QueuedConnection);
}

void PlaygroundPanel::setBestCheckpoint(bool best) { m_checkpoint->setCurrentIndex(best ? 0 : 1); }

QString PlaygroundPanel::modelText() const { return m_model->text(); }

void PlaygroundPanel::setBusy(bool busy) {
    const bool loaded = !m_loadedRun.isEmpty();
    m_generate->setEnabled(!busy && loaded);
    m_classify->setEnabled(!busy && loaded);
    m_load->setEnabled(!busy);
    if (busy && !m_busyCursor) QApplication::setOverrideCursor(Qt::BusyCursor);
    if (!busy && m_busyCursor) QApplication::restoreOverrideCursor();
    m_busyCursor = busy;
}

void PlaygroundPanel::updateMeter() {
    const bool poem = m_form->currentIndex() > 0;
    m_strict->setEnabled(poem && m_hasVerseTables);
    m_pattern->setEnabled(m_strict->isEnabled() && m_strict->isChecked());
    m_strict->setToolTip(
        !m_hasVerseTables
            ? tr("Strict meter needs tone and rhyme tables (tones.json and rhymes.json) for the model's "
                 "corpus: a corpus of Chinese poems uses those that preparing any Tang corpus writes. This "
                 "model's corpus is not one, no Tang corpus is prepared on this machine, or the tables could "
                 "not be read (the model line says why)")
        : !poem
            ? tr("Strict meter is for poems: choose a quatrain or a regulated verse as the form")
            : tr("Every poem follows a tonal pattern of regulated verse and one rhyme, without 孤平 or "
                 "三平尾: only characters whose reading has the right tone, or of the poem's rhyme group, "
                 "are drawn at each judged position, and no line is copied from the corpus"));
}

void PlaygroundPanel::onLoaded(const QString& runDir, bool isLanguageModel, bool hasVerseTables,
                               const QStringList& classes, const QString& description) {
    if (runDir != m_loadedRun) {  // what the previous model wrote is not this one's
        m_results->clear();
        m_predicted->clear();
        m_probabilities->setRowCount(0);
        m_attributions->clear();
        m_timing->clear();
    }
    m_loadedRun = runDir;
    m_isLanguageModel = isLanguageModel;
    m_hasVerseTables = hasVerseTables;
    updateMeter();
    m_model->setText(tr("<b>Model:</b> %1").arg(description.toHtmlEscaped()) +
                     (classes.isEmpty()
                          ? QString()
                          : tr(" · classes: %1").arg(classes.join(QStringLiteral(", ")).toHtmlEscaped())));
    m_pages->setCurrentIndex(isLanguageModel ? 0 : 1);
    m_evaluation->showRun(runDir);
    setBusy(false);
    Q_EMIT modelLoaded(runDir);
}

void PlaygroundPanel::generate() {
    if (m_loadedRun.isEmpty()) return;
    wb::GenerateOptions o;
    o.seedText = toStd(m_seed->text());
    o.temperature = m_temperature->value();
    o.topK = m_topK->value();
    o.topP = m_topP->value();
    o.length = m_length->value();
    static const wb::PoemForm forms[] = {wb::PoemForm::Free, wb::PoemForm::Quatrain5, wb::PoemForm::Quatrain7,
                                         wb::PoemForm::Regulated5, wb::PoemForm::Regulated7};
    o.form = forms[std::clamp(m_form->currentIndex(), 0, 4)];
    o.acrostic = toStd(m_acrostic->text().trimmed());
    o.samples = m_samples->value();
    if (m_strict->isEnabled() && m_strict->isChecked()) {
        o.meter = wb::Meter::Strict;
        o.pattern = static_cast<wb::MeterPattern>(m_pattern->currentData().toInt());
    }
    // What the engine would refuse in its own words ("give either a seed text or an acrostic"), said here
    // in the words of this panel's boxes, with what to do.
    if (const QString advice = formAdvice(o); !advice.isEmpty()) {
        Q_EMIT errorOccurred(tr("Generate"), advice);
        return;
    }
    setBusy(true);
    m_clock.start();
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, o] { w->generate(o); }, Qt::QueuedConnection);
}

QString PlaygroundPanel::formAdvice(const wb::GenerateOptions& o) const {
    if (o.form == wb::PoemForm::Free) return {};
    const bool five = o.form == wb::PoemForm::Quatrain5 || o.form == wb::PoemForm::Regulated5;
    const bool quatrain = o.form == wb::PoemForm::Quatrain5 || o.form == wb::PoemForm::Quatrain7;
    const int lineChars = five ? 5 : 7, lines = quatrain ? 4 : 8;
    const auto count = [](const std::string& s) { return QString::fromStdString(s).toUcs4().size(); };
    if (!o.seedText.empty() && !o.acrostic.empty())
        return tr(
            "A poem starts either from the seed or from the acrostic, not both: clear the Seed box or "
            "the Acrostic box.");
    if (count(o.acrostic) > lines)
        return tr("The acrostic gives the first character of each line, and this form has %1 lines: type at "
                  "most %1 characters in the Acrostic box.")
            .arg(lines);
    if (count(o.seedText) > lineChars)
        return tr("The seed must fit in the first line, which has %1 characters in this form: shorten the "
                  "Seed box to %1 characters, or pick the free form.")
            .arg(lineChars);
    return {};
}

void PlaygroundPanel::classify() {
    if (m_loadedRun.isEmpty()) return;
    setBusy(true);
    const QString text = m_text->toPlainText();
    const int k = m_classTopK->value();
    m_clock.start();
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, text, k] { w->classify(text, k); }, Qt::QueuedConnection);
}

void PlaygroundPanel::onGenerated(const QStringList& samples, const QVariantList& verse,
                                  const QVector<double>& bitsPerToken) {
    setBusy(false);
    m_results->clear();
    int passed = 0;
    for (int i = 0; i < samples.size(); ++i) {
        auto* item = new QListWidgetItem(samples[i], m_results);
        item->setToolTip(tr("How likely the model finds this text: %1 bits per token (per character for a "
                            "character model)")
                             .arg(bitsPerToken.value(i), 0, 'f', 2));
        if (i >= verse.size()) continue;
        const QVariantMap v = verse[i].toMap();
        item->setData(kVerseHtmlRole, v.value(QStringLiteral("html")));
        item->setData(kVerseSummaryRole, v.value(QStringLiteral("summary")));
        item->setData(kVersePassedRole, v.value(QStringLiteral("passed")));
        item->setData(kVerseMarksRole, v.value(QStringLiteral("marks")));
        item->setToolTip(v.value(QStringLiteral("tooltip")).toString());
        passed += v.value(QStringLiteral("passed")).toBool();
    }
    QString timing = tr("%1 in %2 ms")
                         .arg(samples.size() == 1 ? tr("1 sample") : tr("%1 samples").arg(samples.size()))
                         .arg(m_clock.elapsed());
    if (!verse.isEmpty())
        timing += tr(" · %1 of %2 pass every rule of regulated verse").arg(passed).arg(samples.size());
    m_timing->setText(timing);
    Q_EMIT resultsReady();
}

void PlaygroundPanel::onClassified(const QString& predicted, const QStringList& labels,
                                   const QVector<double>& probabilities, const QStringList& tokens,
                                   const QVector<double>& scores) {
    setBusy(false);
    m_predicted->setText(tr("Predicted: <b>%1</b>").arg(predicted.toHtmlEscaped()));
    m_timing->setText(tr("classified in %1 ms").arg(m_clock.elapsed()));
    m_probabilities->setRowCount(labels.size());
    for (int i = 0; i < labels.size(); ++i) {
        m_probabilities->setItem(i, 0, new QTableWidgetItem(labels[i]));
        auto* bar = new QProgressBar(m_probabilities);
        bar->setRange(0, 1000);
        bar->setValue(int(std::lround(probabilities.value(i) * 1000)));
        bar->setFormat(QStringLiteral("%1 %").arg(probabilities.value(i) * 100, 0, 'f', 1));
        m_probabilities->setCellWidget(i, 1, bar);
    }
    double maxAbs = 1e-12;
    for (double s : scores) maxAbs = std::max(maxAbs, std::fabs(s));
    QString html;
    for (int i = 0; i < tokens.size(); ++i) {
        const double s = scores.value(i) / maxAbs;  // -1 … 1
        const QColor c = s >= 0 ? QColor::fromRgbF(0.1f, 0.65f, 0.3f, float(std::fabs(s)) * 0.75f)
                                : QColor::fromRgbF(0.85f, 0.15f, 0.15f, float(std::fabs(s)) * 0.75f);
        html += QStringLiteral("<span style='background-color:rgba(%1,%2,%3,%4)' title='%5'>%6</span> ")
                    .arg(c.red())
                    .arg(c.green())
                    .arg(c.blue())
                    .arg(c.alphaF(), 0, 'f', 2)
                    .arg(scores.value(i), 0, 'g', 3)
                    .arg(tokens[i].toHtmlEscaped());
    }
    m_attributions->setHtml(QStringLiteral("<p style='font-size:13pt; line-height:150%'>%1</p>").arg(html));
    Q_EMIT resultsReady();
}

void PlaygroundPanel::setSeedText(const QString& text) { m_seed->setText(text); }
void PlaygroundPanel::setClassifierText(const QString& text) { m_text->setPlainText(text); }
void PlaygroundPanel::setForm(int index) { m_form->setCurrentIndex(index); }

void PlaygroundPanel::setAcrostic(const QString& text) { m_acrostic->setText(text); }
void PlaygroundPanel::setStrictMeter(bool strict, wb::MeterPattern pattern) {
    m_strict->setChecked(strict);
    m_pattern->setCurrentIndex(m_pattern->findData(static_cast<int>(pattern)));
}
bool PlaygroundPanel::strictMeterAvailable() const { return m_strict->isEnabled(); }
QString PlaygroundPanel::strictMeterToolTip() const { return m_strict->toolTip(); }
void PlaygroundPanel::setTemperature(double t) { m_temperature->setValue(t); }
void PlaygroundPanel::setSamples(int n) { m_samples->setValue(n); }
void PlaygroundPanel::setLength(int n) { m_length->setValue(n); }

QStringList PlaygroundPanel::verseSummaries() const {
    QStringList out;
    for (int i = 0; i < m_results->count(); ++i)
        if (const QString s = m_results->item(i)->data(kVerseSummaryRole).toString(); !s.isEmpty()) out << s;
    return out;
}

QString PlaygroundPanel::verseText(int result) const {
    return m_results->item(result) ? m_results->item(result)->data(kVerseHtmlRole).toString() : QString();
}

int PlaygroundPanel::verseMarks(int result) const {
    return m_results->item(result) ? m_results->item(result)->data(kVerseMarksRole).toInt() : 0;
}

QStringList PlaygroundPanel::results() const {
    QStringList out;
    for (int i = 0; i < m_results->count(); ++i) out << m_results->item(i)->text();
    return out;
}

QStringList PlaygroundPanel::classLabels() const {
    QStringList out;
    for (int i = 0; i < m_probabilities->rowCount(); ++i) out << m_probabilities->item(i, 0)->text();
    return out;
}

QString PlaygroundPanel::attributionHtml() const { return m_attributions->toHtml(); }
QString PlaygroundPanel::timingText() const { return m_timing->text(); }

}  // namespace wbui
