// The mutex-protected hand-over between a training worker and the GUI thread.
#include "training/TrainingChannel.h"

namespace wbui {

bool TrainingChannel::markWaiting() {
    const bool signal = !m_waiting;
    m_waiting = true;
    return signal;
}

bool TrainingChannel::pushRecords(const std::vector<wb::MetricRecord>& records) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_pending.records.insert(m_pending.records.end(), records.begin(), records.end());
    return markWaiting();
}

bool TrainingChannel::pushProgress(const wb::TrainingProgress& progress) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_pending.progress = progress;
    return markWaiting();
}

bool TrainingChannel::pushLog(const QString& line) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_pending.log << line;
    return markWaiting();
}

TrainingChannel::Pending TrainingChannel::take() {
    std::lock_guard<std::mutex> lock(m_mutex);
    Pending out = std::move(m_pending);
    m_pending = Pending{};
    m_waiting = false;
    return out;
}

void TrainingChannel::attach(wb::TrainingJob* job) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_job = job;
    if (m_paused) m_job->setPaused(true);
    if (m_stop) m_job->requestStop();
}

void TrainingChannel::detach() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_job = nullptr;
}

void TrainingChannel::requestStop() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
    if (m_job) {
        m_job->requestStop();
        // A paused job must wake up to notice the stop.
        m_job->setPaused(false);
    }
    m_paused = false;
}

void TrainingChannel::setPaused(bool paused) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_paused = paused;
    if (m_job) m_job->setPaused(paused);
}

bool TrainingChannel::stopRequested() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_stop;
}

bool TrainingChannel::paused() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_paused;
}

}  // namespace wbui
