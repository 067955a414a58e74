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
// MASTER_ADDR, MASTER_PORT, GLOO_SOCKET_IFNAME, WORKBENCH_DIST_TIMEOUT (seconds), the job's secret and
// LSTM_WORKBENCH_BIND_ADDR. Without RANK and WORLD_SIZE, a task of an srun step of 2 or more tasks takes them
// from Slurm: its rank SLURM_PROCID of SLURM_STEP_NUM_TASKS, SLURM_LOCALID, its node's tasks
// (SLURM_STEP_TASKS_PER_NODE, SLURM_NODEID), rank 0 on the step's first node (SLURM_STEP_NODELIST) at a port
// made from SLURM_JOB_ID and SLURM_STEP_ID, unless MASTER_ADDR or MASTER_PORT say otherwise. The secret is
// LSTM_WORKBENCH_JOB_SECRET, or the first line of the file LSTM_WORKBENCH_JOB_SECRET_FILE names (which only
// its owner may read); one of them is required. nullopt for a process outside such a job. Throws
// InputError naming the variable for a missing or malformed value.
std::optional<DistributedSpec> distributedSpecFromEnvironment();
// The first host of a Slurm host list: "node[01-03,07],gpu1" -> "node01", "rack[2-3]-n[5,9]" -> "rack2-n5".
std::string firstSlurmHost(const std::string& nodeList);
// Rank 0's port in an srun step: 20000 to 32767, from the job and step ids.
int slurmStepPort(long long jobId, long long stepId);

// The program started for ranks 1..N-1 of a local launch: WORKBENCH_WORKER_EXE if set, else this program
// when it is lstm-workbench-cli, else the lstm-workbench-cli beside it (the app's case).
std::string defaultWorkerExecutable();

}  // namespace wb
