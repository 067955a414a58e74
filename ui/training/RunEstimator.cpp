// The estimate's thread.
#include "training/RunEstimator.h"

#include <QThread>

#include "workbench/engine/SweepEstimate.h"
#include "workbench/engine/SweepRun.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

RunEstimator::RunEstimator(QString cli, QObject* parent) : QObject(parent), m_cli(std::move(cli)) {}

RunEstimator::~RunEstimator() { cancel(); }

bool RunEstimator::busy() const { return m_thread != nullptr; }

void RunEstimator::cancel() {
    if (!m_thread) return;
    ++m_estimates;
    m_launcher->stop();  // the calibration run checkpoints and ends within a batch
    if (!m_thread->wait(QDeadlineTimer(10000))) {
        m_launcher->kill();
        m_thread->wait();
    }
    delete m_thread;
    m_thread = nullptr;
    m_launcher.reset();
}

void RunEstimator::estimate(const std::vector<wb::ExperimentConfig>& runs) {
    cancel();
    if (runs.empty()) {
        Q_EMIT failed(tr("no device is ticked"));
        return;
    }
    try {
        m_launcher = wb::makeLocalLauncher(toStd(m_cli));
    } catch (const std::exception& e) {
        Q_EMIT failed(toQt(e.what()));
        return;
    }
    m_result = {};
    m_error.clear();
    m_thread = QThread::create([this, runs] {
        try {
            m_result = wb::estimateRuns(runs, *m_launcher);
        } catch (const std::exception& e) {
            m_error = toQt(e.what());
        }
    });
    // An end still queued when its estimate was cancelled names an older estimate: it is dropped.
    connect(m_thread, &QThread::finished, this, [this, estimate = ++m_estimates] {
        if (estimate != m_estimates || !m_thread) return;
        m_thread->wait();
        delete m_thread;
        m_thread = nullptr;
        m_launcher.reset();
        if (m_error.isEmpty())
            Q_EMIT finished(m_result.total);
        else
            Q_EMIT failed(m_error);
    });
    m_thread->start();
}

}  // namespace wbui
