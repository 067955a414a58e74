// Reads a corpus's overview (workbench/domain/CorpusOverview.h) on a thread of its own, so that the window
// stays responsive while a large corpus is read: plain text reports its progress and stops on cancel(); a
// format loaded whole reports none, and a cancel() only drops its result. A new read supersedes the one under
// way (which is cancelled, and its result never delivered).
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

#include "workbench/domain/CorpusOverview.h"

class QThread;

namespace wbui {

class CorpusReader : public QObject {
    Q_OBJECT
public:
    explicit CorpusReader(QObject* parent = nullptr);
    ~CorpusReader() override;  // cancels what is under way and waits for its thread

    void read(const QString& path, wb::CorpusFormat format);
    void cancel();
    bool busy() const { return m_cancel != nullptr; }

Q_SIGNALS:
    // done of total bytes of the file (plain text only).
    void progress(qint64 done, qint64 total);
    void finished(std::shared_ptr<const wb::CorpusOverview> overview);
    // A bad corpus: the core's message (file, line, what was expected).
    void failed(const QString& message);

private:
    // The read under way: its cancel flag (null when none); each read has its own.
    std::shared_ptr<std::atomic<bool>> m_cancel;
};

}  // namespace wbui
