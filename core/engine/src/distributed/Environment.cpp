// The torchrun variables (workbench/Distributed.h) and the program a local launch starts for its workers.
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "distributed/JobSecret.h"
#include "workbench/Config.h"
#include "workbench/Distributed.h"
#include "workbench/Errors.h"

namespace wb {

namespace {

const char* variable(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}

long long integerVariable(const char* name, long long lo, long long hi, const std::string& expected) {
    const char* v = variable(name);
    if (!v)
        throw InputError("the environment variable " + std::string(name) + " is not set (expected " +
                         expected + ")");
    char* end = nullptr;
    errno = 0;
    const long long n = std::strtoll(v, &end, 10);
    if (errno != 0 || *end != '\0' || n < lo || n > hi)
        throw InputError("the environment variable " + std::string(name) + " is '" + v + "' (expected " +
                         expected + ")");
    return n;
}

}  // namespace

std::optional<DistributedSpec> distributedSpecFromEnvironment() {
    if (!variable("RANK") && !variable("WORLD_SIZE")) return std::nullopt;
    DistributedSpec s;
    s.worldSize = static_cast<int>(integerVariable(
        "WORLD_SIZE", 1, kMaxProcesses, "the number of processes, 1 to " + std::to_string(kMaxProcesses)));
    const std::string below = "0 to WORLD_SIZE - 1 = " + std::to_string(s.worldSize - 1);
    s.rank = static_cast<int>(integerVariable("RANK", 0, s.worldSize - 1, "this process's rank, " + below));
    s.localRank = variable("LOCAL_RANK")
                      ? static_cast<int>(integerVariable("LOCAL_RANK", 0, s.worldSize - 1, below))
                      : 0;
    s.localWorldSize =
        variable("LOCAL_WORLD_SIZE")
            ? static_cast<int>(integerVariable("LOCAL_WORLD_SIZE", 1, s.worldSize, "1 to WORLD_SIZE"))
            : 1;
    if (const char* addr = variable("MASTER_ADDR")) s.masterAddr = addr;
    s.masterPort =
        static_cast<int>(integerVariable("MASTER_PORT", 1, 65535, "the port rank 0 listens on, 1 to 65535"));
    if (const char* ifname = variable("GLOO_SOCKET_IFNAME")) s.socketInterface = ifname;
    if (const char* t = variable("WORKBENCH_DIST_TIMEOUT")) {
        char* end = nullptr;
        const double seconds = std::strtod(t, &end);
        if (*end != '\0' || !(seconds >= 1 && seconds <= 86400))
            throw InputError("the environment variable WORKBENCH_DIST_TIMEOUT is '" + std::string(t) +
                             "' (expected seconds, 1 to 86400)");
        s.timeoutSeconds = seconds;
    }
    const char* secret = variable(kJobSecretVariable);
    if (!secret || std::strlen(secret) < kMinJobSecretLength)
        throw InputError("the environment variable " + std::string(kJobSecretVariable) +
                         (secret ? " is shorter than " + std::to_string(kMinJobSecretLength) + " characters"
                                 : std::string(" is not set")) +
                         " (expected the job's secret, the same on every process, e.g. from `head -c 24 "
                         "/dev/urandom | base64`)");
    s.secret = secret;
    if (const char* bind = variable("LSTM_WORKBENCH_BIND_ADDR")) s.bindAddress = bind;
    return s;
}

std::string newJobSecret() { return rendezvous::hex(rendezvous::randomBytes(32)); }

std::string defaultWorkerExecutable() {
    if (const char* exe = variable("WORKBENCH_WORKER_EXE")) return exe;
    char buf[PATH_MAX] = {0};
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return "lstm-workbench-cli";
    const std::filesystem::path self(std::string(buf, static_cast<std::size_t>(n)));
    if (self.filename() == "lstm-workbench-cli") return self.string();
    return (self.parent_path() / "lstm-workbench-cli").string();
}

}  // namespace wb
