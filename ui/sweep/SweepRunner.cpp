// A sweep and its estimate on threads of their own, followed through the sweep's folder.
#include "sweep/SweepRunner.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QThread>

#include "workbench/engine/Distributed.h"
#include "workbench/engine/SweepEstimate.h"
#include "workbench/engine/SweepRun.h"
#include "workbench/graphics/HeadlessExport.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

// The thread, what stops its cells, and what it ended with (written by the thread, read once it ended).
struct SweepRunner::Work {
    Work() {
        static quint64 made = 0;
        id = ++made;
    }
    quint64 id;  // a finished thread's event still queued when its work was finished here names another
    std::unique_ptr<wb::CellLauncher> launcher;
    wb::SweepControl control;
    QThread* thread = nullptr;
    QString error;
    bool someFailed = false;
    double seconds = 0;
};

SweepRunner::SweepRunner(QObject* parent)
    : QObject(parent),
      m_program(toQt(wb::defaultWorkerExecutable())),
      m_watcher(new QFileSystemWatcher(this)) {
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, [this] { reload(); });
}

// Stops the work's cells and waits for its thread: 10 s for a cell to checkpoint and end, then it is killed.
void SweepRunner::finish(std::unique_ptr<Work>& work) {
    if (!work) return;
    work->thread->disconnect();
    work->control.stop();
    work->launcher->stop();
    if (!work->thread->wait(QDeadlineTimer(10000))) {
        work->launcher->kill();
        work->thread->wait();
    }
    delete work->thread;
    work.reset();
}

SweepRunner::~SweepRunner() {
    finish(m_run);
    finish(m_estimate);
}

bool SweepRunner::start(const wb::ExperimentConfig& base, const std::vector<wb::SweepAxis>& grid, int repeats,
                        const QString& dir, QString* error) {
    if (isRunning()) {
        *error = tr("A sweep is running");
        return false;
    }
    wb::Sweep sweep;
    try {
        auto config = base;
        config.data.corpus = wb::absoluteCorpus(config.data.corpus);
        std::vector<wb::SweepAxis> axes;
        for (const auto& axis : grid) axes.push_back(wb::checkSweepAxis(axis));
        sweep = wb::Sweep::plan(config, axes, repeats, 0);
        wb::requireFreeSweepFolder(toStd(dir));
    } catch (const std::exception& e) {
        *error = toQt(e.what());
        return false;
    }
    m_dir = QFileInfo(dir).absoluteFilePath();
    m_sweep.reset();
    Q_EMIT sweepChanged();
    return launch(std::move(sweep), error);
}

bool SweepRunner::resume(QString* error) {
    if (isRunning() || m_dir.isEmpty()) {
        *error = isRunning() ? tr("A sweep is running") : tr("No sweep to resume");
        return false;
    }
    try {
        return launch(wb::loadSweep(toStd(m_dir)), error);
    } catch (const std::exception& e) {
        *error = toQt(e.what());
        return false;
    }
}

// A new sweep (no folder yet) or one to resume (its folder has sweep.json).
bool SweepRunner::launch(wb::Sweep sweep, QString* error) {
    auto work = std::make_unique<Work>();
    const std::string dir = toStd(m_dir);
    try {
        work->launcher = m_slurm ? wb::makeSlurmLauncher(toStd(m_program), *m_slurm)
                                 : wb::makeLocalLauncher(toStd(m_program));
        work->launcher->check(sweep);
        if (!wb::isSweepFolder(dir)) wb::createSweepFolder(dir, sweep);
    } catch (const std::exception& e) {
        *error = toQt(e.what());
        return false;
    }
    m_sweep = sweep;
    m_doneAtLaunch = doneCells();
    Work* w = work.get();
    w->thread = QThread::create([w, dir, sweep]() mutable {
        try {
            const auto outcome = wb::runSweepCells(dir, sweep, *w->launcher, w->control);
            w->someFailed = outcome.failed > 0;
        } catch (const std::exception& e) {
            w->error = toQt(e.what());
        }
    });
    connect(w->thread, &QThread::finished, this, [this, id = w->id] {
        if (!m_run || m_run->id != id) return;
        const QString error = m_run->error;
        const bool someFailed = m_run->someFailed;
        m_run->thread->wait();
        delete m_run->thread;
        m_run.reset();
        onFinished(error, someFailed);
    });
    m_run = std::move(work);
    m_clock.start();
    watch(m_dir);
    Q_EMIT sweepChanged();
    setState(State::Running);
    m_run->thread->start();
    return true;
}

void SweepRunner::watch(const QString& dir) {
    if (!m_watcher->directories().isEmpty()) m_watcher->removePaths(m_watcher->directories());
    m_watcher->addPath(dir);
}

void SweepRunner::pause() {
    if (m_state != State::Running) return;
    m_run->control.pause();
    setState(State::Pausing);
}

void SweepRunner::keepGoing() {
    if (m_state != State::Pausing) return;
    // Should the cell end before this, the sweep stops as paused, and says so (Stopped).
    m_run->control.keepGoing();
    setState(State::Running);
}

void SweepRunner::cancel() {
    if (isRunning()) m_run->control.stop();
}

void SweepRunner::onFinished(const QString& error, bool someFailed) {
    m_watcher->removePaths(m_watcher->directories());
    reload();
    // The plots in the folder, as the CLI's sweep writes them (the Sweep tab draws its own).
    std::string why;
    QString problem = error;
    if (error.isEmpty() && !exportSweepFolderPlots(toStd(m_dir), &why))
        problem = tr("the plots were not written: %1").arg(toQt(why));
    const bool allDone = m_sweep && doneCells() == int(m_sweep->cells.size());
    setState(allDone ? State::Finished : (m_sweep ? State::Stopped : State::Idle));
    Q_EMIT stopped(problem, someFailed);
}

void SweepRunner::setState(State state) {
    m_state = state;
    Q_EMIT stateChanged(state);
}

bool SweepRunner::open(const QString& dir, QString* error) {
    if (isRunning()) {
        *error = tr("A sweep is running: pause or cancel it first");
        return false;
    }
    if (!wb::isSweepFolder(toStd(dir))) {
        *error = tr("%1: not a sweep folder (no sweep.json)").arg(dir);
        return false;
    }
    try {
        m_sweep = wb::loadSweep(toStd(dir));
    } catch (const std::exception& e) {
        *error = toQt(e.what());
        return false;
    }
    m_dir = QFileInfo(dir).absoluteFilePath();
    Q_EMIT sweepChanged();
    // A cell left "running" by a sweep that was killed is waiting for Resume.
    setState(doneCells() == int(m_sweep->cells.size()) ? State::Finished : State::Stopped);
    return true;
}

void SweepRunner::reload() {
    if (m_dir.isEmpty() || !wb::isSweepFolder(toStd(m_dir))) return;
    try {
        m_sweep = wb::loadSweep(toStd(m_dir));
    } catch (const std::exception&) {
        return;  // written atomically, so only a foreign file gets here; the next change tries again
    }
    Q_EMIT sweepChanged();
}

int SweepRunner::doneCells() const { return m_sweep ? m_sweep->count(wb::CellState::Done) : 0; }

double SweepRunner::secondsLeft() const {
    if (!m_sweep || !isRunning()) return -1;
    return wb::secondsLeft(*m_sweep, m_doneAtLaunch, double(m_clock.elapsed()) / 1000.0);
}

void SweepRunner::estimate(const wb::ExperimentConfig& base, const std::vector<wb::SweepAxis>& grid,
                           int repeats) {
    finish(m_estimate);
    auto work = std::make_unique<Work>();
    wb::Sweep sweep;
    try {
        std::vector<wb::SweepAxis> axes;
        for (const auto& axis : grid) axes.push_back(wb::checkSweepAxis(axis));
        sweep = wb::Sweep::plan(base, axes, repeats, 0);
        work->launcher = wb::makeLocalLauncher(toStd(m_program));
    } catch (const std::exception& e) {
        Q_EMIT estimateFailed(toQt(e.what()));
        return;
    }
    Work* w = work.get();
    w->thread = QThread::create([w, sweep] {
        try {
            w->seconds = wb::estimateSweep(sweep, *w->launcher).total;
        } catch (const std::exception& e) {
            w->error = toQt(e.what());
        }
    });
    connect(w->thread, &QThread::finished, this, [this, id = w->id] {
        if (!m_estimate || m_estimate->id != id) return;
        const QString error = m_estimate->error;
        const double seconds = m_estimate->seconds;
        m_estimate->thread->wait();
        delete m_estimate->thread;
        m_estimate.reset();
        if (error.isEmpty())
            Q_EMIT estimated(seconds);
        else
            Q_EMIT estimateFailed(error);
    });
    m_estimate = std::move(work);
    m_estimate->thread->start();
}

bool SweepRunner::isEstimating() const { return m_estimate != nullptr; }

}  // namespace wbui
