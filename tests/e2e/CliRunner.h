// Runs lstm-workbench-cli as a user's shell would, for the e2e suites: stdout captured, stderr from a
// file, the exit code (128 + signal when a signal ended it).
#pragma once

#include <sys/wait.h>

#include <csignal>
#include <cstdio>
#include <string>

#include "support/TestSupport.h"

namespace wbtest {

// Single-quotes a word for /bin/sh.
inline std::string shellQuote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// The lstm-workbench-cli this build made (CliProgram.cpp).
const char* cliProgram();

struct CliResult {
    int code = -1;        // exit code, 128 + signal when killed, -1 when it could not start
    bool killed = false;  // ended by SIGKILL
    std::string out, err;
};

// env: "VAR=value " assignments (already quoted) put before the command.
inline CliResult runCli(const std::string& args, const std::string& env = "") {
    TempDir tmp;
    const std::string command =
        env + "exec " + std::string(cliProgram()) + " " + args + " 2>" + shellQuote(tmp.file("stderr"));
    CliResult r;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return r;
    char buf[1 << 16];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) r.out.append(buf, n);
    const int status = pclose(pipe);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    r.killed = r.code == 128 + SIGKILL;
    r.err = readText(tmp.file("stderr"));
    return r;
}

}  // namespace wbtest
