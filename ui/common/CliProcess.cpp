// The CLI as a child process.
#include "common/CliProcess.h"

#include <QFileInfo>
#include <QProcess>

#include <csignal>

#include "workbench/Distributed.h"
#include "workbench/Errors.h"
#include "workbench/charts/QtConversions.h"

namespace wbui {

QStringList sweepArguments(const SweepCall& call) {
    QStringList args{QStringLiteral("sweep"),     call.corpus,
                     QStringLiteral("--out"),     call.out,
                     QStringLiteral("--config"),  call.configFile,
                     QStringLiteral("--repeats"), QString::number(call.repeats)};
    for (const auto& a : call.grid) {
        QStringList values;
        for (const auto& v : a.values) values << toQt(v);
        args << QStringLiteral("--grid") << toQt(a.field) + QLatin1Char('=') + values.join(QLatin1Char(','));
    }
    if (call.planOnly) args << QStringLiteral("--plan") << QStringLiteral("--json");
    return args;
}

CliProcess::CliProcess(QObject* parent) : QObject(parent), m_program(toQt(wb::defaultWorkerExecutable())) {}

CliProcess::~CliProcess() {
    if (!isRunning()) return;
    m_process->disconnect(this);
    interrupt();
    if (!m_process->waitForFinished(10000)) m_process->kill();
    m_process->waitForFinished(2000);
}

bool CliProcess::start(const QStringList& arguments, bool captureOutput, QString* error) {
    if (!QFileInfo(m_program).isExecutable()) {
        *error = tr("%1 is not an executable program: this runs in lstm-workbench-cli").arg(m_program);
        return false;
    }
    if (isRunning()) {
        *error = tr("lstm-workbench-cli is busy");
        return false;
    }
    delete m_process;
    m_process = new QProcess(this);
    m_stdout.clear();
    m_stderr.clear();
    if (!captureOutput) m_process->setStandardOutputFile(QProcess::nullDevice());
    connect(m_process, &QProcess::readyReadStandardOutput, this,
            [this] { m_stdout += m_process->readAllStandardOutput(); });
    connect(m_process, &QProcess::readyReadStandardError, this, [this] {
        m_stderr += m_process->readAllStandardError();
        if (m_stderr.size() > 65536) m_stderr = m_stderr.right(65536);
    });
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        m_stdout += m_process->readAllStandardOutput();
        m_stderr += m_process->readAllStandardError();
        Q_EMIT finished(code, status != QProcess::NormalExit);
    });
    m_process->start(m_program, arguments);
    if (!m_process->waitForStarted(10000)) {
        *error = tr("Cannot start %1: %2").arg(m_program, m_process->errorString());
        return false;
    }
    return true;
}

bool CliProcess::isRunning() const { return m_process && m_process->state() != QProcess::NotRunning; }

void CliProcess::signal(int number) {
    if (isRunning()) ::kill(static_cast<pid_t>(m_process->processId()), number);
}

void CliProcess::interrupt() { signal(SIGINT); }
void CliProcess::requestPause() { signal(SIGUSR1); }
void CliProcess::withdrawPause() { signal(SIGUSR2); }

void CliProcess::kill() {
    if (!isRunning()) return;
    m_process->disconnect(this);
    m_process->kill();
    m_process->waitForFinished(2000);
}

QString CliProcess::firstError() const {
    const QString prefix = QString::fromLatin1(wb::kCliErrorPrefix);
    for (const auto& line : QString::fromUtf8(m_stderr).split(QLatin1Char('\n')))
        if (line.startsWith(prefix)) return line.mid(prefix.size()).trimmed();
    return {};
}

}  // namespace wbui
