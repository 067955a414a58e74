// One process's membership of a data-parallel job: the store (rank 0 hosts it behind the job secret,
// RendezvousServer; every rank reaches it through a GatedStore), the rendezvous that checks every rank agrees
// on the job before any training, the Gloo process group, a heartbeat, and the
// local worker processes of `train --nproc N`. Failures come out as one line that names the rank lost.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "distributed/C10d.h"
#include "distributed/GatedStore.h"
#include "distributed/RendezvousServer.h"
#include "workbench/engine/Distributed.h"

namespace wb {

class DistributedContext {
public:
    // Rank 0 hosts the store on spec.masterPort (a free port when 0) at spec.bindAddress, else
    // spec.masterAddr; every rank, rank 0 too, connects to it with the job secret. Throws TrainingError for a
    // busy port or an unreachable master, InputError when rank 0 refuses this process (a wrong secret, its
    // RANK taken) or this rank's WORLD_SIZE differs from rank 0's.
    explicit DistributedContext(const DistributedSpec& spec);
    ~DistributedContext();  // stops the heartbeat; waits for (and at worst kills) local workers
    DistributedContext(const DistributedContext&) = delete;
    DistributedContext& operator=(const DistributedContext&) = delete;

    int rank() const { return m_spec.rank; }
    int worldSize() const { return m_spec.worldSize; }
    int port() const;
    const DistributedSpec& spec() const { return m_spec; }
    // What run.json's warnings should say about this job's rendezvous (rank 0 listening on every interface).
    const std::vector<std::string>& warnings() const { return m_warnings; }

    // Rank 0 of a local launch: starts ranks 1..N-1 as `executable worker`, with torchrun's variables.
    void launchLocalWorkers(const std::string& executable);

    void publish(const std::string& key, const std::string& value);  // rank 0
    std::string fetch(const std::string& key);                       // waits up to the timeout

    // Every rank, once its data is ready: waits until all ranks are, then builds the process group: Gloo,
    // or for a job that trains on CUDA devices NCCL where the LibTorch build has it (Gloo then still carries
    // CPU tensors). Throws (naming the rank) when one failed or did not come within the timeout.
    void joinGroup(bool cudaDevices);
    const c10::intrusive_ptr<c10d::ProcessGroup>& group() const { return m_group; }
    const std::string& backendName() const { return m_backend; }  // "gloo" or "nccl", after joinGroup
    std::vector<std::string> hosts();                             // each rank's host name, after joinGroup

    // Tells the other ranks why this one stops (best effort: the store may be gone). inputError marks bad
    // input (exit 2) as opposed to a runtime failure (exit 1).
    void reportFailure(const std::string& message, bool inputError);
    // Tells the other ranks this one stops only because it lost a peer (so they look for the real cause).
    void reportLostPeer(const std::string& message);
    // Turns the error of a failed collective into one line naming the lost rank; waits at most ~2 s.
    std::string explainLostPeer(const std::string& collectiveError);

private:
    void hostTheStore();  // rank 0: starts the server
    GatedStore::Identity identity() const;
    void startHeartbeat();
    void stopHeartbeat();  // waits up to a second for the thread, then lets it go
    void checkWorldSize();
    void admitEveryRank();  // joinGroup's steps
    void awaitRankZero();
    void makeProcessGroup(bool cudaDevices);
    // Whether rank 0's store answered a heartbeat within the last two seconds. A store client's read waits
    // forever on a link that went down without closing (against PyTorch 2.15 a cut-off rank hung there; the
    // same test ended against 1.13), so after a failed collective the store is asked nothing once its beats
    // have stopped.
    bool storeAnswers() const;
    std::string describeLocalWorkerExit();
    [[noreturn]] void throwFailureOf(int rank, const std::string& stored);

    DistributedSpec m_spec;
    std::unique_ptr<RendezvousServer> m_server;  // rank 0's
    c10::intrusive_ptr<GatedStore> m_store;
    std::vector<std::string> m_warnings;
    c10::intrusive_ptr<c10d::ProcessGroup> m_group;
    std::string m_backend;
    std::vector<pid_t> m_workers;  // index r-1: the local process of rank r
    struct HeartbeatState {
        std::atomic<bool> stop{false}, done{false};
        std::atomic<std::int64_t> lastBeatNs{0};  // steady clock, when the store last answered a beat
    };
    std::shared_ptr<HeartbeatState> m_heartbeatState;
    std::thread m_heartbeat;
};

}  // namespace wb
