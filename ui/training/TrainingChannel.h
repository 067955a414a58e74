// What a training worker and the GUI share: stop/pause requests going in, metric records, progress and log
// lines coming out. Plain C++ under a mutex (PlotJuggler's pattern): the core's callbacks, on the worker
// thread, only append here; the GUI thread drains it when told that data is waiting.
#pragma once

#include <QString>
#include <QStringList>

#include <mutex>
#include <optional>
#include <vector>

#include "workbench/domain/Metrics.h"
#include "workbench/engine/Training.h"

namespace wbui {

class TrainingChannel {
public:
    struct Pending {
        std::vector<wb::MetricRecord> records;
        std::optional<wb::TrainingProgress> progress;  // the latest only
        QStringList log;
    };

    // Worker side. push*() return true when the GUI should be signalled (nothing was waiting before), so
    // a burst of callbacks costs one queued signal.
    bool pushRecords(const std::vector<wb::MetricRecord>& records);
    bool pushProgress(const wb::TrainingProgress& progress);
    bool pushLog(const QString& line);

    // GUI side.
    Pending take();

    // The job is attached while run() executes; requests made before it exists are remembered and applied.
    void attach(wb::TrainingJob* job);
    void detach();
    void requestStop();
    void setPaused(bool paused);
    bool stopRequested() const;
    bool paused() const;

private:
    bool markWaiting();  // under m_mutex

    mutable std::mutex m_mutex;
    Pending m_pending;
    bool m_waiting = false;
    wb::TrainingJob* m_job = nullptr;
    bool m_stop = false;
    bool m_paused = false;
};

}  // namespace wbui
