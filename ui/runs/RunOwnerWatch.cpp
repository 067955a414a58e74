// RunOwnerWatch (see RunOwnerWatch.h).
#include "runs/RunOwnerWatch.h"

#include <QFileSystemWatcher>
#include <QSocketNotifier>

#include <sys/inotify.h>
#include <unistd.h>

#include <cstring>

#include "workbench/domain/RunFolder.h"

namespace wbui {

RunOwnerWatch::RunOwnerWatch(QObject* parent) : QObject(parent), m_files(new QFileSystemWatcher(this)) {
    connect(m_files, &QFileSystemWatcher::directoryChanged, this, [this](const QString& dir) {
        if (dir == m_root)
            Q_EMIT rootChanged();
        else
            Q_EMIT runChanged(dir);
    });
    m_inotify = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (m_inotify >= 0) {
        m_notifier = new QSocketNotifier(m_inotify, QSocketNotifier::Read, this);
        connect(m_notifier, &QSocketNotifier::activated, this, [this] { readLockEvents(); });
    }
}

RunOwnerWatch::~RunOwnerWatch() {
    if (m_inotify >= 0) ::close(m_inotify);
}

void RunOwnerWatch::setRoot(const QString& dir) {
    if (!m_root.isEmpty()) m_files->removePath(m_root);
    m_root = dir;
    if (!m_root.isEmpty()) m_files->addPath(m_root);
}

void RunOwnerWatch::watch(const QString& runDir) {
    if (m_lockWatches.contains(runDir)) return;
    m_files->addPath(runDir);
    int wd = -1;
    if (m_inotify >= 0) {
        const QByteArray lock =
            (runDir + QLatin1Char('/') + QLatin1String(wb::runfiles::kLock)).toLocal8Bit();
        wd = ::inotify_add_watch(m_inotify, lock.constData(), IN_CLOSE_WRITE | IN_DELETE_SELF);
    }
    m_lockWatches.insert(runDir, wd);
}

void RunOwnerWatch::unwatch(const QString& runDir) {
    const auto it = m_lockWatches.find(runDir);
    if (it == m_lockWatches.end()) return;
    if (it.value() >= 0) ::inotify_rm_watch(m_inotify, it.value());
    m_lockWatches.erase(it);
    m_files->removePath(runDir);
}

void RunOwnerWatch::readLockEvents() {
    alignas(inotify_event) char buf[4096];
    QStringList changed;
    for (;;) {
        const ssize_t n = ::read(m_inotify, buf, sizeof buf);
        if (n <= 0) break;
        for (ssize_t at = 0; at < n;) {
            inotify_event event;
            std::memcpy(&event, buf + at, sizeof event);
            for (auto it = m_lockWatches.cbegin(); it != m_lockWatches.cend(); ++it)
                if (it.value() == event.wd && !changed.contains(it.key())) changed << it.key();
            at += ssize_t(sizeof(inotify_event) + event.len);
        }
    }
    for (const QString& dir : std::as_const(changed)) Q_EMIT runChanged(dir);
}

}  // namespace wbui
