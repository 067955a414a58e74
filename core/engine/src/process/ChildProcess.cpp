// spawnChild and friends (see ChildProcess.h).
#include "process/ChildProcess.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <set>

#include "workbench/domain/Errors.h"

extern char** environ;

namespace wb {

namespace {

std::string nameOf(const std::string& entry) { return entry.substr(0, entry.find('=')); }

std::vector<std::string> environmentOf(const ChildSpec& spec) {
    if (!spec.env.empty()) return spec.env;
    std::set<std::string> replaced;
    for (const auto& e : spec.extraEnv) replaced.insert(nameOf(e));
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
        if (!replaced.count(nameOf(*e))) env.emplace_back(*e);
    env.insert(env.end(), spec.extraEnv.begin(), spec.extraEnv.end());
    return env;
}

// In the child, before exec: async-signal-safe calls only.
void redirect(const char* file, int fd) {
    if (!file) return;
    const int opened = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (opened < 0) _exit(127);
    if (dup2(opened, fd) < 0) _exit(127);  // dup2's copy has no O_CLOEXEC
    close(opened);
}

ChildExit exitOf(int status, const rusage& usage) {
    ChildExit e;
    e.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    e.peakRssBytes = static_cast<std::int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
    return e;
}

}  // namespace

pid_t spawnChild(const ChildSpec& spec, const std::string& what) {
    if (spec.argv.empty()) throw TrainingError("cannot start " + what + ": no program");
    std::vector<std::string> args = spec.argv, env = environmentOf(spec);
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    const char* out = spec.stdoutFile.empty() ? nullptr : spec.stdoutFile.c_str();
    const char* err = spec.stderrFile.empty() ? nullptr : spec.stderrFile.c_str();
    const bool ignoresTerm = spec.ignoresTerm;

    sigset_t stops, before;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stops, &before);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(1);  // the parent died before the line above
        for (const int s : {SIGINT, SIGTERM, SIGUSR1, SIGUSR2}) signal(s, SIG_DFL);
        if (ignoresTerm) signal(SIGTERM, SIG_IGN);
        redirect(out, STDOUT_FILENO);
        redirect(err, STDERR_FILENO);
        sigprocmask(SIG_SETMASK, &before, nullptr);
        execve(argv[0], argv.data(), envp.data());
        _exit(127);
    }
    const int forkErrno = errno;
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    if (pid < 0) throw TrainingError("cannot start " + what + ": " + std::strerror(forkErrno));
    return pid;
}

ChildExit waitChild(pid_t pid) {
    int status = 0;
    rusage usage{};
    while (wait4(pid, &status, 0, &usage) < 0) {
        if (errno != EINTR) return {};
    }
    return exitOf(status, usage);
}

bool childEnded(pid_t pid, ChildExit* exit) {
    int status = 0;
    rusage usage{};
    const pid_t done = wait4(pid, &status, WNOHANG, &usage);
    if (done == 0 || (done < 0 && errno == EINTR)) return false;
    *exit = done < 0 ? ChildExit{} : exitOf(status, usage);
    return true;
}

}  // namespace wb
