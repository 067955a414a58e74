// See workbench/engine/SlurmJob.h.
#include "workbench/engine/SlurmJob.h"

#include <csignal>
#include <cstdlib>
#include <filesystem>

#include "slurm/SlurmCommands.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"

namespace fs = std::filesystem;

namespace wb {

std::optional<SlurmJob> slurmJobFromEnvironment() {
    const char* id = std::getenv("SLURM_JOB_ID");
    if (!id || !*id) return std::nullopt;
    SlurmJob job;
    job.id = id;
    if (job.id.find_first_not_of("0123456789") != std::string::npos)
        throw InputError("the environment variable SLURM_JOB_ID is '" + job.id + "' (expected a job id)");
    if (const char* restarts = std::getenv("SLURM_RESTART_COUNT"); restarts && *restarts) {
        char* end = nullptr;
        job.restarts = std::strtoll(restarts, &end, 10);
        if (*end != '\0' || job.restarts < 0)
            throw InputError("the environment variable SLURM_RESTART_COUNT is '" + std::string(restarts) +
                             "' (expected how often Slurm started the job again)");
    }
    return job;
}

bool continuesRequeuedRun(const std::string& runDir) {
    const auto job = slurmJobFromEnvironment();
    if (!job || job->restarts == 0 || !isRunFolder(runDir)) return false;
    const auto runJson = (fs::path(runDir) / runfiles::kRun).string();
    return RunInfo::fromJson(readFile(runJson), runJson).slurmJob == job->id;
}

void requeueSlurmJob(const SlurmJob& job, const std::string& scratch) {
    const std::string scontrol = onPath("scontrol");
    if (scontrol.empty()) throw TrainingError("scontrol is not on PATH: the job cannot queue itself again");
    std::signal(SIGTERM, SIG_IGN);
    slurmCommand({scontrol, "requeue", job.id}, scratch, /*endsThisJob=*/true);
}

}  // namespace wb
