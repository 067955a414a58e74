// Reading corpus overviews off the GUI thread (see CorpusReader.h).
#include "corpus/CorpusReader.h"

#include <QThread>

#include "workbench/graphics/QtConversions.h"

namespace wbui {

namespace {
constexpr const char* kReaderThread = "wb-corpus-reader";
}

CorpusReader::CorpusReader(QObject* parent) : QObject(parent) {}

CorpusReader::~CorpusReader() {
    if (m_cancel) *m_cancel = true;
    // Superseded reads were cancelled when they were; plain text stops within a block, a format loaded whole
    // when its loader returns.
    for (QThread* t : findChildren<QThread*>(QString::fromLatin1(kReaderThread), Qt::FindDirectChildrenOnly))
        t->wait();
}

void CorpusReader::read(const QString& path, wb::CorpusFormat format) {
    if (m_cancel) *m_cancel = true;  // superseded: its thread ends on its own and its result is dropped
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancel;
    // The thread reports through queued calls on this object, each checking that its read is still the one
    // under way; calls still queued when this object goes are dropped with it.
    const auto current = [this, cancel] { return m_cancel == cancel && !cancel->load(); };
    auto* thread = QThread::create([this, cancel, current, path = toStd(path), format] {
        const auto report = [&](auto onGui) {
            QMetaObject::invokeMethod(
                this,
                [current, onGui] {
                    if (current()) onGui();
                },
                Qt::QueuedConnection);
        };
        try {
            auto overview = std::make_shared<const wb::CorpusOverview>(
                wb::readCorpusOverview(path, format, 20, 240, [&](std::uint64_t done, std::uint64_t total) {
                    report([this, done, total] { Q_EMIT progress(qint64(done), qint64(total)); });
                    return !cancel->load();
                }));
            report([this, overview] {
                m_cancel.reset();
                Q_EMIT finished(overview);
            });
        } catch (const wb::Cancelled&) {
            // cancel() said so already, or a newer read superseded this one.
        } catch (const std::exception& e) {
            report([this, message = describeError(e)] {
                m_cancel.reset();
                Q_EMIT failed(message);
            });
        }
    });
    thread->setObjectName(QString::fromLatin1(kReaderThread));
    thread->setParent(this);
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    thread->start();
}

void CorpusReader::cancel() {
    if (!m_cancel) return;
    *m_cancel = true;
    m_cancel.reset();
}

}  // namespace wbui
