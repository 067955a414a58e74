// runCli: the CLI in a forked copy of this process where that runs it as the program would, else the program
// itself through /bin/sh (CliRunner.h says when).
#include "CliRunner.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "CliMain.h"

namespace wbtest {
namespace {

using Words = std::vector<std::string>;
using Assignments = std::vector<std::pair<std::string, std::string>>;

// The words of a command line as /bin/sh splits and unquotes them, or nothing when it holds what only a
// shell does (a redirection, a pipe, a command substitution, an unset variable).
std::optional<Words> shellWords(const std::string& line) {
    wordexp_t w;
    if (wordexp(line.c_str(), &w, WRDE_NOCMD | WRDE_UNDEF) != 0) return std::nullopt;
    Words words(w.we_wordv, w.we_wordv + w.we_wordc);
    wordfree(&w);
    return words;
}

// Variables the CLI reads whenever it needs them. Any other is read as a process starts (the dynamic
// loader's, LibTorch's, OpenMP's, OpenBLAS's, the sanitizers'), or once and kept (the kernel switches, the
// distributed environment): a forked child, whose libraries started in this process, would not see it.
bool readWhenNeeded(const std::string& name) {
    static const std::set<std::string> names = {"WORKBENCH_FAILPOINTS",
                                                "WORKBENCH_FAILPOINTS_TRACE",
                                                "WORKBENCH_MEMORY_LIMIT_BYTES",
                                                "LSTM_WORKBENCH_BASELINE_CACHE",
                                                "LSTM_WORKBENCH_DATA",
                                                "LSTM_WORKBENCH_CORPUS",
                                                "LSTM_WORKBENCH_PREPARER",
                                                "HOME",
                                                "PATH"};
    return names.count(name) > 0;
}

std::optional<Assignments> assignments(const std::string& env) {
    const auto words = shellWords(env);
    if (!words) return std::nullopt;
    Assignments out;
    for (const auto& word : *words) {
        const auto eq = word.find('=');
        if (eq == std::string::npos || eq == 0) return std::nullopt;
        out.emplace_back(word.substr(0, eq), word.substr(eq + 1));
    }
    return out;
}

bool onlyThread() {
    std::error_code ec;
    auto tasks = std::filesystem::directory_iterator("/proc/self/task", ec);
    return !ec && std::distance(tasks, std::filesystem::directory_iterator()) == 1;
}

bool forkWanted() {
    const char* mode = std::getenv("WORKBENCH_E2E_CLI");
    return !(mode && std::string(mode) == "exec");
}

int exitCode(int status) {
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

CliResult finished(int code, std::string out, const std::string& errFile) {
    CliResult r;
    r.code = code;
    r.killed = code == 128 + SIGKILL;
    r.out = std::move(out);
    r.err = readText(errFile);
    return r;
}

CliResult runExec(const std::string& args, const std::string& env) {
    TempDir tmp;
    const std::string command =
        env + "exec " + std::string(cliProgram()) + " " + args + " 2>" + shellQuote(tmp.file("stderr"));
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return {};
    std::string out;
    char buf[1 << 16];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    return finished(exitCode(pclose(pipe)), std::move(out), tmp.file("stderr"));
}

// The child: the environment and the standard streams a shell would give the program, then the program.
[[noreturn]] void runChild(const Words& words, const Assignments& env, const std::string& outFile,
                           const std::string& errFile) {
    for (const auto& [name, value] : env) ::setenv(name.c_str(), value.c_str(), 1);
    const int out = ::open(outFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(errFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || ::dup2(out, STDOUT_FILENO) < 0 || ::dup2(err, STDERR_FILENO) < 0) ::_exit(127);
    ::close(out);
    ::close(err);
    std::vector<std::string> argvText{cliProgram()};
    argvText.insert(argvText.end(), words.begin(), words.end());
    std::vector<char*> argv;
    for (auto& word : argvText) argv.push_back(word.data());
    argv.push_back(nullptr);
    // exit(), not _exit(): the program's own end (streams flushed, static destructors, the leak check of a
    // sanitizer build) as when main returns.
    std::exit(cliMain(static_cast<int>(argvText.size()), argv.data()));
}

CliResult runForked(const Words& words, const Assignments& env) {
    TempDir tmp;
    const std::string outFile = tmp.file("stdout"), errFile = tmp.file("stderr");
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);  // what this process has buffered must not be written again by the child
    const pid_t pid = ::fork();
    if (pid < 0) return {};
    if (pid == 0) runChild(words, env, outFile, errFile);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return {};
    return finished(exitCode(status), readText(outFile), errFile);
}

}  // namespace

bool runsForked(const std::string& args, const std::string& env) {
    if (!forkWanted() || !onlyThread() || !shellWords(args)) return false;
    const auto vars = assignments(env);
    if (!vars) return false;
    for (const auto& [name, value] : *vars)
        if (!readWhenNeeded(name)) return false;
    return true;
}

CliResult runCli(const std::string& args, const std::string& env) {
    if (!runsForked(args, env)) return runExec(args, env);
    return runForked(*shellWords(args), *assignments(env));
}

}  // namespace wbtest
