// A run's Slurm job (workbench/engine/SlurmJob.h): which job this process belongs to, and when a `train`
// started again by Slurm continues the run in its --out folder. The requeue itself, against a real cluster,
// is tested end to end in tests/e2e/SlurmTest.cpp (tests/slurm_test.sh).
#include <gtest/gtest.h>

#include "support/BadInputs.h"
#include "support/TestSupport.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/SlurmJob.h"

namespace {

// A run folder whose run.json says which Slurm job trained it.
std::string runOfJob(const wbtest::TempDir& tmp, const std::string& job) {
    const auto dir = tmp.path() / "run";
    std::filesystem::create_directories(dir);
    wbtest::writeText(dir / wb::runfiles::kConfig, "{}\n");
    wb::RunInfo info;
    info.status = wb::RunStatus::Stopped;
    info.slurmJob = job;
    wbtest::writeText(dir / wb::runfiles::kRun, info.toJson());
    return dir.string();
}

}  // namespace

TEST(SlurmJob, OutsideSlurmThereIsNone) {
    const wbtest::ScopedEnv env({{"SLURM_JOB_ID", ""}, {"SLURM_RESTART_COUNT", ""}});
    EXPECT_FALSE(wb::slurmJobFromEnvironment());
}

TEST(SlurmJob, TheJobAndItsRestartsComeFromSlurmsVariables) {
    {
        const wbtest::ScopedEnv env({{"SLURM_JOB_ID", "4711"}, {"SLURM_RESTART_COUNT", ""}});
        const auto job = wb::slurmJobFromEnvironment();
        ASSERT_TRUE(job);
        EXPECT_EQ(job->id, "4711");
        EXPECT_EQ(job->restarts, 0) << "a first start has no SLURM_RESTART_COUNT";
    }
    const wbtest::ScopedEnv env({{"SLURM_JOB_ID", "4711"}, {"SLURM_RESTART_COUNT", "2"}});
    EXPECT_EQ(wb::slurmJobFromEnvironment()->restarts, 2);
}

TEST(SlurmJob, AVariableThatIsNoNumberIsRefusedByName) {
    for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
             {"SLURM_JOB_ID", "12;rm"}, {"SLURM_RESTART_COUNT", "-1"}, {"SLURM_RESTART_COUNT", "1x"}}) {
        std::map<std::string, std::string> vars = {{"SLURM_JOB_ID", "4711"}, {"SLURM_RESTART_COUNT", "1"}};
        vars[name] = value;
        const wbtest::ScopedEnv env(vars);
        try {
            wb::slurmJobFromEnvironment();
            ADD_FAILURE() << name << "=" << value << " was taken";
        } catch (const wb::InputError& e) {
            EXPECT_NE(std::string(e.what()).find(name + " is '" + value + "'"), std::string::npos)
                << e.what();
        }
    }
}

// Only the same job, started again, continues a run: a first start, another job or another folder is a new
// run (and `train` refuses a folder that exists, as it does outside Slurm).
TEST(SlurmJob, OnlyTheSameJobStartedAgainContinuesItsRun) {
    wbtest::TempDir tmp;
    const auto run = runOfJob(tmp, "4711");
    {
        const wbtest::ScopedEnv env({{"SLURM_JOB_ID", "4711"}, {"SLURM_RESTART_COUNT", "1"}});
        EXPECT_TRUE(wb::continuesRequeuedRun(run));
        EXPECT_FALSE(wb::continuesRequeuedRun((tmp.path() / "elsewhere").string()));
    }
    {
        const wbtest::ScopedEnv env({{"SLURM_JOB_ID", "4711"}, {"SLURM_RESTART_COUNT", ""}});
        EXPECT_FALSE(wb::continuesRequeuedRun(run)) << "a first start";
    }
    {
        const wbtest::ScopedEnv env({{"SLURM_JOB_ID", "4712"}, {"SLURM_RESTART_COUNT", "1"}});
        EXPECT_FALSE(wb::continuesRequeuedRun(run)) << "another job";
    }
    const wbtest::ScopedEnv env({{"SLURM_JOB_ID", ""}, {"SLURM_RESTART_COUNT", ""}});
    EXPECT_FALSE(wb::continuesRequeuedRun(run)) << "outside Slurm";
}

// run.json keeps the job (and reads back runs from before the field).
TEST(SlurmJob, RunJsonKeepsTheJob) {
    wb::RunInfo info;
    info.slurmJob = "4711";
    EXPECT_EQ(wb::RunInfo::fromJson(info.toJson(), "run.json").slurmJob, "4711");
    EXPECT_EQ(wb::RunInfo::fromJson("{\"status\": \"completed\"}", "run.json").slurmJob, "");
}
