// The planner processes of an estimate, one per run.
#include "training/RunEstimator.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QTemporaryDir>

#include "common/CliProcess.h"
#include "workbench/charts/QtConversions.h"

namespace wbui {

RunEstimator::RunEstimator(QString cli, QObject* parent) : QObject(parent), m_cli(std::move(cli)) {}

RunEstimator::~RunEstimator() { cancel(); }

bool RunEstimator::busy() const { return m_process && m_process->isRunning(); }

void RunEstimator::cancel() {
    if (!m_process) return;
    m_process->kill();
    m_process->deleteLater();
    m_process = nullptr;
}

void RunEstimator::estimate(const std::vector<wb::ExperimentConfig>& runs) {
    cancel();
    m_runs = runs;
    m_next = 0;
    m_seconds = 0;
    if (!m_scratch) m_scratch = std::make_unique<QTemporaryDir>();
    if (m_runs.empty() || !m_scratch->isValid()) {
        Q_EMIT failed(m_runs.empty() ? tr("no device is ticked") : tr("no temporary folder"));
        return;
    }
    startNext();
}

void RunEstimator::startNext() {
    const wb::ExperimentConfig& config = m_runs[m_next];
    const QString configFile = m_scratch->filePath(QStringLiteral("estimate-%1.json").arg(m_next));
    QSaveFile f(configFile);
    if (!f.open(QIODevice::WriteOnly) || f.write(QByteArray::fromStdString(config.toJson())) < 0 ||
        !f.commit()) {
        Q_EMIT failed(tr("cannot write %1").arg(configFile));
        return;
    }
    // A grid of one cell: the seed the config has already (the planner wants an axis).
    const SweepCall call{toQt(config.data.corpus),
                         m_scratch->filePath(QStringLiteral("never-created")),
                         configFile,
                         1,
                         {{"seed", {std::to_string(config.train.seed)}}},
                         true};
    m_process = new CliProcess(this);
    m_process->setProgram(m_cli);
    connect(m_process, &CliProcess::finished, this, [this](int code) { onPlannerFinished(code); });
    QString why;
    if (!m_process->start(sweepArguments(call), true, &why)) {
        cancel();
        Q_EMIT failed(why);
    }
}

void RunEstimator::onPlannerFinished(int code) {
    const QJsonObject out = QJsonDocument::fromJson(m_process->output()).object();
    const QString error = m_process->firstError();
    m_process->deleteLater();
    m_process = nullptr;
    if (code != CliProcess::Success || !out.contains(QStringLiteral("estimated_seconds"))) {
        Q_EMIT failed(error.isEmpty() ? tr("the planner exited with code %1").arg(code) : error);
        return;
    }
    m_seconds += out.value(QStringLiteral("estimated_seconds")).toDouble();
    if (++m_next < m_runs.size()) {
        startNext();
        return;
    }
    Q_EMIT finished(m_seconds);
}

}  // namespace wbui
