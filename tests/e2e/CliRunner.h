// Runs lstm-workbench-cli as a user's shell would, for the e2e suites: stdout captured, stderr from a
// file, the exit code (128 + signal when a signal ended it).
//
// Each command is a process of its own, in one of two ways. Where it can, runCli forks this test process and
// calls the CLI's cliMain() in the child (app/cli/CliMain.h): a real process, killed, signalled and exiting
// as the program would, without loading LibTorch again (half a second of CPU a command: most of an e2e
// suite's time when each command started the program). It execs the program itself when the command needs a
// fresh process: a variable that is read only as a process starts (LibTorch's, OpenMP's and BLAS's, the
// kernel switches cached on first use), a shell redirection in the arguments, another thread in this process
// (a child of fork() would inherit its locks), or WORKBENCH_E2E_CLI=exec.
#pragma once

#include <algorithm>
#include <string>

#include "support/TestSupport.h"

namespace wbtest {

// Single-quotes a word for /bin/sh.
inline std::string shellQuote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}
// The suites' short name for it (each file says `using wbtest::quote;`).
inline std::string quote(const std::string& s) { return shellQuote(s); }
// How many lines a command's output or error has (an error must be one line).
inline int lineCount(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// The lstm-workbench-cli this build made (CliProgram.cpp).
const char* cliProgram();

struct CliResult {
    int code = -1;        // exit code, 128 + signal when killed, -1 when it could not start
    bool killed = false;  // ended by SIGKILL
    std::string out, err;
};

// args: the command line after the program's name, as /bin/sh reads it (words quoted with shellQuote).
// env: "VAR=value " assignments (already quoted) put before the command.
CliResult runCli(const std::string& args, const std::string& env = "");

// Whether runCli would run this command in a forked copy of this process (else it execs the program).
bool runsForked(const std::string& args, const std::string& env = "");

}  // namespace wbtest
