// A sweep in a child process, followed through its folder.
#include "sweep/SweepRunner.h"

#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QTemporaryDir>

#include "common/CliProcess.h"
#include "workbench/charts/QtConversions.h"

namespace wbui {

SweepRunner::SweepRunner(QObject* parent)
    : QObject(parent),
      m_cli(new CliProcess(this)),
      m_planner(new CliProcess(this)),
      m_watcher(new QFileSystemWatcher(this)) {
    connect(m_cli, &CliProcess::finished, this, &SweepRunner::onFinished);
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, [this] { reload(); });
    connect(m_planner, &CliProcess::finished, this, [this](int code, bool) {
        const auto out = QJsonDocument::fromJson(m_planner->output()).object();
        if (code == CliProcess::Success && out.contains(QStringLiteral("estimated_seconds")))
            Q_EMIT estimated(out.value(QStringLiteral("estimated_seconds")).toDouble());
        else
            Q_EMIT estimateFailed(m_planner->firstError().isEmpty()
                                      ? tr("the planner exited with code %1").arg(code)
                                      : m_planner->firstError());
    });
}

SweepRunner::~SweepRunner() = default;  // the CliProcesses stop their children

void SweepRunner::setCliProgram(const QString& program) {
    m_cli->setProgram(program);
    m_planner->setProgram(program);
}

QString SweepRunner::writeConfig(const wb::ExperimentConfig& config, const QString& name, QString* error) {
    if (!m_scratch || !m_scratch->isValid()) m_scratch = std::make_unique<QTemporaryDir>();
    const QString file = m_scratch->filePath(name);
    QSaveFile f(file);
    if (!f.open(QIODevice::WriteOnly) || f.write(QByteArray::fromStdString(config.toJson())) < 0 ||
        !f.commit()) {
        *error = tr("Cannot write the sweep's base config to %1").arg(file);
        return {};
    }
    return file;
}

bool SweepRunner::start(const wb::ExperimentConfig& base, const std::vector<wb::SweepAxis>& grid, int repeats,
                        const QString& dir, QString* error) {
    if (isRunning()) {
        *error = tr("A sweep is running");
        return false;
    }
    m_scratch.reset();  // a fresh folder: the config of the sweep before may still be read by nobody
    const QString config = writeConfig(base, QStringLiteral("base-config.json"), error);
    if (config.isEmpty()) return false;
    // Made here so that it can be watched from the first cell on; the CLI takes an empty folder.
    const bool made = !QFileInfo::exists(dir);
    if (made && !QDir().mkpath(dir)) {
        *error = tr("Cannot create the sweep folder %1").arg(dir);
        return false;
    }
    m_dir = QFileInfo(dir).absoluteFilePath();
    m_sweep.reset();
    Q_EMIT sweepChanged();
    const bool launched =
        launch(sweepArguments({toQt(base.data.corpus), m_dir, config, repeats, grid, false}), error);
    if (!launched && made) QDir(m_dir).removeRecursively();
    return launched;
}

bool SweepRunner::resume(QString* error) {
    if (isRunning() || m_dir.isEmpty()) {
        *error = isRunning() ? tr("A sweep is running") : tr("No sweep to resume");
        return false;
    }
    return launch({QStringLiteral("sweep"), m_dir}, error);
}

bool SweepRunner::launch(const QStringList& arguments, QString* error) {
    m_cancelRequested = false;
    m_doneAtLaunch = doneCells();
    if (!m_cli->start(arguments, false, error)) return false;
    m_clock.start();
    watch(m_dir);
    setState(State::Running);
    return true;
}

void SweepRunner::watch(const QString& dir) {
    if (!m_watcher->directories().isEmpty()) m_watcher->removePaths(m_watcher->directories());
    m_watcher->addPath(dir);
}

void SweepRunner::pause() {
    if (m_state != State::Running) return;
    m_cli->requestPause();
    setState(State::Pausing);
}

void SweepRunner::keepGoing() {
    if (m_state != State::Pausing) return;
    // Should the cell end before the signal is heard, the sweep stops as paused, and says so (Stopped).
    m_cli->withdrawPause();
    setState(State::Running);
}

void SweepRunner::cancel() {
    if (!isRunning()) return;
    m_cancelRequested = true;
    m_cli->interrupt();
}

void SweepRunner::onFinished(int exitCode, bool crashed) {
    m_watcher->removePaths(m_watcher->directories());
    reload();
    QString error = m_cli->firstError();
    // SIGINT (SIGUSR1) before the CLI set its handler ends it by the signal: still the cancel (the pause)
    // that was asked for.
    if (crashed && !m_cancelRequested && m_state != State::Pausing)
        error = tr("the sweep process ended unexpectedly");
    m_cancelRequested = false;
    const bool allDone = m_sweep && doneCells() == int(m_sweep->cells.size());
    setState(allDone ? State::Finished : (m_sweep ? State::Stopped : State::Idle));
    Q_EMIT stopped(error, exitCode == CliProcess::SomeFailed);
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

int SweepRunner::doneCells() const {
    int done = 0;
    if (m_sweep)
        for (const auto& c : m_sweep->cells) done += c.state == wb::CellState::Done;
    return done;
}

double SweepRunner::secondsLeft() const {
    if (!m_sweep || !isRunning()) return -1;
    int done = 0, failed = 0;
    for (const auto& c : m_sweep->cells) {
        done += c.state == wb::CellState::Done;
        failed += c.state == wb::CellState::Failed;
    }
    const int total = int(m_sweep->cells.size());
    if (done <= m_doneAtLaunch || done >= total) return -1;
    // Wall time per finished cell so far, times the cells left.
    const double perCell = double(m_clock.elapsed()) / 1000.0 / double(done - m_doneAtLaunch);
    return perCell * double(total - done - failed);
}

void SweepRunner::estimate(const wb::ExperimentConfig& base, const std::vector<wb::SweepAxis>& grid,
                           int repeats) {
    QString error;
    const QString config = writeConfig(base, QStringLiteral("estimate-config.json"), &error);
    const SweepCall call{toQt(base.data.corpus),
                         m_scratch ? m_scratch->filePath(QStringLiteral("never-created")) : QString(),
                         config,
                         repeats,
                         grid,
                         true};
    if (config.isEmpty() || !m_planner->start(sweepArguments(call), true, &error))
        Q_EMIT estimateFailed(error);
}

bool SweepRunner::isEstimating() const { return m_planner->isRunning(); }

}  // namespace wbui
