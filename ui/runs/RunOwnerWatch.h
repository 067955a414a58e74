// Tells the Runs list when a run trained by another process may have changed state, without polling: the
// run folder's files are renamed into place at every checkpoint and at the end (a QFileSystemWatcher on the
// folder sees it), and when the owner's process ends, however it ends, the kernel closes its run.lock, which
// inotify reports as IN_CLOSE_WRITE (only the owner opens it for writing; readers open it read-only). A
// SIGKILLed trainer writes nothing, so the lock's close is the one event its death makes.
#pragma once

#include <QHash>
#include <QObject>
#include <QString>

class QFileSystemWatcher;
class QSocketNotifier;

namespace wbui {

class RunOwnerWatch : public QObject {
    Q_OBJECT
public:
    explicit RunOwnerWatch(QObject* parent = nullptr);
    ~RunOwnerWatch() override;

    // The runs folder: run folders appearing or going away.
    void setRoot(const QString& dir);
    // A run another process trains: its folder and its lock. unwatch when it no longer reads running.
    void watch(const QString& runDir);
    void unwatch(const QString& runDir);
    bool watching(const QString& runDir) const { return m_lockWatches.contains(runDir); }

Q_SIGNALS:
    void rootChanged();
    void runChanged(const QString& runDir);

private:
    void readLockEvents();

    QFileSystemWatcher* m_files = nullptr;
    QSocketNotifier* m_notifier = nullptr;
    int m_inotify = -1;
    QString m_root;
    QHash<QString, int> m_lockWatches;  // run folder -> inotify watch descriptor of its run.lock
};

}  // namespace wbui
