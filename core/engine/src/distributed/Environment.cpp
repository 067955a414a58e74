// The torchrun and Slurm variables (workbench/engine/Distributed.h) and the program a local launch starts
// for its workers.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "distributed/JobSecret.h"
#include "workbench/domain/Config.h"
#include "workbench/domain/Errors.h"
#include "workbench/engine/Distributed.h"

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

double timeoutFromEnvironment() {
    const char* t = variable("WORKBENCH_DIST_TIMEOUT");
    if (!t) return DistributedSpec{}.timeoutSeconds;
    char* end = nullptr;
    const double seconds = std::strtod(t, &end);
    if (*end != '\0' || !(seconds >= 1 && seconds <= 86400))
        throw InputError("the environment variable WORKBENCH_DIST_TIMEOUT is '" + std::string(t) +
                         "' (expected seconds, 1 to 86400)");
    return seconds;
}

// The job's secret from a file: only its owner may read it (as ssh asks of a private key), and it holds the
// secret on its first line.
std::string secretFromFile(const std::string& file) {
    struct stat st {};
    const std::string where = "LSTM_WORKBENCH_JOB_SECRET_FILE (" + file + ")";
    if (stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        throw InputError(where + " is not a file (expected the job's secret, in a file only you can read)");
    if (st.st_uid != geteuid() || (st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
        throw InputError(where +
                         " may be read by others: the job's secret must be yours alone (chmod 600 it, "
                         "or make it with umask 077)");
    std::ifstream in(file);
    std::string secret;
    std::getline(in, secret);
    return secret;
}

std::string jobSecret() {
    const char* secret = variable(kJobSecretVariable);
    const char* file = variable("LSTM_WORKBENCH_JOB_SECRET_FILE");
    const std::string value = secret ? secret : file ? secretFromFile(file) : "";
    const std::string where =
        secret ? "the environment variable " + std::string(kJobSecretVariable)
        : file ? "the file LSTM_WORKBENCH_JOB_SECRET_FILE names (" + std::string(file) + ")"
               : "the environment variable " + std::string(kJobSecretVariable);
    if (value.size() < kMinJobSecretLength)
        throw InputError(
            where +
            (secret || file ? " is shorter than " + std::to_string(kMinJobSecretLength) + " characters"
                            : std::string(" is not set")) +
            " (expected the job's secret, the same on every process, e.g. from `head -c 24 "
            "/dev/urandom | base64`, or LSTM_WORKBENCH_JOB_SECRET_FILE naming a file only you can "
            "read that holds it)");
    return value;
}

// The tasks on this node from SLURM_STEP_TASKS_PER_NODE ("2", "2(x3),1": per node, in node order) and
// SLURM_NODEID; 1 when they do not say.
int tasksOnThisNode() {
    const char* list = variable("SLURM_STEP_TASKS_PER_NODE");
    const char* node = variable("SLURM_NODEID");
    if (!list || !node) return 1;
    const long wanted = std::strtol(node, nullptr, 10);
    std::stringstream in(list);
    long index = 0;
    for (std::string item; std::getline(in, item, ',');) {
        const long tasks = std::strtol(item.c_str(), nullptr, 10);
        const auto x = item.find("(x");
        const long repeat = x == std::string::npos ? 1 : std::strtol(item.c_str() + x + 2, nullptr, 10);
        if (wanted < index + repeat) return tasks > 0 ? static_cast<int>(tasks) : 1;
        index += repeat;
    }
    return 1;
}

// A job step started by srun: its tasks are the job's ranks (docs/scaling.md, "On a Slurm cluster").
DistributedSpec specFromSlurm() {
    DistributedSpec s;
    s.worldSize = static_cast<int>(integerVariable(
        "SLURM_STEP_NUM_TASKS", 1, kMaxProcesses, "the step's tasks, 1 to " + std::to_string(kMaxProcesses)));
    const std::string below = "0 to " + std::to_string(s.worldSize - 1);
    s.rank =
        static_cast<int>(integerVariable("SLURM_PROCID", 0, s.worldSize - 1, "this task's rank, " + below));
    s.localRank = variable("SLURM_LOCALID")
                      ? static_cast<int>(integerVariable("SLURM_LOCALID", 0, s.worldSize - 1, below))
                      : 0;
    s.localWorldSize = tasksOnThisNode();
    const char* nodes =
        variable("SLURM_STEP_NODELIST") ? variable("SLURM_STEP_NODELIST") : variable("SLURM_JOB_NODELIST");
    if (const char* addr = variable("MASTER_ADDR"))
        s.masterAddr = addr;
    else if (nodes)
        s.masterAddr = firstSlurmHost(nodes);
    const auto number = [](const char* name) {
        const char* v = variable(name);
        return v ? std::strtoll(v, nullptr, 10) : 0;
    };
    s.masterPort = variable("MASTER_PORT")
                       ? static_cast<int>(integerVariable("MASTER_PORT", 1, 65535, "the port, 1 to 65535"))
                       : slurmStepPort(number("SLURM_JOB_ID"), number("SLURM_STEP_ID"));
    return s;
}

}  // namespace

std::string firstSlurmHost(const std::string& nodeList) {
    std::string out;
    int depth = 0;
    bool firstInBracket = false;
    for (const char c : nodeList) {
        if (c == '[') {
            ++depth;
            firstInBracket = true;
        } else if (c == ']') {
            --depth;
        } else if (depth > 0) {
            if (c == ',' || c == '-') firstInBracket = false;  // the first of "01-03,07" is 01
            if (firstInBracket) out += c;
        } else if (c == ',') {
            break;  // the next host
        } else {
            out += c;
        }
    }
    return out;
}

int slurmStepPort(long long jobId, long long stepId) {
    // 20000-32767: below Linux's ephemeral ports (32768 on), so no connection's own port holds it.
    return 20000 + static_cast<int>((jobId * 16 + stepId) % 12768);
}

std::optional<DistributedSpec> distributedSpecFromEnvironment() {
    if (!variable("RANK") && !variable("WORLD_SIZE")) {
        // srun sets SLURM_STEP_NUM_TASKS for the tasks of a step; a batch script's own shell has only the
        // job's SLURM_NTASKS and SLURM_PROCID=0, and a program it runs without srun trains alone.
        if (!variable("SLURM_STEP_NUM_TASKS") || std::string(variable("SLURM_STEP_NUM_TASKS")) == "1")
            return std::nullopt;
        DistributedSpec s = specFromSlurm();
        if (const char* ifname = variable("GLOO_SOCKET_IFNAME")) s.socketInterface = ifname;
        s.timeoutSeconds = timeoutFromEnvironment();
        s.secret = jobSecret();
        if (const char* bind = variable("LSTM_WORKBENCH_BIND_ADDR")) s.bindAddress = bind;
        return s;
    }
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
    s.timeoutSeconds = timeoutFromEnvironment();
    s.secret = jobSecret();
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
