// The engine's one way to start a program: fork and exec, for the local ranks of a multi-process run
// (DistributedContext) and for a sweep's cells and calibrations (sweep/LocalLauncher). It may be called from
// any thread of a multi-threaded program (the app's sweep thread): everything the child needs is built
// before the fork, and between fork and exec the child makes only async-signal-safe calls.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

struct ChildSpec {
    std::vector<std::string> argv;  // argv[0] is the program's path (not looked up on PATH)
    // The child's whole environment, "NAME=value"; empty: this process's, with `extraEnv` set over it.
    std::vector<std::string> env;
    std::vector<std::string> extraEnv;
    std::string stdoutFile;  // "" keeps this process's; otherwise truncated and written ("/dev/null")
    std::string stderrFile;
    // SIGTERM ignored in the child instead of its default action: for a command that ends the job it runs
    // in (`scontrol requeue`), whose SIGTERM to the job's processes may come before the command has exited.
    bool ignoresTerm = false;
};

// Starts the child and returns its pid; throws TrainingError ("cannot start WHAT: why") when fork fails.
// The child is killed when the thread that started it ends (PR_SET_PDEATHSIG), so a killed sweep or rank
// takes its children with it. SIGINT and SIGTERM are blocked in the calling thread across the fork, and the
// child takes the default actions of SIGINT, SIGTERM, SIGUSR1 and SIGUSR2 back before it unblocks them: a
// stop sent to the new pid before its exec ends it, instead of running the parent's handler in the child
// (SIGTERM is ignored instead where `ignoresTerm` says so).
pid_t spawnChild(const ChildSpec& spec, const std::string& what);

// A word for `sh -c`: single-quoted, a ' inside closed, escaped and reopened.
inline std::string shellQuote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

struct ChildExit {
    int code = -1;  // the exit code; 128 + the signal that ended it
    std::int64_t peakRssBytes = 0;
};
// Waits for the child to end (a signal handler's interruption is waited through).
ChildExit waitChild(pid_t pid);
// The child's end when it has ended, without waiting; false while it runs. An error waiting (no such child)
// counts as an end with code -1.
bool childEnded(pid_t pid, ChildExit* exit);

}  // namespace wb
