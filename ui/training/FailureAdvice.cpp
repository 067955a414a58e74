// Advice after a failed run.
#include "training/FailureAdvice.h"

#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QObject>
#include <QStorageInfo>

#include <algorithm>

#include "workbench/domain/RunFolder.h"

namespace wbui {

namespace {

// The run folder's checkpoint, as a resume would find it.
QString resumeFrom(const QString& runDir) {
    return QFileInfo::exists(QDir(runDir).filePath(QLatin1String(wb::runfiles::kModel)))
               ? QObject::tr("Resume goes on from its last checkpoint.")
               : QObject::tr("It has no checkpoint yet: Resume starts it again from step 0.");
}

QString diskFull(const QString& runDir) {
    const QStorageInfo disk(QFileInfo(runDir).absolutePath());
    const QString free = disk.isValid() ? QLocale().formattedDataSize(disk.bytesAvailable()) : QString();
    // The next checkpoint is written beside the last one before it replaces it: that much must be free.
    qint64 checkpoint = 0;
    for (const char* name : {wb::runfiles::kModel, wb::runfiles::kOptimizer})
        checkpoint += std::max<qint64>(0, QFileInfo(QDir(runDir).filePath(QLatin1String(name))).size());
    const QString toFree = checkpoint > 0 ? QObject::tr("Free at least %1 (one checkpoint of this run)")
                                                .arg(QLocale().formattedDataSize(checkpoint))
                                          : QObject::tr("Free some space");
    return QObject::tr(
               "The disk that holds the run folder is full%1. %2, then resume the run from the Runs "
               "list. %3")
        .arg(free.isEmpty() ? QString() : QObject::tr(" (%1 free now)").arg(free), toFree,
             resumeFrom(runDir));
}

}  // namespace

QString failureAdvice(const QString& message, const QString& runDir) {
    const QString lower = message.toLower();
    if (lower.contains(QLatin1String("no space left")) || lower.contains(QLatin1String("disk quota")))
        return diskFull(runDir);
    if (lower.contains(QLatin1String("nan")) || lower.contains(QLatin1String("infinite")))
        return QObject::tr("Lower the learning rate (or enable gradient clipping) and resume. %1")
            .arg(resumeFrom(runDir));
    if (lower.contains(QLatin1String("out of memory")) || lower.contains(QLatin1String("memory")))
        return QObject::tr("Choose a smaller batch or model and run again. %1").arg(resumeFrom(runDir));
    return QObject::tr("What the run learned until then is in its run folder. %1").arg(resumeFrom(runDir));
}

}  // namespace wbui
