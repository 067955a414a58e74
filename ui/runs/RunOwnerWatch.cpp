// RunOwnerWatch (see RunOwnerWatch.h).
#include "runs/RunOwnerWatch.h"

#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QSocketNotifier>
#include <QTimer>

#include <sys/inotify.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cstring>

#include "workbench/domain/RunFolder.h"
#include "workbench/domain/RunLock.h"

namespace wbui {

RunOwnerWatch::RunOwnerWatch(QObject* parent)
    : QObject(parent), m_files(new QFileSystemWatcher(this)), m_poll(new QTimer(this)) {
    m_poll->setInterval(kPollMs);
    m_pollEverywhere = qEnvironmentVariableIntValue("LSTM_WORKBENCH_POLL") == 1;
    connect(m_poll, &QTimer::timeout, this, &RunOwnerWatch::poll);
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
    if (!m_root.isEmpty()) {
        m_files->removePath(m_root);
        m_polledDirs.remove(m_root);
    }
    m_root = dir;
    if (m_root.isEmpty()) {
    } else if (polled(m_root)) {
        m_polledDirs.insert(m_root, rootSignature(m_root));
    } else {
        m_files->addPath(m_root);
    }
    if (m_polledDirs.isEmpty())
        m_poll->stop();
    else if (!m_poll->isActive())
        m_poll->start();
}

bool RunOwnerWatch::onNetworkFilesystem(const QString& dir) {
    struct statfs fs {};
    if (::statfs(QFile::encodeName(dir).constData(), &fs) != 0) return false;
    // The kernel's magic numbers (linux/magic.h and the filesystems' own): NFS, SMB, CIFS, SMB2, Ceph,
    // Lustre, GPFS, BeeGFS, AFS, 9P, and FUSE (sshfs and most cluster filesystems in user space).
    for (const unsigned long magic :
         {0x6969UL, 0x517BUL, 0xFF534D42UL, 0xFE534D42UL, 0x00C36400UL, 0x0BD00BD0UL, 0x47504653UL,
          0x19830326UL, 0x5346414FUL, 0x01021997UL, 0x65735546UL})
        if (static_cast<unsigned long>(fs.f_type) == magic) return true;
    return false;
}

QString RunOwnerWatch::rootSignature(const QString& dir) {
    return QDir(dir)
        .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden, QDir::Name)
        .join(QLatin1Char('/'));
}

QString RunOwnerWatch::runSignature(const QString& dir) {
    QString out;
    for (const char* name : {wb::runfiles::kRun, wb::runfiles::kMetrics}) {
        const QFileInfo file(dir + QLatin1Char('/') + QLatin1String(name));
        out += QString::number(file.lastModified().toMSecsSinceEpoch()) + QLatin1Char(':') +
               QString::number(file.size()) + QLatin1Char(' ');
    }
    bool owned = false;
    try {
        owned = wb::runHasLiveOwner(dir.toStdString());
    } catch (const std::exception&) {
    }
    return out + (owned ? QStringLiteral("owned") : QStringLiteral("free"));
}

void RunOwnerWatch::poll() {
    QStringList changedRuns;
    bool rootChanged = false;
    for (auto it = m_polledDirs.begin(); it != m_polledDirs.end(); ++it) {
        const QString now = it.key() == m_root ? rootSignature(it.key()) : runSignature(it.key());
        if (now == it.value()) continue;
        it.value() = now;
        if (it.key() == m_root)
            rootChanged = true;
        else
            changedRuns << it.key();
    }
    if (rootChanged) Q_EMIT this->rootChanged();
    for (const QString& dir : std::as_const(changedRuns)) Q_EMIT runChanged(dir);
}

void RunOwnerWatch::watch(const QString& runDir) {
    if (m_lockWatches.contains(runDir)) return;
    int wd = -1;
    if (polled(runDir)) {
        m_polledDirs.insert(runDir, runSignature(runDir));
        if (!m_poll->isActive()) m_poll->start();
    } else {
        m_files->addPath(runDir);
        if (m_inotify >= 0) {
            const QByteArray lock =
                (runDir + QLatin1Char('/') + QLatin1String(wb::runfiles::kLock)).toLocal8Bit();
            wd = ::inotify_add_watch(m_inotify, lock.constData(), IN_CLOSE_WRITE | IN_DELETE_SELF);
        }
    }
    m_lockWatches.insert(runDir, wd);
}

void RunOwnerWatch::unwatch(const QString& runDir) {
    const auto it = m_lockWatches.find(runDir);
    if (it == m_lockWatches.end()) return;
    if (it.value() >= 0) ::inotify_rm_watch(m_inotify, it.value());
    m_lockWatches.erase(it);
    m_files->removePath(runDir);
    if (runDir != m_root) m_polledDirs.remove(runDir);
    if (m_polledDirs.isEmpty()) m_poll->stop();
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
