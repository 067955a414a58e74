// DistributedContext (see DistributedContext.h). Store keys live under "wb/": world_size, host/<r>,
// ready, go, beat/<r>, failed/<r> and what rank 0 publishes for the others (config, vocabulary, progress).
#include "distributed/DistributedContext.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>

#ifdef C10_USE_GLOG
#include <glog/logging.h>
#endif

#include "device/DeviceSetup.h"
#include "process/BrokenPipes.h"
#include "process/ChildProcess.h"
#include "workbench/domain/Errors.h"

namespace wb {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string text(const std::vector<uint8_t>& bytes) { return std::string(bytes.begin(), bytes.end()); }
std::vector<uint8_t> bytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

std::string key(const char* name, int rank) { return std::string("wb/") + name + "/" + std::to_string(rank); }

std::string address(const DistributedSpec& spec, int port) {
    return spec.masterAddr + ":" + std::to_string(port);
}

// A failure as the failing rank stored it: "2|message" (bad input), "1|message" (runtime) or "~|message"
// (it only stopped because it lost a peer, so it is not the cause).
struct StoredFailure {
    char kind = '1';
    std::string message;
};
StoredFailure parseFailure(const std::string& stored) {
    if (stored.size() >= 2 && stored[1] == '|') return {stored[0], stored.substr(2)};
    return {'1', stored};
}

std::chrono::milliseconds timeoutOf(const DistributedSpec& spec) {
    return std::chrono::milliseconds(static_cast<std::int64_t>(spec.timeoutSeconds * 1000));
}

}  // namespace

DistributedContext::DistributedContext(const DistributedSpec& spec) : m_spec(spec) {
#ifndef WORKBENCH_WITH_GLOO
    throw InputError(
        "this build of LSTM Workbench has no c10d process group, so it cannot run over several "
        "processes or hosts: it was built without Gloo's headers (Debian's libgloo-dev)");
#endif
    // c10d logs each failed bind, connect and read to stderr, several lines per failure; every such failure
    // reaches the user here as one line that says what to do, so its own logging is quieted.
#ifdef C10_USE_GLOG
    FLAGS_minloglevel = google::GLOG_FATAL;  // a LibTorch built with glog (Debian 12's) logs through it
#else
    FLAGS_caffe2_log_level = c10::GLOG_FATAL;  // the others (Debian 13's, PyTorch's) through c10's own logger
#endif
    // A peer that dies while this rank writes to it must surface as a lost peer, not kill this rank too.
    failWritesToClosedPeers();
    if (spec.rank == 0) hostTheStore();
    try {
        m_store = c10::make_intrusive<GatedStore>(identity(), timeoutOf(m_spec));
    } catch (const StoreUnreachable&) {
        throw TrainingError("rank " + std::to_string(spec.rank) + " cannot reach rank 0 at " +
                            address(spec, spec.masterPort) + " within " +
                            std::to_string(static_cast<int>(spec.timeoutSeconds)) +
                            " s: is rank 0 running, and are MASTER_ADDR and MASTER_PORT the address it "
                            "listens on?");
    }
    checkWorldSize();
    startHeartbeat();
}

DistributedContext::~DistributedContext() {
    stopHeartbeat();
    m_group.reset();  // closes the connections: workers still inside a collective fail at once
    // Workers end right after their last collective; a stuck one is killed rather than left behind.
    const auto deadline = Clock::now() + 10s;
    for (auto& pid : m_workers) {
        while (pid > 0) {
            const pid_t r = waitpid(pid, nullptr, WNOHANG);
            if (r == pid || (r < 0 && errno != EINTR)) {
                pid = -1;
            } else if (Clock::now() > deadline) {
                kill(pid, SIGKILL);
                waitpid(pid, nullptr, 0);
                pid = -1;
            } else {
                std::this_thread::sleep_for(20ms);
            }
        }
    }
}

int DistributedContext::port() const { return m_spec.masterPort; }

// Rank 0 listens where it was told, else on MASTER_ADDR's own address (loopback for a job on one machine),
// never on every interface unless told so; what it refuses it says on stderr, one line each, and goes on.
void DistributedContext::hostTheStore() {
    const std::string bindAddress = m_spec.bindAddress.empty() ? m_spec.masterAddr : m_spec.bindAddress;
    auto log = [](const std::string& line) { std::fprintf(stderr, "rank 0: %s\n", line.c_str()); };
    m_server = std::make_unique<RendezvousServer>(bindAddress, m_spec.masterPort, m_spec.secret,
                                                  m_spec.worldSize, log);
    m_spec.masterPort = m_server->port();
    if (isWildcardAddress(bindAddress)) {
        m_warnings.push_back(
            "rank 0 listened on every interface (" + bindAddress +
            ", as LSTM_WORKBENCH_BIND_ADDR or MASTER_ADDR said): anyone who reaches this machine could "
            "connect, though only processes with the job secret were admitted");
        // A wildcard is not an address to connect to: rank 0 reaches its own store over loopback.
        if (m_spec.masterAddr == bindAddress) m_spec.masterAddr = "127.0.0.1";
    } else if (m_server->loopbackOnly() && m_spec.localWorldSize < m_spec.worldSize) {
        // Debian maps a machine's own name to 127.0.1.1: MASTER_ADDR=$(hostname) reaches nobody else.
        m_warnings.push_back("rank 0 listens on " + bindAddress +
                             ", a loopback address, but LOCAL_WORLD_SIZE says ranks run on other machines: "
                             "they cannot reach it (give MASTER_ADDR as this machine's network address)");
        std::fprintf(stderr, "warning: %s\n", m_warnings.back().c_str());
    }
}

GatedStore::Identity DistributedContext::identity() const {
    return {m_spec.masterAddr, m_spec.masterPort, m_spec.secret, m_spec.rank};
}

void DistributedContext::checkWorldSize() {
    // A RANK taken twice never gets this far: rank 0's server refuses the second process at the door.
    const int self = m_spec.rank;
    if (self == 0) {
        m_store->set("wb/world_size", bytes(std::to_string(m_spec.worldSize)));
        return;
    }
    const auto theirs = text(m_store->get("wb/world_size"));
    if (theirs != std::to_string(m_spec.worldSize)) {
        const std::string message = "WORLD_SIZE is " + std::to_string(m_spec.worldSize) + " on rank " +
                                    std::to_string(self) + " but rank 0 started a job of " + theirs +
                                    " processes: start every process with the same WORLD_SIZE";
        reportFailure(message, true);
        throw InputError(message);
    }
}

void DistributedContext::startHeartbeat() {
    // Its own connection, so that a beat never waits behind a long request of the main thread. The thread
    // shares nothing with this object but its state and the store, so that it can be let go (stopHeartbeat).
    auto store = c10::make_intrusive<GatedStore>(identity(), timeoutOf(m_spec));
    auto state = m_heartbeatState = std::make_shared<HeartbeatState>();
    state->lastBeatNs = Clock::now().time_since_epoch().count();
    m_heartbeat = std::thread([state, store, beat = key("beat", m_spec.rank)] {
        try {
            while (!state->stop) {
                store->add(beat, 1);
                state->lastBeatNs = Clock::now().time_since_epoch().count();
                for (int i = 0; i < 10 && !state->stop; ++i) std::this_thread::sleep_for(50ms);
            }
        } catch (...) {
            // The store went away with rank 0; the main thread finds out in its next collective.
        }
        state->done = true;
    });
}

bool DistributedContext::storeAnswers() const {
    const auto& state = m_heartbeatState;
    if (!state) return true;                        // no beat sent yet: nothing known against the store
    if (state->done && !state->stop) return false;  // a beat failed: the store went away
    const auto last = Clock::time_point(Clock::duration(state->lastBeatNs.load()));
    return Clock::now() - last < 2s;  // a beat every half second
}

void DistributedContext::stopHeartbeat() {
    if (!m_heartbeat.joinable()) return;
    m_heartbeatState->stop = true;
    // A beat takes a moment; one sent over a link that went down never returns (a store client's read has
    // no timeout when nothing closes the connection), and waiting for it would hang the job's end.
    for (int i = 0; i < 100 && !m_heartbeatState->done; ++i) std::this_thread::sleep_for(10ms);
    if (m_heartbeatState->done)
        m_heartbeat.join();
    else
        m_heartbeat.detach();  // it ends with the process, or when the read fails
}

void DistributedContext::launchLocalWorkers(const std::string& executable) {
    if (access(executable.c_str(), X_OK) != 0)
        throw TrainingError("cannot start the worker processes: " + executable +
                            " is not an executable program (set WORKBENCH_WORKER_EXE to lstm-workbench-cli)");
    for (int r = 1; r < m_spec.worldSize; ++r) {
        ChildSpec child;
        child.argv = {executable, "worker"};
        // Set over this process's environment (where a rank started by torchrun has its own).
        child.extraEnv = {"RANK=" + std::to_string(r),
                          "WORLD_SIZE=" + std::to_string(m_spec.worldSize),
                          "LOCAL_RANK=" + std::to_string(r),
                          "LOCAL_WORLD_SIZE=" + std::to_string(m_spec.worldSize),
                          "MASTER_ADDR=" + m_spec.masterAddr,
                          "MASTER_PORT=" + std::to_string(m_spec.masterPort),
                          "WORKBENCH_DIST_TIMEOUT=" + std::to_string(m_spec.timeoutSeconds),
                          std::string(kJobSecretVariable) + "=" + m_spec.secret,  // environ is private
                          "LSTM_WORKBENCH_BIND_ADDR="};  // empty is unset: only rank 0 listens
        const pid_t pid = spawnChild(child, "a worker process");
        m_workers.push_back(pid);
    }
}

void DistributedContext::publish(const std::string& name, const std::string& value) {
    m_store->set("wb/" + name, bytes(value));
}

std::string DistributedContext::fetch(const std::string& name) {
    try {
        return text(m_store->get("wb/" + name));
    } catch (const std::exception&) {
        throw TrainingError("rank " + std::to_string(m_spec.rank) + " lost rank 0 before training began");
    }
}

void DistributedContext::throwFailureOf(int rank, const std::string& stored) {
    const auto f = parseFailure(stored);
    const std::string line = "rank " + std::to_string(rank) + " failed: " + f.message;
    if (f.kind == '2') throw InputError(line);
    throw TrainingError(line);
}

void DistributedContext::joinGroup(bool cudaDevices) {
    m_store->set(key("host", m_spec.rank), bytes(hostName()));
    m_store->add("wb/ready", 1);
    if (m_spec.rank == 0)
        admitEveryRank();
    else
        awaitRankZero();
    makeProcessGroup(cudaDevices);
}

// Rank 0: waits until every rank has checked in, then says go; a rank that failed, a local worker that
// exited or one that never came within the timeout stops the job instead, and every rank is told why.
void DistributedContext::admitEveryRank() {
    const int world = m_spec.worldSize;
    const auto deadline =
        Clock::now() + std::chrono::milliseconds(static_cast<std::int64_t>(m_spec.timeoutSeconds * 1000));
    try {
        while (m_store->add("wb/ready", 0) < world) {
            for (int r = 1; r < world; ++r)
                if (m_store->check({key("failed", r)}))
                    throwFailureOf(r, text(m_store->get(key("failed", r))));
            const auto exited = describeLocalWorkerExit();
            if (!exited.empty()) throw TrainingError(exited + " before training began");
            if (Clock::now() > deadline) {
                std::string missing;
                for (int r = 1; r < world; ++r)
                    if (!m_store->check({key("host", r)}))
                        missing += (missing.empty() ? "" : ", ") + std::to_string(r);
                throw TrainingError("only " + std::to_string(m_store->add("wb/ready", 0)) + " of " +
                                    std::to_string(world) + " ranks joined within " +
                                    std::to_string(static_cast<int>(m_spec.timeoutSeconds)) +
                                    " s (missing: rank " + missing +
                                    "): start every process with the same MASTER_ADDR and MASTER_PORT");
            }
            std::this_thread::sleep_for(20ms);
        }
    } catch (const std::exception& e) {
        m_store->set("wb/go",
                     bytes(std::string(dynamic_cast<const InputError*>(&e) ? "2|" : "1|") + e.what()));
        throw;
    }
    m_store->set("wb/go", bytes(""));
}

// Ranks above 0: wait for rank 0's go, or the reason it stopped the job.
void DistributedContext::awaitRankZero() {
    const auto go = fetch("go");
    if (!go.empty()) {
        const auto f = parseFailure(go);
        if (f.kind == '2') throw InputError("rank 0 stopped the job: " + f.message);
        throw TrainingError("rank 0 stopped the job: " + f.message);
    }
}

// The process group over the store: Gloo for CPU tensors, NCCL for CUDA ones in a build that has it.
void DistributedContext::makeProcessGroup(bool cudaDevices) {
#ifdef WORKBENCH_WITH_GLOO
    const int self = m_spec.rank, world = m_spec.worldSize;
    auto options = c10d::ProcessGroupGloo::Options::create(
        std::chrono::milliseconds(static_cast<std::int64_t>(m_spec.timeoutSeconds * 1000)));
    // Gloo listens on one address too: the interface named, else the one this rank reaches rank 0 from
    // (loopback for a job on one machine), never the host name's (Debian maps it to 127.0.1.1).
    if (!m_spec.socketInterface.empty())
        options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(m_spec.socketInterface));
    else
        options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(m_store->localAddress()));
    auto prefixed = c10::make_intrusive<c10d::PrefixStore>("gloo", m_store);
    try {
        auto gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(prefixed, self, world, options);
        m_backend = "gloo";
#ifdef WORKBENCH_C10D_BACKENDS
        // The group fronts one backend per device type, as torch.distributed's "cpu:gloo,cuda:nccl" does.
        m_group = c10::make_intrusive<c10d::ProcessGroup>(m_store, self, world);
        m_group->setBackend(c10::DeviceType::CPU, c10d::ProcessGroup::BackendType::GLOO, gloo);
        auto backend = c10d::ProcessGroup::BackendType::GLOO;
#ifdef WORKBENCH_WITH_NCCL
        if (cudaDevices) {
            auto ncclOptions = c10d::ProcessGroupNCCL::Options::create();
            ncclOptions->timeout = options->timeout;
            auto nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(
                c10::make_intrusive<c10d::PrefixStore>("nccl", m_store), self, world, ncclOptions);
            m_group->setBackend(c10::DeviceType::CUDA, c10d::ProcessGroup::BackendType::NCCL, nccl);
            backend = c10d::ProcessGroup::BackendType::NCCL;
            m_backend = "nccl";
        }
#endif
        // Without NCCL, Gloo carries CUDA tensors too (its CUDA build copies them through the host).
        if (m_backend == "gloo")
            m_group->setBackend(c10::DeviceType::CUDA, c10d::ProcessGroup::BackendType::GLOO, gloo);
        m_group->setDefaultBackend(backend);
#else
        m_group = gloo;  // 1.13: ProcessGroupGloo is the group
#endif
    } catch (const std::exception& e) {
        throw TrainingError(explainLostPeer(e.what()));
    }
#endif
}

std::vector<std::string> DistributedContext::hosts() {
    std::vector<std::string> out;
    for (int r = 0; r < m_spec.worldSize; ++r) out.push_back(text(m_store->get(key("host", r))));
    return out;
}

void DistributedContext::reportFailure(const std::string& message, bool inputError) {
    if (!storeAnswers()) return;  // nobody left to tell, and asking would wait forever
    try {
        m_store->set(key("failed", m_spec.rank), bytes(std::string(inputError ? "2|" : "1|") + message));
    } catch (...) {
        // The store is rank 0's: when it is gone there is nobody left to tell.
    }
}

void DistributedContext::reportLostPeer(const std::string& message) {
    if (!storeAnswers()) return;
    try {
        m_store->set(key("failed", m_spec.rank), bytes("~|" + message));
    } catch (...) {
    }
}

std::string DistributedContext::describeLocalWorkerExit() {
    for (std::size_t i = 0; i < m_workers.size(); ++i) {
        if (m_workers[i] <= 0) continue;
        int status = 0;
        if (waitpid(m_workers[i], &status, WNOHANG) != m_workers[i]) continue;
        const int rank = static_cast<int>(i) + 1;
        std::string line = "rank " + std::to_string(rank) + " (pid " + std::to_string(m_workers[i]) + ") ";
        m_workers[i] = -1;
        std::string reason;
        try {
            if (m_store->check({key("failed", rank)}))
                reason = parseFailure(text(m_store->get(key("failed", rank)))).message;
        } catch (...) {
        }
        if (WIFSIGNALED(status))
            line += std::string("was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
                    strsignal(WTERMSIG(status)) + ")";
        else
            line += "exited with code " + std::to_string(WEXITSTATUS(status));
        return reason.empty() ? line : line + ": " + reason;
    }
    return {};
}

std::string DistributedContext::explainLostPeer(const std::string& collectiveError) {
    // A local worker that ended is the surest answer; give it a moment to be reaped.
    for (int i = 0; i < 50 && !m_workers.empty(); ++i) {
        const auto exited = describeLocalWorkerExit();
        if (!exited.empty()) return exited + "; the run stops and keeps its last checkpoint";
        std::this_thread::sleep_for(20ms);
    }
    const std::string storeGone =
        "lost rank 0: the job's store on " + address(m_spec, m_spec.masterPort) + " no longer answers";
    if (!storeAnswers()) return storeGone;
    try {
        std::vector<std::int64_t> before(m_spec.worldSize);
        for (int r = 0; r < m_spec.worldSize; ++r)
            if (r != m_spec.rank) before[r] = m_store->add(key("beat", r), 0);
        // Ranks that failed say why; the first real cause wins over ranks that only lost a peer.
        auto reported = [&](bool causesOnly) -> std::string {
            for (int r = 0; r < m_spec.worldSize; ++r) {
                if (r == m_spec.rank || !m_store->check({key("failed", r)})) continue;
                const auto f = parseFailure(text(m_store->get(key("failed", r))));
                if (!causesOnly || f.kind != '~')
                    return "rank " + std::to_string(r) + " failed: " + f.message;
            }
            return {};
        };
        if (auto cause = reported(true); !cause.empty()) return cause;
        std::this_thread::sleep_for(1200ms);  // two heartbeats
        if (auto cause = reported(true); !cause.empty()) return cause;
        std::string silent;
        for (int r = 0; r < m_spec.worldSize; ++r) {
            if (r == m_spec.rank || m_store->check({key("failed", r)}) ||
                m_store->add(key("beat", r), 0) != before[r])
                continue;
            silent += (silent.empty() ? "" : ", ") + std::to_string(r);
            if (m_store->check({key("host", r)})) silent += " on " + text(m_store->get(key("host", r)));
            // A local worker that stopped answering is hung (stopped, or stuck in the kernel): nobody will
            // need it again, and the launcher should not wait for it to end by itself.
            if (r >= 1 && static_cast<std::size_t>(r) <= m_workers.size() && m_workers[r - 1] > 0)
                kill(m_workers[r - 1], SIGKILL);
        }
        if (!silent.empty())
            return "lost rank " + silent + ": no answer within the " +
                   std::to_string(static_cast<int>(m_spec.timeoutSeconds)) +
                   " s timeout (its process hung or was killed, or its machine is unreachable); "
                   "the run stops and keeps its last checkpoint";
        if (auto echo = reported(false); !echo.empty()) return echo;
    } catch (...) {
        return storeGone;
    }
    return "lost a peer: " + firstLine(collectiveError);
}

}  // namespace wb
