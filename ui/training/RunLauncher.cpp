// Starting, resuming, pausing and stopping runs, and the run folders' names.
#include "training/RunLauncher.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QSettings>

#include <algorithm>

#include "common/ErrorPresenter.h"
#include "corpus/CorpusPanel.h"
#include "experiment/ExperimentPanel.h"
#include "runs/RunCollection.h"
#include "training/DeviceList.h"
#include "training/FailureAdvice.h"
#include "training/RunScheduler.h"
#include "workbench/domain/DeviceSpec.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Devices.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

namespace {
// The device part of a run folder's name: cpu2t, cpu2px1t, cuda0.
QString deviceTag(const wb::DeviceSpec& device) {
    if (device.isCuda()) return QStringLiteral("cuda%1").arg(device.index);
    if (device.processes > 1) return QStringLiteral("cpu%1px%2t").arg(device.processes).arg(device.threads);
    return QStringLiteral("cpu%1t").arg(device.threads);
}

wb::RunStatus runStatusOf(RunController::State state) {
    switch (state) {
        case RunController::State::Completed:
            return wb::RunStatus::Completed;
        case RunController::State::Stopped:
            return wb::RunStatus::Stopped;
        case RunController::State::Failed:
            return wb::RunStatus::Failed;
        default:
            return wb::RunStatus::Running;
    }
}

wb::ExperimentConfig onDevice(wb::ExperimentConfig config, const DeviceChoice& choice) {
    config.device.spec = choice.device;
    return config;
}

RunEntry newRunEntry(const QString& dir, const wb::ExperimentConfig& config, const DeviceChoice& choice) {
    RunEntry entry;
    entry.key = dir;
    entry.live = true;
    entry.trainedHere = true;
    entry.record.dir = toStd(dir);
    entry.record.config = config;
    entry.record.info.id = config.name;
    entry.record.info.status = wb::RunStatus::Running;
    entry.record.info.device = choice.device.id();
    entry.record.info.deviceName = choice.name;
    entry.record.info.threads = choice.device.threads;
    entry.record.info.worldSize = choice.device.processes;
    entry.record.info.precision = wb::precisionRunWillUse(config);  // "bf16", as the run's title, not "auto"
    // The trainer writes its own start time; this one names the run until then (the same minute).
    entry.record.info.startedAt =
        toStd(QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-ddTHH:mm:ssZ")));
    return entry;
}
}  // namespace

RunLauncher::RunLauncher(const Views& views, ErrorPresenter* errors, QObject* parent)
    : QObject(parent),
      m_views(views),
      m_errors(errors),
      m_runs(new RunCollection(this)),
      m_scheduler(new RunScheduler(this)) {
    if (m_views.experiment)
        connect(m_views.experiment, &ExperimentPanel::configChanged, this,
                [this] { Q_EMIT experimentEdited(false); });
    if (m_views.devices)
        connect(m_views.devices, &DeviceList::selectionChanged, this,
                [this] { Q_EMIT experimentEdited(false); });
    if (m_views.corpus)
        connect(m_views.corpus, &CorpusPanel::corpusLoaded, this, [this] { Q_EMIT experimentEdited(true); });
}

RunLauncher::~RunLauncher() { shutdown(); }

void RunLauncher::setRunsDirectory(const QString& dir) {
    QDir().mkpath(dir);
    const QString canonical = QFileInfo(dir).canonicalFilePath();
    const QString root = canonical.isEmpty() ? QFileInfo(dir).absoluteFilePath() : canonical;
    if (root != m_runsRoot) m_lastReserved = 0;  // the numbers given out were another folder's
    m_runsRoot = root;
}

wb::ExperimentConfig RunLauncher::experimentAsSet() const {
    wb::ExperimentConfig config = m_views.experiment->config();
    config.data.corpus = toStd(m_views.corpus->corpusPath());
    return config;
}

bool RunLauncher::experimentOnCorpus(wb::ExperimentConfig* config, QString* why) const {
    if (m_views.corpus->isLoading()) {
        *why = tr("%1 is still being read: wait for it on the Corpus page (or cancel it there).")
                   .arg(m_views.corpus->loadingName());
        return false;
    }
    if (!m_views.corpus->hasCorpus()) {
        *why =
            tr("Load a corpus first: drop a file or folder on the window, use File → Open Corpus…, or load a "
               "prepared corpus on the Corpus page.");
        return false;
    }
    const QStringList problems = m_views.experiment->problems();
    if (!problems.isEmpty()) {
        *why =
            tr("Fix these settings on the Experiment page:\n• %1").arg(problems.join(QStringLiteral("\n• ")));
        return false;
    }
    *config = experimentAsSet();
    return true;
}

bool RunLauncher::finderExperiment(const QString& finder, wb::ExperimentConfig* config) const {
    if (!m_views.corpus->hasCorpus() || m_views.corpus->isLoading()) {
        m_errors->showError(tr("No corpus"),
                            m_views.corpus->isLoading()
                                ? tr("The %1 trains on the corpus: wait until %2 is read.")
                                      .arg(finder, m_views.corpus->loadingName())
                                : tr("The %1 trains on the corpus: load one first.").arg(finder));
        return false;
    }
    *config = experimentAsSet();
    const auto choices = m_views.devices->checkedChoices();
    if (!choices.empty()) {  // a finder runs in this process, whatever processes the device has
        wb::DeviceSpec device = choices.back().device;
        device.processes = config->device.spec.processes;
        config->device.spec = device;
    }
    return true;
}

bool RunLauncher::plannedRuns(std::vector<wb::ExperimentConfig>* runs, QString* why) const {
    wb::ExperimentConfig config;
    if (!experimentOnCorpus(&config, why)) return false;
    runs->clear();
    for (const auto& choice : m_views.devices->checkedChoices()) runs->push_back(onDevice(config, choice));
    if (runs->empty()) *why = tr("Tick at least one device in the Devices list.");
    return !runs->empty();
}

namespace {
const QString kFittedPlanKey = QStringLiteral("experiment/fittedPlan");
}  // namespace

void RunLauncher::applyFittedPlan(const wb::ExperimentConfig& fitted, const wb::RunPlan& plan) {
    QSettings().setValue(kFittedPlanKey,
                         QVariantMap{{QStringLiteral("config"), toQt(fitted.toJson())},
                                     {QStringLiteral("budget"), plan.budgetSeconds},
                                     {QStringLiteral("steps"), qint64(plan.steps)},
                                     {QStringLiteral("asked"), qint64(plan.stepsAsked)},
                                     {QStringLiteral("estimate"), plan.estimatedSeconds},
                                     {QStringLiteral("usPerSample"), plan.calibrationUsPerSample}});
    m_views.experiment->setRunLength(fitted.train.maxSteps, fitted.train.lrScheduleSteps);
}

wb::RunPlan RunLauncher::fittedPlanFor(const wb::ExperimentConfig& planned) const {
    const QVariantMap kept = QSettings().value(kFittedPlanKey).toMap();
    if (kept.value(QStringLiteral("config")).toString() != toQt(planned.toJson())) return {};
    wb::RunPlan plan;
    plan.budgetSeconds = kept.value(QStringLiteral("budget")).toDouble();
    plan.steps = kept.value(QStringLiteral("steps")).toLongLong();
    plan.stepsAsked = kept.value(QStringLiteral("asked")).toLongLong();
    plan.estimatedSeconds = kept.value(QStringLiteral("estimate")).toDouble();
    plan.calibrationUsPerSample = kept.value(QStringLiteral("usPerSample")).toDouble();
    return plan;
}

bool RunLauncher::startRuns() {
    wb::ExperimentConfig config;
    QString why;
    if (!experimentOnCorpus(&config, &why)) {
        const bool noCorpus = !m_views.corpus->hasCorpus() || m_views.corpus->isLoading();
        m_errors->showError(noCorpus ? tr("No corpus") : tr("The experiment cannot run"), why);
        if (!noCorpus) Q_EMIT experimentRejected();
        return false;
    }
    const auto choices = m_views.devices->checkedChoices();
    if (choices.empty()) {
        m_errors->showError(tr("No device"),
                            tr("Tick at least one device in the Devices list, then press Run."));
        return false;
    }
    if (!QDir().mkpath(m_runsRoot)) {
        m_errors->showError(tr("Runs folder"),
                            tr("Cannot create the runs folder %1. Check its permissions.").arg(m_runsRoot));
        return false;
    }
    // Earlier runs keep their charts, and their progress rows saying how they ended: the new runs are
    // compared with them (View → Clear finished runs, or unticking them in the Runs list, takes both off).
    releaseFinishedRuns();
    m_scheduler->setSequentialCpu(m_views.devices->sequentialCpu());
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    const auto corpus = m_views.corpus->corpus();
    // Each run numbered now, so that its row and chart keep their name from queued to done (the session
    // keeps the number unless another program's run took it meanwhile); after the runs still queued here.
    std::int64_t number = std::max(wb::nextRunNumber(toStd(m_runsRoot)), m_lastReserved + 1);
    for (const auto& choice : choices) {
        wb::ExperimentConfig c = onDevice(config, choice);
        NewRunPlan newRun{number, fittedPlanFor(c)};
        m_lastReserved = number++;
        const QString dir = uniqueRunDir(stamp + QLatin1Char('-') + deviceTag(choice.device));
        c.name = toStd(QFileInfo(dir).fileName());
        RunEntry entry = newRunEntry(dir, c, choice);
        entry.record.info.number = newRun.reservedNumber;
        const int index = m_runs->add(std::move(entry));
        const QString label = m_runs->at(index).label;
        auto* controller = new RunController(c, dir, label, corpus);
        controller->setNewRun(newRun);
        launch(controller, m_runs->at(index).color);
        Q_EMIT logLine(tr("%1: run folder %2").arg(label, dir));
    }
    Q_EMIT runsStarted();
    Q_EMIT statusMessage(tr("Training on %n device(s)", nullptr, int(choices.size())), 5000);
    return true;
}

void RunLauncher::releaseFinishedRuns() {
    m_scheduler->removeFinished([this](const RunController* c) { return !m_runs->contains(c->runDir()); });
}

bool RunLauncher::resumeRun(const QString& dir, const ResumeRequest& request) {
    for (RunController* c : m_scheduler->controllers())
        if (c->runDir() == dir && !c->isDone()) {
            m_errors->showError(tr("The run is still training"), tr("%1 is training now.").arg(dir));
            return false;
        }
    RunEntry entry;
    entry.key = dir;
    try {
        entry.record = wb::loadRunFolder(toStd(dir));
    } catch (const std::exception& e) {
        m_errors->showError(tr("Could not resume the run"), describeError(e));
        return false;
    }
    // The curves so far come from the folder; the resumed steps are appended as they arrive. It keeps its
    // colour: on every chart it is still the same run.
    if (const int shown = m_runs->indexOf(dir); shown >= 0) entry.color = m_runs->at(shown).color;
    m_runs->remove(dir);  // and its progress row with it: the resumed sitting gets a new one
    m_scheduler->removeFinished([&dir](const RunController* c) { return c->runDir() == dir; });
    entry.live = true;
    entry.trainedHere = true;
    entry.record.info.status = wb::RunStatus::Running;  // the folder says how it ended last time
    const int index = m_runs->add(std::move(entry));
    const RunEntry& added = m_runs->at(index);
    auto* controller = new RunController(added.record.config, dir, added.label, nullptr);
    controller->setResume(request);
    launch(controller, added.color);
    Q_EMIT logLine(tr("%1: resuming from its last checkpoint").arg(added.label));
    Q_EMIT runsStarted();
    return true;
}

bool RunLauncher::adoptSettingsOf(const QString& dir) {
    try {
        wb::ExperimentConfig config = wb::loadRunFolder(toStd(dir)).config;
        // Keep the corpus that is loaded here; the run's path may be on another machine.
        if (m_views.corpus->hasCorpus()) {
            config.data.corpus = toStd(m_views.corpus->corpusPath());
            config.data.format = m_views.corpus->loadedFormat();
        }
        m_views.experiment->setConfig(config);
    } catch (const std::exception& e) {
        m_errors->showError(tr("Could not read the run"), toQt(e.what()));
        return false;
    }
    Q_EMIT settingsAdopted();
    Q_EMIT statusMessage(tr("Experiment settings taken from %1").arg(QFileInfo(dir).fileName()), 5000);
    return true;
}

void RunLauncher::launch(RunController* controller, const QColor& color) {
    const QString dir = controller->runDir();
    const QString label = controller->label();
    connect(
        controller, &RunController::metricsReceived, m_runs,
        [this, dir](const std::vector<wb::MetricRecord>& records) { m_runs->appendMetrics(dir, records); });
    connect(controller, &RunController::logLine, this,
            [this, label](const QString& line) { Q_EMIT logLine(label + QStringLiteral(": ") + line); });
    connect(controller, &RunController::errorOccurred, this, [this, label, dir](const QString& message) {
        Q_EMIT logLine(label + QStringLiteral(": ") + message);
        if (!m_closing)
            m_errors->showError(tr("The run on %1 failed").arg(label),
                                message + QStringLiteral("\n\n") + failureAdvice(message, dir));
    });
    connect(controller, &RunController::finished, this, [this, controller] { onRunFinished(controller); });
    // The Runs list follows the worker: its state and steps as reported, until the folder is read back.
    const auto showLive = [this, controller, dir] {
        if (controller->isDone()) return;
        const auto& p = controller->lastProgress();
        m_runs->setLiveProgress(dir, wb::RunStatus::Running, p.step, p.samplesPerSecond);
    };
    connect(controller, &RunController::progressChanged, this, showLive);
    Q_EMIT runQueued(controller, color);
    m_scheduler->submit(controller);
}

void RunLauncher::onRunFinished(RunController* controller) {
    if (m_closing) return;
    const QString dir = controller->runDir();
    // What the worker said last, then the folder's own record when it reads (a run that failed before
    // writing one keeps this).
    m_runs->setLiveProgress(dir, runStatusOf(controller->state()), controller->lastProgress().step,
                            controller->lastProgress().samplesPerSecond);
    m_runs->reloadFromDisk(dir);
    // Named as its folder now says (the precision "auto" chose, a name given meanwhile).
    const int index = m_runs->indexOf(dir);
    const QString label = index >= 0 ? m_runs->at(index).label : controller->label();
    Q_EMIT statusMessage(tr("%1: %2").arg(label, RunController::stateName(controller->state())), 8000);
    const bool hasModel = controller->state() != RunController::State::Failed &&
                          QFileInfo::exists(dir + QLatin1Char('/') + QLatin1String(wb::runfiles::kModel));
    Q_EMIT runFinished(dir, hasModel);
}

void RunLauncher::clearFinishedRuns() {
    QStringList finished;
    for (int i = 0; i < m_runs->size(); ++i)
        if (!m_runs->at(i).live) finished << m_runs->at(i).key;
    for (const QString& key : finished) m_runs->remove(key);  // they stay in the Runs list, unticked
    releaseFinishedRuns();
    Q_EMIT statusMessage(
        tr("%n finished run(s) left the charts; tick them in the Runs list to bring them back", nullptr,
           int(finished.size())),
        8000);
}

void RunLauncher::pauseAll(bool paused) { m_scheduler->pauseAll(paused); }

void RunLauncher::stopAll() {
    m_scheduler->stopAll();
    Q_EMIT statusMessage(tr("Stopping: each run ends after its current batch and saves its run folder"),
                         5000);
}

void RunLauncher::shutdown() {
    m_closing = true;
    m_scheduler->shutdown();
}

QString RunLauncher::uniqueRunDir(const QString& base) const {
    QString dir = m_runsRoot + QLatin1Char('/') + base;
    for (int n = 2; QFileInfo::exists(dir) || m_runs->contains(dir); ++n)
        dir = m_runsRoot + QLatin1Char('/') + base + QStringLiteral("-%1").arg(n);
    return dir;
}

}  // namespace wbui
