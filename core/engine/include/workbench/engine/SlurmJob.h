// This process as part of a Slurm batch job (issue #64; docs/scaling.md, "On a Slurm cluster"): which job it
// is, whether Slurm started it again, and the requeue that carries a run past a time limit. A run stopped
// by the time-limit signal (sbatch --signal=USR1@SECONDS) saves its checkpoint and queues its job again;
// Slurm starts the job's script from its beginning, and the same `train --out RUN` continues RUN from that
// checkpoint, with the losses of a run never stopped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace wb {

struct SlurmJob {
    std::string id;             // SLURM_JOB_ID (unique for each element of a job array too)
    std::int64_t restarts = 0;  // SLURM_RESTART_COUNT: how often Slurm started the job again (requeued)
};

// The Slurm job this process belongs to; nullopt outside Slurm (no SLURM_JOB_ID). Throws InputError when a
// variable is not a number.
std::optional<SlurmJob> slurmJobFromEnvironment();

// Whether `train --out runDir` continues the run in runDir instead of refusing a folder that exists: this
// process is a Slurm job started again (restarts > 0) and runDir's run.json says this same job trained it
// (slurm_job).
bool continuesRequeuedRun(const std::string& runDir);

// `scontrol requeue ID`: the controller ends the job's processes and queues it again (Slurm holds a
// requeued job for about two minutes before it may start). scontrol's scratch output goes beside `scratch`.
// The end is SIGTERM to every process of the job, this one and scontrol included, and it may come before
// scontrol has exited: so from this call on this process ignores SIGTERM (it is about to exit; Slurm's
// SIGKILL follows KillWait later, 30 s by default), and scontrol does too, so that the caller lives to say
// that the job was queued again and the scratch files are removed.
// Throws TrainingError with scontrol's reason (a job submitted with --no-requeue, a cluster that forbids
// it).
void requeueSlurmJob(const SlurmJob& job, const std::string& scratch);

}  // namespace wb
