// lstm-workbench-cli as a child process of the app: which program, the arguments of the calls the app makes
// (a sweep, a sweep's plan), the signals it understands, its exit codes and its one-line error. The Sweep
// tab's runner and the run estimator both go through it; everything else about the CLI's output is files.
#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QStringList>

#include <vector>

#include "workbench/Sweep.h"

class QProcess;

namespace wbui {

// The arguments of `sweep CORPUS --out DIR --config FILE --repeats N --grid FIELD=V1,V2 …`, with
// `--plan --json` when only the plan and its time estimate are asked for (stdout is then one JSON object
// with "estimated_seconds").
struct SweepCall {
    QString corpus, out, configFile;
    int repeats = 1;
    std::vector<wb::SweepAxis> grid;
    bool planOnly = false;
};
QStringList sweepArguments(const SweepCall& call);

class CliProcess : public QObject {
    Q_OBJECT
public:
    // The CLI's exit codes (app/cli/main.cpp).
    enum ExitCode { Success = 0, SomeFailed = 1, BadInput = 2 };

    explicit CliProcess(QObject* parent = nullptr);
    ~CliProcess() override;  // a CLI still running is stopped (interrupt, then kill)

    // The program (default: the lstm-workbench-cli beside this program).
    void setProgram(const QString& program) { m_program = program; }
    QString program() const { return m_program; }

    // Starts the CLI; stdout is kept when captureOutput (a plan's JSON), discarded otherwise. False with
    // *error set when the program is missing or does not start.
    bool start(const QStringList& arguments, bool captureOutput, QString* error);
    bool isRunning() const;
    // SIGINT: the CLI stops at once and cleans up (a sweep redoes its running cell on resume).
    void interrupt();
    // SIGUSR1: a sweep lets its running cell finish, then stops.
    void requestPause();
    // SIGUSR2: a sweep asked to pause goes on after its running cell after all.
    void withdrawPause();
    // Ends it now without a word (an estimate no longer wanted), waiting up to 2 s.
    void kill();

    QByteArray output() const { return m_stdout; }
    // The CLI's first one-line error, without its "lstm-workbench-cli: error: " prefix; "" when none.
    QString firstError() const;

Q_SIGNALS:
    // crashed: it ended by a signal it did not handle (an interrupt before the CLI set its handler included).
    void finished(int exitCode, bool crashed);

private:
    void signal(int number);

    QString m_program;
    QProcess* m_process = nullptr;
    QByteArray m_stdout, m_stderr;
};

}  // namespace wbui
