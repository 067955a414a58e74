// This machine's launcher (workbench/engine/SweepRun.h): one cell at a time, each a child `train` process
// (or, for a link cell, one `train` per process, each on a host of its own).
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <memory>
#include <optional>

#include "process/ChildProcess.h"
#include "sweep/CellError.h"
#include "sweep/NetworkHosts.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RemoveAll.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Distributed.h"
#include "workbench/engine/SweepRun.h"

namespace fs = std::filesystem;

namespace wb {

namespace {

class LocalLauncher final : public CellLauncher {
public:
    explicit LocalLauncher(std::string program) : m_program(std::move(program)) {
        if (access(m_program.c_str(), X_OK) != 0)
            throw InputError(m_program + " is not an executable program: this runs in lstm-workbench-cli");
    }
    ~LocalLauncher() override {
        if (!m_ranks.empty()) {  // a cell still running when its sweep ended by an exception
            for (const pid_t pid : m_ranks) ::kill(pid, SIGKILL);
            for (const pid_t pid : m_ranks) waitChild(pid);
        }
    }

    // A sweep with a link axis runs its cells on hosts made with network namespaces: said before anything
    // is made when this machine cannot make them.
    void check(const Sweep& sweep) const override {
        if (!sweep.hasLinkAxis()) return;
        const auto why = NetworkHosts::unavailableReason();
        if (!why.empty())
            throw InputError(
                "the link axis runs each process on a host of its own, made with network namespaces on this "
                "machine, and " +
                why + ": run the sweep as root with iproute2, or leave out the link axis");
    }

    int capacity() const override { return 1; }  // cells' timings are their own only one at a time

    int start(const CellJob& job) override {
        if (!m_ranks.empty()) throw TrainingError("this machine's launcher runs one cell at a time");
        m_job = job;
        if (job.link.empty()) {
            ChildSpec child;
            child.argv = {m_program,  "train",    job.corpus,     "--out",
                          job.runDir, "--config", job.configFile, "--quiet"};
            child.stdoutFile = "/dev/null";
            child.stderrFile = job.errorFile;
            publish(spawnChild(child, "a sweep cell"));
        } else {
            startOverHosts(job);
        }
        return ++m_started;
    }

    std::pair<int, CellEnd> waitForAnEnd() override {
        if (m_ranks.empty()) throw TrainingError("no sweep cell is running");
        const ChildExit rankZero = waitChild(m_ranks[0]);
        m_running = 0;
        CellEnd end{rankZero.code, rankZero.peakRssBytes, cellErrorLine(m_job.errorFile)};
        for (std::size_t rank = 1; rank < m_ranks.size(); ++rank) awaitRank(rank, &end);
        m_ranks.clear();
        m_hosts.reset();  // the hosts go when the cell ends, with whatever still runs in them
        return {m_started, end};
    }

    void stop() noexcept override {
        m_stopping = true;
        const pid_t pid = m_running;
        if (pid > 0) ::kill(pid, SIGINT);
    }
    void kill() noexcept override {
        m_stopping = true;
        const pid_t pid = m_running;
        if (pid > 0) ::kill(pid, SIGKILL);  // rank 0; the others lose it, or go with their hosts
    }

private:
    // The pid a stop reaches: rank 0's (the others end with it). A stop that came while it was starting
    // found no pid; it is passed on here. (Both atomics are sequentially consistent: either stop() sees
    // the pid, or this sees the stop.)
    void publish(pid_t rankZero) {
        m_ranks.insert(m_ranks.begin(), rankZero);
        m_running = rankZero;
        if (m_stopping) ::kill(rankZero, SIGINT);
    }

    std::string rankErrorFile(std::size_t rank) const {
        return rank == 0 ? m_job.errorFile : m_job.errorFile + ".rank" + std::to_string(rank);
    }

    // A link cell: `processes` hosts on one bridge, their links shaped to the link (or unshaped), and one
    // `train` in each, started with torchrun's variables as on real machines (GLOO_SOCKET_IFNAME naming the
    // host's interface). Rank 0 writes the run folder; the other ranks write nothing. Rank 0 starts last:
    // the others wait for it.
    void startOverHosts(const CellJob& job) {
        const int processes = static_cast<int>(job.processes);
        m_hosts = std::make_unique<NetworkHosts>(processes, job.link == kUnshapedLink ? "" : job.link);
        const std::string secret = newJobSecret();  // the cell's own: its ranks alone may join it
        for (int rank = processes - 1; rank >= 0; --rank) {
            // `exec` at every step, so that the pid is the rank's own `train` (a stop reaches it directly).
            const std::string out = rank == 0 ? job.runDir : job.runDir + ".rank" + std::to_string(rank);
            ChildSpec child;
            child.argv = {"/bin/sh", "-c",
                          "exec " + m_hosts->run(rank) + shellQuote(m_program) + " train " +
                              shellQuote(job.corpus) + " --out " + shellQuote(out) + " --config " +
                              shellQuote(job.configFile) + " --quiet"};
            child.extraEnv = {"RANK=" + std::to_string(rank),
                              "WORLD_SIZE=" + std::to_string(processes),
                              "LOCAL_RANK=0",
                              "LOCAL_WORLD_SIZE=1",
                              "MASTER_ADDR=" + m_hosts->address(0),
                              "MASTER_PORT=29500",  // each cell's hosts are new: every port is free
                              std::string("GLOO_SOCKET_IFNAME=") + NetworkHosts::interface(),
                              std::string(kJobSecretVariable) + "=" + secret};
            child.stdoutFile = "/dev/null";
            child.stderrFile = rankErrorFile(static_cast<std::size_t>(rank));
            const pid_t pid = spawnChild(child, "a sweep cell");
            if (rank == 0)
                publish(pid);
            else
                m_ranks.insert(m_ranks.begin(), pid);
        }
    }

    // The other ranks end with rank 0 (it tells them, or they lose it within the job's timeout); a rank
    // that does not within a minute is killed. The first failing rank's error is the cell's when rank 0
    // succeeded without it.
    void awaitRank(std::size_t rank, CellEnd* end) {
        std::optional<ChildExit> exit;
        for (int tick = 0; tick < 600 && !exit; ++tick) {
            ChildExit e;
            if (childEnded(m_ranks[rank], &e))
                exit = e;
            else
                usleep(100000);
        }
        if (!exit) {
            ::kill(m_ranks[rank], SIGKILL);
            waitChild(m_ranks[rank]);
        }
        const int code = exit ? exit->code : -1;
        if (code != 0 && end->code == 0) {
            end->code = code < 0 ? 1 : code;
            end->error = "rank " + std::to_string(rank) + ": " + cellErrorLine(rankErrorFile(rank));
        }
        std::error_code ec;
        fs::remove(rankErrorFile(rank), ec);
        removeAll(m_job.runDir + ".rank" + std::to_string(rank), ec);
    }

    std::string m_program;
    CellJob m_job;
    std::vector<pid_t> m_ranks;  // of the running cell, rank 0 first
    std::unique_ptr<NetworkHosts> m_hosts;
    int m_started = 0;
    std::atomic<pid_t> m_running{0};
    std::atomic<bool> m_stopping{false};
    static_assert(std::atomic<pid_t>::is_always_lock_free, "stop() is called from signal handlers");
};

}  // namespace

std::unique_ptr<CellLauncher> makeLocalLauncher(const std::string& program) {
    return std::make_unique<LocalLauncher>(program);
}

std::string thisProgram() {
    char buf[4096] = {0};
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return "lstm-workbench-cli";
    // Another program that runs the CLI's code in its own process (the end-to-end tests' forked copies of
    // the CLI) starts cells with the CLI beside it, as defaultWorkerExecutable() does for ranks.
    const std::filesystem::path self(std::string(buf, static_cast<std::size_t>(n)));
    if (self.filename() == "lstm-workbench-cli") return self.string();
    return (self.parent_path() / "lstm-workbench-cli").string();
}

}  // namespace wb
