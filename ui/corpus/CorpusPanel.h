// The corpus page: open a file or folder (or a prepared corpus from the catalog), detect or override its
// format, and show statistics, class balance and a preview of the first documents. A corpus that fails to
// load leaves the previous one in place and says which file, which line and what was expected.
#pragma once

#include <QString>
#include <QWidget>

#include <memory>
#include <optional>

#include "corpus/CorpusPreparer.h"
#include "workbench/Corpus.h"
#include "workbench/CorpusCatalog.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QGroupBox;

namespace wbui {

class ClassBalanceChart;

class CorpusPanel : public QWidget {
    Q_OBJECT
public:
    explicit CorpusPanel(QWidget* parent = nullptr);

    // Loads a path with the format chosen in the override box (Auto detects). Returns false (and keeps the
    // previous corpus) when the core rejects it.
    bool loadPath(const QString& path);
    // Loads a prepared corpus by catalog name.
    bool loadPrepared(const QString& name);
    // Rebuilds the Ready corpora box: the prepared corpora, then those the preparer can fetch.
    void refreshCatalog();
    // Runs the preparer for a corpus (the Prepare button); loads it when done.
    void prepareCorpus(const QString& name);
    // Puts the Ready corpora box on a corpus, also one the preparer has not listed yet.
    void selectReadyCorpus(const QString& name);
    bool canPrepare() const { return m_preparer->available(); }
    CorpusPreparer* preparer() const { return m_preparer; }
    QString catalogButtonText() const;
    QString prepareStage() const { return m_prepareStage; }
    // A line under the header, for "prepare it with: …" hints.
    void setHint(const QString& text);
    // At launch: loads lastCorpus when it still loads, else the prepared corpus `fallback`; when that is not
    // prepared either, selects it under Ready corpora and shows how to prepare it. Returns that hint ("" when
    // a corpus was loaded).
    QString openOnLaunch(const QString& lastCorpus, const QString& fallback);

    bool hasCorpus() const { return m_corpus != nullptr; }
    std::shared_ptr<const wb::Corpus> corpus() const { return m_corpus; }
    const wb::CorpusStats& stats() const { return m_stats; }
    // What goes into DataConfig::corpus: the path (or catalog data path) that was loaded.
    QString corpusPath() const { return m_path; }
    QString displayName() const { return m_displayName; }
    wb::CorpusFormat loadedFormat() const { return m_corpus ? m_corpus->format : wb::CorpusFormat::Auto; }
    QString messageText() const;
    QString manifestText() const;
    QString catalogSelection() const;  // the prepared corpus the catalog box is on ("" when none)
    int previewRows() const;

Q_SIGNALS:
    void corpusLoaded(const QString& path);
    void loadFailed(const QString& title, const QString& message);
    void openRequested();
    void prepared(const QString& name);
    void prepareFailed(const QString& name, const QString& message);

private:
    bool load(const QString& path, wb::CorpusFormat format, const QString& displayName,
              const std::optional<wb::CatalogEntry>& entry);
    void showCorpus();
    void showManifest(const std::optional<wb::CatalogEntry>& entry);
    wb::CorpusFormat overrideFormat() const;
    void updateCatalogButton();
    void showPrepareProgress(const QString& stage, qint64 done, qint64 total);
    void onPrepared(const QString& name, CorpusPreparer::Outcome outcome, const QString& message);

    std::shared_ptr<const wb::Corpus> m_corpus;
    wb::CorpusStats m_stats;
    QString m_path;
    QString m_displayName;

    QLabel* m_title = nullptr;
    QLabel* m_message = nullptr;
    QComboBox* m_format = nullptr;
    QComboBox* m_catalog = nullptr;
    QPushButton* m_loadPrepared = nullptr;
    QLabel* m_manifest = nullptr;
    CorpusPreparer* m_preparer = nullptr;
    QList<ReadyCorpus> m_ready;  // what the preparer listed (empty until it answers)
    QString m_wantedSelection;   // selected once listed
    QWidget* m_prepareRow = nullptr;
    QProgressBar* m_prepareProgress = nullptr;
    QPushButton* m_cancelPrepare = nullptr;
    QLabel* m_prepareStageLabel = nullptr;
    QString m_prepareStage;
    QLabel* m_statsLabel = nullptr;
    QGroupBox* m_balanceBox = nullptr;
    ClassBalanceChart* m_balance = nullptr;
    QTableWidget* m_preview = nullptr;
};

}  // namespace wbui
