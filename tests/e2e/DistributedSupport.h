// What the scale-out tests share (DistributedTest over loopback, NetworkScaleOutTest over network
// namespaces): lstm-workbench-cli started in the background, the losses of a run folder, a free port, and
// waiting for a run's first checkpoint or a process's end.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "CliRunner.h"
#include "support/TestSupport.h"

namespace wbtest::distributed {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A tiny language model, one thread a process, a loss record every 2 steps.
inline const std::string kShape =
    " --seq-len 16 --embedding 16 --hidden 24 --layers 2 --dropout 0.25 --threads 1 --log-every 2 --warmup 0"
    " --quiet";
inline const std::string kModel = kShape + " --lr 0.01";  // Adam, the default
// The equivalence tests' model: SGD at a rate where a doubled gradient shows at once, and no clipping (it
// would cut a doubled gradient back to the same length). Adam would hide gradients summed, not averaged.
inline const std::string kSgdModel = kShape + " --optimizer sgd --lr 0.5 --grad-clip 0";
// Long enough to be stopped mid-training, with a checkpoint every 5 steps.
inline const std::string kLongRun = kModel + " --batch-size 12 --epochs 1000 --validate-every 5";

// The loss records of metrics.csv, keyed "step split metric" (the clock columns differ between runs).
inline std::map<std::string, double> losses(const fs::path& run) {
    std::map<std::string, double> out;
    std::istringstream in(wbtest::readText(run / "metrics.csv"));
    for (std::string line; std::getline(in, line);) {
        std::vector<std::string> f;
        std::istringstream fields(line);
        for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
        if (f.size() == 8 && f[6] == "loss") out[f[1] + " " + f[5] + " " + f[6]] = std::stod(f[7]);
    }
    return out;
}

inline void expectSameLosses(const fs::path& a, const fs::path& b) {
    const auto la = losses(a), lb = losses(b);
    ASSERT_GT(la.size(), 5u);
    ASSERT_EQ(la.size(), lb.size());
    for (const auto& [key, value] : la) {
        ASSERT_TRUE(lb.count(key)) << key;
        EXPECT_NEAR(lb.at(key), value, 1e-4 * std::abs(value)) << key;
    }
}

inline nlohmann::json runJson(const fs::path& run) {
    return nlohmann::json::parse(wbtest::readText(run / "run.json"));
}

// A port nobody listens on, for a master the test starts a moment later. Not one the kernel picked: it hands
// the same ephemeral ports to any process's connections and `bind(0)`s, so between the check and the use
// another test's socket could take it. A random port below the ephemeral range
// (/proc/sys/net/ipv4/ip_local_port_range) is taken only by a program that names it, and this one is checked
// free by binding it.
inline int freePort() {
    int low = 32768, high = 60999;
    std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> low >> high;
    static std::mt19937 rng(static_cast<unsigned>(getpid()) ^ static_cast<unsigned>(time(nullptr)));
    const int floor = 10000, ceiling = std::max(floor + 1000, low);
    for (int attempt = 0; attempt < 200; ++attempt) {
        const int port = floor + static_cast<int>(rng() % static_cast<unsigned>(ceiling - floor));
        const int fd = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons(static_cast<std::uint16_t>(port));
        const bool bound = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
        close(fd);
        if (bound) return port;
    }
    ADD_FAILURE() << "no free port below " << ceiling;
    return 0;
}

// lstm-workbench-cli started in the background, as a launcher (torchrun, a shell's &) would.
class Background {
public:
    // ownGroup: in a process group of its own (its pid), as a shell's job is, so that a signal to the group
    // reaches its processes and no one else.
    // launcher: a command prefix the CLI runs under (NetworkHosts::run, a host's namespace), "" for none.
    Background(const std::string& args, const std::string& env, bool ownGroup = false,
               const std::string& launcher = "")
        : m_err(m_tmp.file("stderr")) {
        const std::string command = env + "exec " + launcher + std::string(wbtest::cliProgram()) + " " +
                                    args + " >" + shellQuote(m_tmp.file("stdout")) + " 2>" +
                                    shellQuote(m_err);
        m_pid = fork();
        if (m_pid == 0) {
            if (ownGroup) setpgid(0, 0);
            execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
            _exit(127);
        }
    }
    ~Background() {
        if (m_pid > 0 && !m_done) {
            kill(m_pid, SIGKILL);
            waitpid(m_pid, nullptr, 0);
        }
    }
    pid_t pid() const { return m_pid; }
    // The exit code (128 + signal), or -1 when it is still running after `limit` (a hang).
    int wait(std::chrono::seconds limit) {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (std::chrono::steady_clock::now() < deadline) {
            int status = 0;
            if (waitpid(m_pid, &status, WNOHANG) == m_pid) {
                m_done = true;
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            }
            std::this_thread::sleep_for(20ms);
        }
        return -1;
    }
    std::string err() const { return wbtest::readText(m_err); }

private:
    wbtest::TempDir m_tmp;
    std::string m_err;
    pid_t m_pid = -1;
    bool m_done = false;
};

// The pids of a process's children (the local workers of `train --nproc`).
inline std::vector<pid_t> childrenOf(pid_t pid) {
    std::vector<pid_t> out;
    std::istringstream in(
        wbtest::readText("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children"));
    for (pid_t child; in >> child;) out.push_back(child);
    return out;
}

using wbtest::lineCount;  // CliRunner.h's, for the suites that say `using namespace wbtest::distributed;`

// Gone, or a zombie no one has reaped yet (PID 1 in a container may never): either way it runs no more.
inline bool processEnded(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    if (!stat) return true;
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    return close == std::string::npos || close + 2 >= line.size() || line[close + 2] == 'Z' ||
           line[close + 2] == 'X';
}

struct Listener {
    std::string address;  // as /proc/net/tcp{,6} writes it: hex, in the kernel's byte order
    int port = 0;
    bool v6 = false;
};

// The listening TCP sockets the process owns: its socket inodes (/proc/PID/fd) found among the LISTEN rows
// (state 0A) of /proc/PID/net/tcp and tcp6 (its own network namespace's tables).
inline std::vector<Listener> listeningSocketsOf(pid_t pid) {
    std::set<std::string> inodes;
    const std::string fdDir = "/proc/" + std::to_string(pid) + "/fd";
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(fdDir, ec)) {
        const auto target = fs::read_symlink(entry.path(), ec).string();
        if (target.rfind("socket:[", 0) == 0) inodes.insert(target.substr(8, target.size() - 9));
    }
    std::vector<Listener> out;
    for (const bool v6 : {false, true}) {
        std::ifstream table("/proc/" + std::to_string(pid) + (v6 ? "/net/tcp6" : "/net/tcp"));
        std::string line;
        std::getline(table, line);  // the header
        while (std::getline(table, line)) {
            std::istringstream row(line);
            std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
            row >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >>
                inode;
            if (state != "0A" || !inodes.count(inode)) continue;
            const auto colon = local.find(':');
            out.push_back({local.substr(0, colon), std::stoi(local.substr(colon + 1), nullptr, 16), v6});
        }
    }
    return out;
}

// An IPv4 address as /proc/net/tcp writes it (the address's bytes as one hex number in host order).
inline std::string ipv4Hex(const std::string& address) {
    in_addr a{};
    inet_pton(AF_INET, address.c_str(), &a);
    char hex[9];
    std::snprintf(hex, sizeof hex, "%08X", a.s_addr);
    return hex;
}

// Waits up to 30 s for a run's first checkpoint (model.safetensors): the run is then mid-training.
inline bool waitForCheckpoint(const fs::path& run) {
    const auto model = run / "model.safetensors";
    for (int i = 0; i < 3000 && !fs::exists(model); ++i) std::this_thread::sleep_for(10ms);
    return fs::exists(model);
}

}  // namespace wbtest::distributed
