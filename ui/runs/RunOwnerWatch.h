// Tells the Runs list when a run trained by another process may have changed state, without polling: the
// run folder's files are renamed into place at every checkpoint and at the end (a QFileSystemWatcher on the
// folder sees it), and when the owner's process ends, however it ends, the kernel closes its run.lock, which
// inotify reports as IN_CLOSE_WRITE (only the owner opens it for writing; readers open it read-only). A
// SIGKILLed trainer writes nothing, so the lock's close is the one event its death makes.
//
// On a network filesystem (NFS, Lustre, CIFS, ...: a Slurm cluster's shared folder) inotify sees only this
// machine's writes, not those of the node that trains the run, so there the folders are polled instead of
// watched: every kPollMs, a change in the runs folder's entries, or in a watched run's run.json or
// metrics.csv (time, size) or its lock's owner, is told as the events would tell it. LSTM_WORKBENCH_POLL=1
// polls every folder, wherever it is (a shared filesystem not recognised here; the tests).
#pragma once

#include <QHash>
#include <QObject>
#include <QString>

class QFileSystemWatcher;
class QSocketNotifier;
class QTimer;

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

    static constexpr int kPollMs = 2000;
    // Whether dir is on a filesystem other machines write to (statfs's type), where it is polled.
    static bool onNetworkFilesystem(const QString& dir);

Q_SIGNALS:
    void rootChanged();
    void runChanged(const QString& runDir);

private:
    void readLockEvents();
    bool polled(const QString& dir) const { return m_pollEverywhere || onNetworkFilesystem(dir); }
    void poll();
    static QString rootSignature(const QString& dir);  // its entries' names
    // run.json's and metrics.csv's times and sizes, and whether a process holds the run's lock (one that
    // died on another node writes nothing: its lock's release is what tells).
    static QString runSignature(const QString& dir);

    QFileSystemWatcher* m_files = nullptr;
    QSocketNotifier* m_notifier = nullptr;
    int m_inotify = -1;
    QString m_root;
    QHash<QString, int> m_lockWatches;     // run folder -> inotify watch descriptor of its run.lock
    QHash<QString, QString> m_polledDirs;  // the root and the runs polled -> their last signature
    QTimer* m_poll = nullptr;
    bool m_pollEverywhere = false;
};

}  // namespace wbui
