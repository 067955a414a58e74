// The runs being compared right now: live runs of this session and saved runs the user opened. Charts,
// the comparison table and the exporters read from here; it lives on the GUI thread only.
#pragma once

#include <QColor>
#include <QObject>
#include <QString>
#include <QVector>

#include <memory>
#include <vector>

#include "workbench/domain/RunFolder.h"

namespace wbui {

struct RunEntry {
    QString key;    // the run folder's absolute path: unique and stable
    QString label;  // legend text: the run's name (RunRecord::name), and the host of a foreign run
    QColor color;
    bool live = false;  // trained in this session (metrics still arriving)
    // Started or resumed in this window, and still so once it ends: the Training tab charts these only (it
    // showed old runs ticked for comparison beside this session's, issue #63); Compare shows every run.
    bool trainedHere = false;
    wb::RunRecord record;  // config, info and every metric record so far
};

class RunCollection : public QObject {
    Q_OBJECT
public:
    explicit RunCollection(QObject* parent = nullptr);

    int size() const { return m_entries.size(); }
    const RunEntry& at(int index) const { return *m_entries.at(index); }
    int indexOf(const QString& key) const;
    // How Compare's table and throughput bars name the run at index: "#12" by the run's own number when every
    // run here has one and no two share it (the name the lists give it then says the same), else "#3" by its
    // place in the table.
    QString comparisonTag(int index) const;
    bool contains(const QString& key) const { return indexOf(key) >= 0; }

    // Adds a run (a colour is assigned if none is set); returns its index, or the existing index.
    int add(RunEntry entry);
    void remove(const QString& key);
    void clear();

    void appendMetrics(const QString& key, const std::vector<wb::MetricRecord>& records);
    void updateInfo(const QString& key, const wb::RunInfo& info);
    // Re-reads a finished run's folder (final run.json, complete metrics).
    void reloadFromDisk(const QString& key);
    // A live run as its worker reports it (status, steps done, throughput), until its folder is read back:
    // the Runs list shows what the run does, not what it was when it started.
    void setLiveProgress(const QString& key, wb::RunStatus status, std::int64_t steps,
                         double samplesPerSecond);
    // A new name, notes or tags (already written to the folder): every view renames the run.
    void setAnnotations(const QString& key, const wb::RunAnnotations& annotations);

    std::vector<wb::RunRecord> records() const;

    // The device alone: "CPU · 2 threads · fp32".
    static QString deviceLabelFor(const wb::RunRecord& record);

Q_SIGNALS:
    void runAdded(const QString& key);
    void runRemoved(const QString& key);
    void metricsAppended(const QString& key);
    void runUpdated(const QString& key);
    // setLiveProgress: only the status, steps and throughput changed (the charts need not rebuild).
    void liveProgressChanged(const QString& key);
    void cleared();

private:
    void relabel(int index);

    QVector<std::shared_ptr<RunEntry>> m_entries;
    int m_colorsUsed = 0;
};

}  // namespace wbui
