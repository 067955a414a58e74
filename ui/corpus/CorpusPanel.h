// The corpus page: open a file or folder (or a prepared corpus from the catalog), detect or override its
// format, and show statistics, class balance and a preview of the first documents. A corpus is read on a
// thread of its own (CorpusReader), with a progress bar and Cancel while it takes a moment; plain text is
// read streamed, never held whole, so a corpus larger than memory opens. A corpus that fails to load (or a
// read cancelled) leaves the previous one in place and says which file, which line and what was expected.
#pragma once

#include <QString>
#include <QWidget>

#include <memory>
#include <optional>

#include "corpus/CorpusPreparer.h"
#include "corpus/CorpusReader.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/CorpusCatalog.h"
#include "workbench/domain/CorpusOverview.h"

class QComboBox;
class QFormLayout;
class QHBoxLayout;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QVBoxLayout;
class QGroupBox;

namespace wbui {

class ClassBalanceChart;

class CorpusPanel : public QWidget {
    Q_OBJECT
public:
    explicit CorpusPanel(QWidget* parent = nullptr);

    // Starts reading a path with the format chosen in the override box (Auto detects); corpusLoaded or
    // loadFailed follows (the previous corpus stays until then, and after a failure). A read under way is
    // superseded.
    void loadPath(const QString& path);
    // Starts reading a prepared corpus by catalog name; false (and loadFailed) when it is not prepared.
    bool loadPrepared(const QString& name);
    bool isLoading() const { return m_reader->busy(); }
    QString loadingName() const { return isLoading() ? m_pending.displayName : QString(); }
    // Stops the read under way (the Cancel button); the previous corpus stays.
    void cancelLoading();
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
    // a corpus is being loaded).
    QString openOnLaunch(const QString& lastCorpus, const QString& fallback);

    bool hasCorpus() const { return m_overview != nullptr; }
    // What the page shows of the loaded corpus (null when none).
    std::shared_ptr<const wb::CorpusOverview> overview() const { return m_overview; }
    // The loaded corpus in memory: null for plain text, which runs and finders read from its token store.
    std::shared_ptr<const wb::Corpus> corpus() const { return m_overview ? m_overview->corpus : nullptr; }
    const wb::CorpusStats& stats() const;
    // What goes into DataConfig::corpus: the path (or catalog data path) that was loaded.
    QString corpusPath() const { return m_path; }
    QString displayName() const { return m_displayName; }
    wb::CorpusFormat loadedFormat() const { return m_overview ? m_overview->format : wb::CorpusFormat::Auto; }
    QString messageText() const;
    QString manifestText() const;
    QString catalogSelection() const;  // the prepared corpus the catalog box is on ("" when none)
    int previewRows() const;

Q_SIGNALS:
    void corpusLoaded(const QString& path);
    void loadingChanged(bool loading);
    void loadFailed(const QString& title, const QString& message);
    void openRequested();
    void prepared(const QString& name);
    void prepareFailed(const QString& name, const QString& message);

private:
    struct PendingLoad {
        QString path;
        wb::CorpusFormat format = wb::CorpusFormat::Auto;
        QString displayName;
        std::optional<wb::CatalogEntry> entry;
        QString fallback;       // at launch: the prepared corpus to load when this one fails
        QString loadedMessage;  // shown once it is loaded, instead of the document count
    };
    // The page's parts, top to bottom (the constructor wires the reader and the preparer to them).
    void buildIntro(QVBoxLayout* layout);
    QHBoxLayout* buildOpenRow();
    QWidget* buildLoadRow();
    QGroupBox* buildCatalogBox();
    QGroupBox* buildStatisticsBox();
    QGroupBox* buildBalanceBox();
    QGroupBox* buildPreviewBox();
    void load(PendingLoad request);
    void onRead(std::shared_ptr<const wb::CorpusOverview> overview);
    void onReadFailed(const QString& error);
    void showReadProgress(qint64 done, qint64 total);
    void endLoading();
    void showCorpus();
    void showManifest(const std::optional<wb::CatalogEntry>& entry);
    wb::CorpusFormat overrideFormat() const;
    void updateCatalogButton();
    void showPrepareProgress(const QString& stage, qint64 done, qint64 total);
    void onPrepared(const QString& name, CorpusPreparer::Outcome outcome, const QString& message);

    std::shared_ptr<const wb::CorpusOverview> m_overview;
    CorpusReader* m_reader = nullptr;
    PendingLoad m_pending;
    QString m_path;
    QString m_displayName;

    QLabel* m_title = nullptr;
    QLabel* m_message = nullptr;
    QComboBox* m_format = nullptr;
    QWidget* m_loadRow = nullptr;  // while a corpus is read: how far, and Cancel
    QProgressBar* m_loadProgress = nullptr;
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
