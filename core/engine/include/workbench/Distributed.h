// Scale-out: where a process stands in a data-parallel job. A job is N processes of the same binary on one or
// several machines, each training on its shard of every global batch, joined through torch.distributed's
// c10d (a TCPStore for the rendezvous, ProcessGroupGloo on CPUs, the bucketing Reducer for gradients).
// Rank 0 writes the run folder; the others write nothing. docs/architecture.md, "Scale-out", tells the whole.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace wb {

struct DistributedSpec {
    int rank = 0;
    int worldSize = 1;
    int localRank = 0;
    int localWorldSize = 1;
    std::string masterAddr = "127.0.0.1";
    int masterPort = 0;           // 0: rank 0 picks a free port (local launches only)
    std::string socketInterface;  // GLOO_SOCKET_IFNAME: the network interface Gloo uses, if set
    double timeoutSeconds = 60;   // rendezvous and every collective; a lost peer is reported by then
    // What every rank proves it knows before rank 0 admits it (docs/reliability.md, "Who may join a run"):
    // LSTM_WORKBENCH_JOB_SECRET, or one a local launch draws. Never on a command line (ps shows those).
    std::string secret;
    // Where rank 0 listens: LSTM_WORKBENCH_BIND_ADDR, else MASTER_ADDR itself (never every interface
    // unless named: "0.0.0.0" or "::").
    std::string bindAddress;
};

// The variable that carries the job secret, and the fewest characters a secret given there may have.
inline constexpr const char* kJobSecretVariable = "LSTM_WORKBENCH_JOB_SECRET";
inline constexpr std::size_t kMinJobSecretLength = 16;

// A fresh secret: 32 random bytes from the kernel, as 64 hex digits.
std::string newJobSecret();

// The spec torchrun (or a user by hand) gives through RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE,
// MASTER_ADDR, MASTER_PORT, GLOO_SOCKET_IFNAME, WORKBENCH_DIST_TIMEOUT (seconds), LSTM_WORKBENCH_JOB_SECRET
// (required) and LSTM_WORKBENCH_BIND_ADDR; nullopt when neither RANK nor WORLD_SIZE is set. Throws InputError
// naming the variable for a missing or malformed value.
std::optional<DistributedSpec> distributedSpecFromEnvironment();

// The program started for ranks 1..N-1 of a local launch: WORKBENCH_WORKER_EXE if set, else this program
// when it is lstm-workbench-cli, else the lstm-workbench-cli beside it (the app's case).
std::string defaultWorkerExecutable();

}  // namespace wb
