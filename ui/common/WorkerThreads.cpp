// Retiring worker threads to a keeper object.
#include "common/WorkerThreads.h"

#include <QThread>

namespace wbui {

namespace {
constexpr const char* kRetiredName = "wb-retired-worker";
}

void retireWorker(QThread*& thread, QObject* keeper) {
    if (!thread) return;
    QThread* t = thread;
    thread = nullptr;
    // A thread that ends within a moment (or has no keeper to go to) is simply waited for.
    if (t->wait(50) || !keeper) {
        t->wait();
        delete t;
        return;
    }
    t->setObjectName(QString::fromLatin1(kRetiredName));
    t->setParent(keeper);
    QObject::connect(t, &QThread::finished, t, &QObject::deleteLater);
    if (t->isFinished())
        t->deleteLater();  // it may have ended before the connection (deleteLater twice is safe)
}

void waitForRetiredWorkers(QObject* keeper) {
    if (!keeper) return;
    const auto threads =
        keeper->findChildren<QThread*>(QString::fromLatin1(kRetiredName), Qt::FindDirectChildrenOnly);
    for (QThread* t : threads) t->wait();
}

}  // namespace wbui
