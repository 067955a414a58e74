// Runs the corpus preparer this installation has (workbench/domain/Preparer.h) for the corpus panel, in a
// child process that never blocks the window: lists the corpora it can prepare, prepares one with progress
// (the script's --progress JSON lines), and cancels with SIGINT, on which the script removes its half-built
// folder.
#pragma once

#include <QList>
#include <QObject>
#include <QString>

#include <optional>

#include "workbench/domain/Preparer.h"

class QProcess;

namespace wbui {

struct ReadyCorpus {
    QString name;  // "tang-quatrains-7"
    QString description;
    QString format;  // "poems", "folder", "text"
    QString source;  // "npm:chinese-poetry"
    bool prepared = false;
    qint64 documents = 0;
};

class CorpusPreparer : public QObject {
    Q_OBJECT
public:
    explicit CorpusPreparer(QObject* parent = nullptr);
    ~CorpusPreparer() override;

    bool available() const { return m_preparer.has_value(); }
    QString script() const;
    bool busy() const { return m_prepareProcess != nullptr; }
    QString preparing() const { return m_preparing; }

    // Emits listed() when the preparer answered (nothing when it is not available or fails: the panel
    // keeps what the catalog found).
    void requestList();
    // Emits progress() while it runs and finished() once. Ignored while another preparation runs.
    void prepare(const QString& name);
    void cancel();

    enum class Outcome { Prepared, Failed, RegistryUnreachable, Cancelled };

Q_SIGNALS:
    void listed(const QList<wbui::ReadyCorpus>& corpora);
    // done/total are -1 while the stage's length is unknown (a download, opencc).
    void progress(const QString& stage, qint64 done, qint64 total);
    // message: what went wrong and what to do, for the user (empty when prepared).
    void finished(const QString& name, wbui::CorpusPreparer::Outcome outcome, const QString& message);

private:
    QProcess* start(const QStringList& args);
    void readProgress();
    void onPrepareFinished(int exitCode);

    std::optional<wb::Preparer> m_preparer;
    QProcess* m_listProcess = nullptr;
    QProcess* m_prepareProcess = nullptr;
    QString m_preparing;
    QByteArray m_pending;  // a partial stdout line
    bool m_cancelled = false;
};

}  // namespace wbui
