#include "corpus/CorpusPreparer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>

#include <csignal>

#include "workbench/graphics/QtConversions.h"

namespace wbui {

CorpusPreparer::CorpusPreparer(QObject* parent) : QObject(parent), m_preparer(wb::findPreparer()) {}

CorpusPreparer::~CorpusPreparer() {
    // A preparation still running when the window closes is stopped the way Cancel stops it, so that it
    // leaves nothing half-built; the process object is parented to this and goes with it.
    if (m_listProcess) {
        m_listProcess->disconnect(this);
        m_listProcess->kill();  // a listing has nothing to clean up
        m_listProcess->waitForFinished(1000);
    }
    if (m_prepareProcess) {
        m_prepareProcess->disconnect(this);
        ::kill(static_cast<pid_t>(m_prepareProcess->processId()), SIGINT);
        if (!m_prepareProcess->waitForFinished(10000)) m_prepareProcess->kill();
        m_prepareProcess->waitForFinished(1000);
    }
}

QString CorpusPreparer::script() const { return m_preparer ? toQt(m_preparer->script) : QString(); }

QProcess* CorpusPreparer::start(const QStringList& args) {
    std::vector<std::string> stdArgs;
    for (const QString& a : args) stdArgs.push_back(toStd(a));
    const auto argv = wb::preparerArgv(*m_preparer, stdArgs);
    auto* process = new QProcess(this);
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(QString::fromLatin1(wb::kPreparerProgVariable), QStringLiteral("prepare"));
    env.insert(QStringLiteral("PYTHONUNBUFFERED"), QStringLiteral("1"));
    process->setProcessEnvironment(env);
    QStringList qargs;
    for (std::size_t i = 1; i < argv.size(); ++i) qargs << toQt(argv[i]);
    process->start(toQt(argv[0]), qargs);
    return process;
}

void CorpusPreparer::requestList() {
    if (!m_preparer || m_listProcess) return;
    m_listProcess = start({QStringLiteral("--list"), QStringLiteral("--json")});
    connect(m_listProcess, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        QProcess* p = std::exchange(m_listProcess, nullptr);
        p->deleteLater();
        if (status != QProcess::NormalExit || exitCode != 0) return;
        const auto doc = QJsonDocument::fromJson(p->readAllStandardOutput());
        QList<ReadyCorpus> corpora;
        for (const auto& value : doc.object().value(QStringLiteral("corpora")).toArray()) {
            const auto o = value.toObject();
            ReadyCorpus c;
            c.name = o.value(QStringLiteral("name")).toString();
            c.description = o.value(QStringLiteral("description")).toString();
            c.format = o.value(QStringLiteral("format")).toString();
            c.source = o.value(QStringLiteral("source_package")).toString();
            c.prepared = o.value(QStringLiteral("prepared")).toBool();
            c.documents = o.value(QStringLiteral("documents")).toInteger();
            if (!c.name.isEmpty()) corpora << c;
        }
        if (!corpora.isEmpty()) Q_EMIT listed(corpora);
    });
    connect(m_listProcess, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart && m_listProcess)
            std::exchange(m_listProcess, nullptr)->deleteLater();
    });
}

void CorpusPreparer::prepare(const QString& name) {
    if (m_prepareProcess) return;
    if (!m_preparer) {
        Q_EMIT finished(name, Outcome::Failed,
                        tr("The corpus preparer is not installed (share/lstm-workbench/prepare.py beside the "
                           "program's bin folder). Reinstall the lstm-workbench package."));
        return;
    }
    m_preparing = name;
    m_cancelled = false;
    m_pending.clear();
    m_prepareProcess = start({QStringLiteral("--progress"), QStringLiteral("--"), name});
    connect(m_prepareProcess, &QProcess::readyReadStandardOutput, this, &CorpusPreparer::readProgress);
    connect(m_prepareProcess, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        onPrepareFinished(status == QProcess::NormalExit ? exitCode : -1);
    });
    connect(m_prepareProcess, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart || !m_prepareProcess) return;
        const QString program = m_prepareProcess->program();
        std::exchange(m_prepareProcess, nullptr)->deleteLater();
        Q_EMIT finished(std::exchange(m_preparing, QString()), Outcome::Failed,
                        tr("Could not start %1 to run the corpus preparer: install python3.").arg(program));
    });
    Q_EMIT progress(tr("starting"), -1, -1);
}

void CorpusPreparer::cancel() {
    if (!m_prepareProcess) return;
    m_cancelled = true;
    // SIGINT, as Ctrl+C in a terminal: the script stops its download and removes the half-built corpus.
    ::kill(static_cast<pid_t>(m_prepareProcess->processId()), SIGINT);
}

void CorpusPreparer::readProgress() {
    if (!m_prepareProcess) return;
    m_pending += m_prepareProcess->readAllStandardOutput();
    for (qsizetype nl; (nl = m_pending.indexOf('\n')) >= 0;) {
        const QByteArray line = m_pending.left(nl);
        m_pending.remove(0, nl + 1);
        const auto o = QJsonDocument::fromJson(line).object();
        if (!o.contains(QStringLiteral("stage"))) continue;
        const auto number = [&](const char* key) {
            const auto v = o.value(QLatin1String(key));
            return v.isDouble() ? v.toInteger() : qint64(-1);
        };
        Q_EMIT progress(o.value(QStringLiteral("stage")).toString(), number("done"), number("total"));
    }
}

void CorpusPreparer::onPrepareFinished(int exitCode) {
    QProcess* p = std::exchange(m_prepareProcess, nullptr);
    readProgress();
    p->deleteLater();
    const QString name = std::exchange(m_preparing, QString());
    // The script's last stderr line is its one-line error, "prepare: error: …".
    const QStringList lines = QString::fromUtf8(p->readAllStandardError()).split(u'\n', Qt::SkipEmptyParts);
    QString detail = lines.isEmpty() ? QString() : lines.last().trimmed();
    detail.remove(QRegularExpression(QStringLiteral("^prepare: (error: )?")));
    if (exitCode == 0) {
        Q_EMIT finished(name, Outcome::Prepared, QString());
    } else if (m_cancelled) {
        Q_EMIT finished(name, Outcome::Cancelled,
                        tr("Preparing %1 was cancelled; nothing was left behind.").arg(name));
    } else if (exitCode == 3) {
        Q_EMIT finished(
            name, Outcome::RegistryUnreachable,
            tr("The package registry could not be reached, so %1 was not prepared. Check the network "
               "connection (or a proxy: npm config get proxy) and press Prepare again.\n\n%2")
                .arg(name, detail));
    } else {
        Q_EMIT finished(name, Outcome::Failed,
                        tr("%1 could not be prepared: %2")
                            .arg(name, detail.isEmpty() ? tr("exit code %1").arg(exitCode) : detail));
    }
}

}  // namespace wbui
