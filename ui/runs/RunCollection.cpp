// The runs being compared right now.
#include "runs/RunCollection.h"

#include <QSet>
#include <QSysInfo>

#include "workbench/graphics/LossCurves.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

RunCollection::RunCollection(QObject* parent) : QObject(parent) {}

int RunCollection::indexOf(const QString& key) const {
    for (int i = 0; i < m_entries.size(); ++i)
        if (m_entries[i]->key == key) return i;
    return -1;
}

QString RunCollection::deviceLabelFor(const wb::RunRecord& record) {
    QString label =
        deviceLabel(record.info.device.empty() ? record.config.device.spec.id() : record.info.device,
                    record.info.threads ? record.info.threads : record.config.device.spec.threads,
                    record.info.deviceName, record.info.worldSize);
    const std::string precision =
        record.info.precision.empty() ? wb::toString(record.config.device.precision) : record.info.precision;
    label += QStringLiteral(" · ") + toQt(precision);
    return label;
}

int RunCollection::add(RunEntry entry) {
    const int existing = indexOf(entry.key);
    if (existing >= 0) return existing;
    if (!entry.color.isValid()) entry.color = runColor(m_colorsUsed);
    ++m_colorsUsed;
    m_entries.push_back(std::make_shared<RunEntry>(std::move(entry)));
    relabel(m_entries.size() - 1);
    Q_EMIT runAdded(m_entries.back()->key);
    return m_entries.size() - 1;
}

void RunCollection::remove(const QString& key) {
    const int i = indexOf(key);
    if (i < 0) return;
    const QString removed = key;  // key may be the entry's own (remove(at(i).key)), gone after the next line
    m_entries.remove(i);
    Q_EMIT runRemoved(removed);
}

void RunCollection::clear() {
    m_entries.clear();
    m_colorsUsed = 0;
    Q_EMIT cleared();
}

void RunCollection::appendMetrics(const QString& key, const std::vector<wb::MetricRecord>& records) {
    const int i = indexOf(key);
    if (i < 0 || records.empty()) return;
    auto& record = m_entries[i]->record;
    record.metrics.insert(record.metrics.end(), records.begin(), records.end());
    // A live character model writes its n-gram baseline before its first step, so it is there by the first
    // metrics (the comparison table and the chart show it beside the run's own bits per character). Looked
    // for once, not at every batch of metrics; the run is read from disk again when it ends.
    const bool firstMetrics = record.metrics.size() == records.size();
    if (firstMetrics && !record.baseline && wb::hasBitsPerCharacter(record.config)) {
        try {
            record.baseline = wb::loadBaseline(toStd(key));
        } catch (const std::exception&) {
            // A damaged baseline.json: the run's own numbers still show; opening the run says what is wrong.
        }
    }
    Q_EMIT metricsAppended(key);
}

void RunCollection::updateInfo(const QString& key, const wb::RunInfo& info) {
    const int i = indexOf(key);
    if (i < 0) return;
    m_entries[i]->record.info = info;
    relabel(i);
    Q_EMIT runUpdated(key);
}

void RunCollection::reloadFromDisk(const QString& key) {
    const int i = indexOf(key);
    if (i < 0) return;
    try {
        wb::RunRecord fresh = wb::loadRunFolder(toStd(key));
        auto& entry = *m_entries[i];
        entry.record = std::move(fresh);
        entry.live = false;
        relabel(i);
        Q_EMIT runUpdated(key);
    } catch (const std::exception&) {
        // A run that failed before writing its folder keeps what we streamed.
        m_entries[i]->live = false;
        Q_EMIT runUpdated(key);
    }
}

void RunCollection::setLiveProgress(const QString& key, wb::RunStatus status, std::int64_t steps,
                                    double samplesPerSecond) {
    const int i = indexOf(key);
    if (i < 0) return;
    auto& info = m_entries[i]->record.info;
    if (info.number == 0 && status == wb::RunStatus::Running) {
        // The number the trainer gave the run as it started (run.json): the list and the charts say it while
        // it trains, not only once it ends.
        try {
            const auto runJson = toStd(key) + "/" + wb::runfiles::kRun;
            info.number = wb::RunInfo::fromJson(wb::readFile(runJson), runJson).number;
        } catch (const std::exception&) {
            info.number = -1;  // not there or unreadable: asked once
        }
        if (info.number > 0) {
            relabel(i);
            Q_EMIT runUpdated(key);
        }
    }
    if (info.status == status && info.summary.steps == steps) return;
    info.status = status;
    info.summary.steps = steps;
    if (samplesPerSecond > 0) info.summary.samplesPerSecond = samplesPerSecond;
    Q_EMIT liveProgressChanged(key);
}

void RunCollection::setAnnotations(const QString& key, const wb::RunAnnotations& annotations) {
    const int i = indexOf(key);
    if (i < 0) return;
    m_entries[i]->record.annotations = annotations;
    relabel(i);
    Q_EMIT runUpdated(key);
}

QString RunCollection::comparisonTag(int index) const {
    QSet<std::int64_t> numbers;
    for (const auto& entry : m_entries) {
        const auto n = entry->record.info.number;
        if (n <= 0 || numbers.contains(n)) return QStringLiteral("#%1").arg(index + 1);
        numbers.insert(n);
    }
    return index >= 0 && index < size() ? QStringLiteral("#%1").arg(at(index).record.info.number)
                                        : QStringLiteral("#%1").arg(index + 1);
}

void RunCollection::relabel(int index) {
    RunEntry& entry = *m_entries[index];
    entry.label = runLegendLabel(entry.record);
    // Two runs of one experiment on one device started in the same minute share a default name (and a user
    // may give two runs one name): the folder's id, unique, tells them apart.
    for (int j = 0; j < m_entries.size(); ++j)
        if (j != index && runLegendLabel(m_entries[j]->record) == entry.label) {
            entry.label += QStringLiteral(" · ") + toQt(entry.record.info.id);
            break;
        }
}

std::vector<wb::RunRecord> RunCollection::records() const {
    std::vector<wb::RunRecord> out;
    out.reserve(static_cast<std::size_t>(m_entries.size()));
    for (const auto& e : m_entries) out.push_back(e->record);
    return out;
}

}  // namespace wbui
