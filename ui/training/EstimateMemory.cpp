// Estimates kept under "estimates/KEY" in the app's settings, KEY a hash of the machine and the runs.
#include "training/EstimateMemory.h"

#include <QCryptographicHash>
#include <QFile>
#include <QRegularExpression>
#include <QSettings>
#include <QThread>

#include <algorithm>
#include <vector>

#include "workbench/engine/Devices.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

namespace {

const QString kGroup = QStringLiteral("estimates");

QString keyOf(const QStringList& runs) {
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(EstimateMemory::machine().toUtf8());
    for (const QString& run : runs) hash.addData(("\n" + run).toUtf8());
    return QString::fromLatin1(hash.result().toHex().left(32));
}

QString cpuModel() {
    QFile cpuinfo(QStringLiteral("/proc/cpuinfo"));
    if (!cpuinfo.open(QIODevice::ReadOnly)) return {};
    const auto match =
        QRegularExpression(QStringLiteral("^model name\\s*:\\s*(.*)$"), QRegularExpression::MultilineOption)
            .match(QString::fromUtf8(cpuinfo.readAll()));
    return match.hasMatch() ? match.captured(1).trimmed() : QString();
}

}  // namespace

QString EstimateMemory::machine() {
    static const QString machine = QStringList{cpuModel(),
                                               QString::number(QThread::idealThreadCount()),
                                               qEnvironmentVariable("LSTM_WORKBENCH_CPU_CAPABILITY"),
                                               qEnvironmentVariable("OMP_NUM_THREADS"),
                                               toQt(wb::libtorchVersion()),
                                               QStringLiteral(WORKBENCH_VERSION)}
                                       .join(QLatin1Char('|'));
    return machine;
}

std::optional<EstimateMemory::Entry> EstimateMemory::recall(const QStringList& runs) {
    const QVariantList kept = QSettings().value(kGroup + QLatin1Char('/') + keyOf(runs)).toList();
    if (kept.size() != 2 || kept[0].toDouble() <= 0) return std::nullopt;
    return Entry{kept[0].toDouble(), kept[1].toDateTime()};
}

void EstimateMemory::remember(const QStringList& runs, double seconds) {
    QSettings settings;
    settings.setValue(kGroup + QLatin1Char('/') + keyOf(runs),
                      QVariantList{seconds, QDateTime::currentDateTimeUtc()});
    // The newest kKept only: each experiment estimated adds one.
    settings.beginGroup(kGroup);
    std::vector<std::pair<QDateTime, QString>> all;
    for (const QString& key : settings.childKeys())
        all.emplace_back(settings.value(key).toList().value(1).toDateTime(), key);
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t i = kKept; i < all.size(); ++i) settings.remove(all[i].second);
    settings.endGroup();
}

}  // namespace wbui
