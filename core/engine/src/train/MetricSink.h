// Where a run's metric records go: into the run's list (written to metrics.csv by RunFolderWriter) and, in
// batches, to the onMetrics callback (the app's live charts, the CLI).
#pragma once

#include <functional>
#include <vector>

#include "workbench/domain/Metrics.h"

namespace wb {

class MetricSink {
public:
    using Callback = std::function<void(const std::vector<MetricRecord>&)>;
    MetricSink(std::vector<MetricRecord>& records, Callback callback)
        : m_records(records), m_callback(std::move(callback)) {}

    void emit(MetricRecord r) {
        m_records.push_back(r);
        m_pending.push_back(std::move(r));
    }
    void flush() {  // hands the records emitted since the last flush to the callback
        if (!m_pending.empty() && m_callback) m_callback(m_pending);
        m_pending.clear();
    }
    const std::vector<MetricRecord>& records() const { return m_records; }

private:
    std::vector<MetricRecord>& m_records;
    Callback m_callback;
    std::vector<MetricRecord> m_pending;
};

}  // namespace wb
