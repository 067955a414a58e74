// Starts runs: GPUs in parallel, CPUs one after another.
#include "training/RunScheduler.h"

namespace wbui {

RunScheduler::RunScheduler(QObject* parent) : QObject(parent) {}

RunScheduler::~RunScheduler() { shutdown(); }

void RunScheduler::submit(RunController* controller) {
    controller->setParent(this);
    m_controllers << controller;
    connect(controller, &RunController::finished, this, [this] {
        startNext();
        Q_EMIT activityChanged();
        if (!anyPending()) Q_EMIT allFinished();
    });
    connect(controller, &RunController::stateChanged, this, &RunScheduler::activityChanged);
    Q_EMIT runSubmitted(controller);
    startNext();
    Q_EMIT activityChanged();
}

bool RunScheduler::cpuBusy() const {
    for (auto* c : m_controllers)
        if (c->isCpu() && c->isActive()) return true;
    return false;
}

void RunScheduler::startNext() {
    for (auto* c : m_controllers) {
        if (c->state() != RunController::State::Queued) continue;
        if (c->isCpu() && m_sequentialCpu && cpuBusy()) continue;
        c->start();
    }
}

void RunScheduler::pauseAll(bool paused) {
    for (auto* c : m_controllers) c->setPaused(paused);
}

void RunScheduler::stopAll() {
    // Queued runs first, so that a finishing CPU run does not start the next one.
    for (auto* c : m_controllers)
        if (c->state() == RunController::State::Queued) c->stop();
    for (auto* c : m_controllers) c->stop();
}

void RunScheduler::shutdown() {
    stopAll();
    for (auto* c : m_controllers) c->waitForFinished();
}

void RunScheduler::removeFinished(const std::function<bool(const RunController*)>& which) {
    for (auto it = m_controllers.begin(); it != m_controllers.end();) {
        if ((*it)->isDone() && (!which || which(*it))) {
            (*it)->deleteLater();  // it may still be delivering its last queued signals
            it = m_controllers.erase(it);
        } else {
            ++it;
        }
    }
}

bool RunScheduler::anyActive() const {
    for (auto* c : m_controllers)
        if (c->isActive()) return true;
    return false;
}

bool RunScheduler::anyPending() const {
    for (auto* c : m_controllers)
        if (!c->isDone()) return true;
    return false;
}

QString RunScheduler::summary() const {
    if (!anyPending()) return QString();
    int running = 0, paused = 0, queued = 0;
    for (RunController* c : m_controllers) {
        running += c->state() == RunController::State::Running;
        paused += c->state() == RunController::State::Paused;
        queued += c->state() == RunController::State::Queued;
    }
    // A paused run is not running: "1 running" under a paused progress bar read as a fault.
    QString text = tr("%1 running").arg(running);
    if (paused > 0) text += tr(" · %1 paused").arg(paused);
    return text + tr(" · %1 queued").arg(queued);
}

bool RunScheduler::allPaused() const {
    bool any = false;
    for (auto* c : m_controllers) {
        if (c->state() == RunController::State::Running) return false;
        any = any || c->state() == RunController::State::Paused;
    }
    return any;
}

}  // namespace wbui
