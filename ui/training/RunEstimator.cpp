// The planner processes of an estimate, one per run.
#include "training/RunEstimator.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSaveFile>
#include <QTemporaryDir>

#include "common/QtConversions.h"

namespace wbui {

RunEstimator::RunEstimator(QString cli, QObject* parent) : QObject(parent), m_cli(std::move(cli)) {}

RunEstimator::~RunEstimator() { cancel(); }

bool RunEstimator::busy() const { return m_process && m_process->state() != QProcess::NotRunning; }

void RunEstimator::cancel() {
    if (!m_process) return;
    m_process->disconnect(this);
    if (m_process->state() != QProcess::NotRunning) {
        m_process->kill();
        m_process->waitForFinished(2000);
    }
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
        emit failed(m_runs.empty() ? tr("no device is ticked") : tr("no temporary folder"));
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
        emit failed(tr("cannot write %1").arg(configFile));
        return;
    }
    // A grid of one cell: the seed the config has already (the planner wants an axis).
    const QStringList args{QStringLiteral("sweep"),    toQt(config.data.corpus),
                           QStringLiteral("--out"),    m_scratch->filePath(QStringLiteral("never-created")),
                           QStringLiteral("--config"), configFile,
                           QStringLiteral("--grid"),   QStringLiteral("seed=%1").arg(config.train.seed),
                           QStringLiteral("--plan"),   QStringLiteral("--json")};
    m_process = new QProcess(this);
    connect(m_process, &QProcess::finished, this, [this](int code) { onPlannerFinished(code); });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart) return;
        const QString why = tr("cannot start %1: %2").arg(m_cli, m_process->errorString());
        cancel();
        emit failed(why);
    });
    m_process->start(m_cli, args);
}

void RunEstimator::onPlannerFinished(int code) {
    const QJsonObject out = QJsonDocument::fromJson(m_process->readAllStandardOutput()).object();
    const QString errors = QString::fromUtf8(m_process->readAllStandardError());
    m_process->deleteLater();
    m_process = nullptr;
    if (code != 0 || !out.contains(QStringLiteral("estimated_seconds"))) {
        // The CLI's one line, without its program name.
        QString line = errors.section(QLatin1Char('\n'), 0, 0).trimmed();
        line.remove(QStringLiteral("lstm-workbench-cli: error: "));
        emit failed(line.isEmpty() ? tr("the planner exited with code %1").arg(code) : line);
        return;
    }
    m_seconds += out.value(QStringLiteral("estimated_seconds")).toDouble();
    if (++m_next < m_runs.size()) {
        startNext();
        return;
    }
    emit finished(m_seconds);
}

}  // namespace wbui
