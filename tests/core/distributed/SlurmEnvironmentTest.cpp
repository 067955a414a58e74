// A task of an srun step as a rank of a data-parallel job (workbench/engine/Distributed.h): the spec from
// Slurm's variables, a batch script's own shell left alone, the first host of a host list, the step's port,
// and the job's secret from a file only its owner may read. A real srun is tested end to end in
// tests/e2e/SlurmTest.cpp (tests/slurm_test.sh).
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "support/BadInputs.h"
#include "support/TestSupport.h"
#include "workbench/engine/Distributed.h"

namespace {

// What srun set for task 1 of a 4-task step over two nodes, two tasks each (no torchrun variables).
std::map<std::string, std::string> srunTask(const std::string& secretFile) {
    return {{"RANK", ""},
            {"WORLD_SIZE", ""},
            {"MASTER_ADDR", ""},
            {"MASTER_PORT", ""},
            {"LSTM_WORKBENCH_JOB_SECRET", ""},
            {"LSTM_WORKBENCH_JOB_SECRET_FILE", secretFile},
            {"SLURM_JOB_ID", "4711"},
            {"SLURM_STEP_ID", "2"},
            {"SLURM_NTASKS", "4"},
            {"SLURM_STEP_NUM_TASKS", "4"},
            {"SLURM_PROCID", "3"},
            {"SLURM_LOCALID", "1"},
            {"SLURM_NODEID", "1"},
            {"SLURM_STEP_TASKS_PER_NODE", "2(x2)"},
            {"SLURM_STEP_NODELIST", "node[07-08]"}};
}

std::string secretFile(const wbtest::TempDir& tmp, mode_t mode) {
    const auto file = tmp.file("secret");
    wbtest::writeText(file, "0123456789abcdef0123456789abcdef\n");
    chmod(file.c_str(), mode);
    return file;
}

}  // namespace

TEST(SlurmEnvironment, ATaskOfAnSrunStepIsARankOfTheJob) {
    wbtest::TempDir tmp;
    const wbtest::ScopedEnv env(srunTask(secretFile(tmp, 0600)));
    const auto spec = wb::distributedSpecFromEnvironment();
    ASSERT_TRUE(spec);
    EXPECT_EQ(spec->rank, 3);
    EXPECT_EQ(spec->worldSize, 4);
    EXPECT_EQ(spec->localRank, 1);
    EXPECT_EQ(spec->localWorldSize, 2);
    EXPECT_EQ(spec->masterAddr, "node07");
    EXPECT_EQ(spec->masterPort, wb::slurmStepPort(4711, 2));
    EXPECT_EQ(spec->secret, "0123456789abcdef0123456789abcdef");
}

TEST(SlurmEnvironment, TheBatchScriptsOwnShellAndAOneTaskStepTrainAlone) {
    wbtest::TempDir tmp;
    auto vars = srunTask(secretFile(tmp, 0600));
    vars["SLURM_STEP_NUM_TASKS"] = "";  // a batch script: the job's SLURM_NTASKS and SLURM_PROCID=0 only
    vars["SLURM_PROCID"] = "0";
    {
        const wbtest::ScopedEnv env(vars);
        EXPECT_FALSE(wb::distributedSpecFromEnvironment());
    }
    vars["SLURM_STEP_NUM_TASKS"] = "1";
    const wbtest::ScopedEnv env(vars);
    EXPECT_FALSE(wb::distributedSpecFromEnvironment());
}

TEST(SlurmEnvironment, TorchrunsVariablesAndMasterSettingsWin) {
    wbtest::TempDir tmp;
    auto vars = srunTask(secretFile(tmp, 0600));
    vars["MASTER_ADDR"] = "10.0.0.5";
    vars["MASTER_PORT"] = "29511";
    {
        const wbtest::ScopedEnv env(vars);
        const auto spec = wb::distributedSpecFromEnvironment();
        ASSERT_TRUE(spec);
        EXPECT_EQ(spec->masterAddr, "10.0.0.5");
        EXPECT_EQ(spec->masterPort, 29511);
    }
    vars["RANK"] = "0";
    vars["WORLD_SIZE"] = "2";
    const wbtest::ScopedEnv env(vars);
    const auto spec = wb::distributedSpecFromEnvironment();
    ASSERT_TRUE(spec);
    EXPECT_EQ(spec->worldSize, 2) << "torchrun's variables, not Slurm's";
}

TEST(SlurmEnvironment, ASecretOthersCanReadOrNoSecretIsRefusedInOneLine) {
    wbtest::TempDir tmp;
    {
        const wbtest::ScopedEnv env(srunTask(secretFile(tmp, 0644)));
        const auto why = wbtest::inputErrorOf([] { wb::distributedSpecFromEnvironment(); });
        EXPECT_NE(why.find("may be read by others"), std::string::npos) << why;
        EXPECT_EQ(why.find('\n'), std::string::npos) << why;
    }
    auto vars = srunTask("");
    const wbtest::ScopedEnv env(vars);
    const auto why = wbtest::inputErrorOf([] { wb::distributedSpecFromEnvironment(); });
    EXPECT_NE(why.find("LSTM_WORKBENCH_JOB_SECRET is not set"), std::string::npos) << why;
    EXPECT_NE(why.find("LSTM_WORKBENCH_JOB_SECRET_FILE"), std::string::npos) << why;
}

TEST(SlurmEnvironment, TheFirstHostOfAHostList) {
    EXPECT_EQ(wb::firstSlurmHost("vm"), "vm");
    EXPECT_EQ(wb::firstSlurmHost("node[01-03,07],gpu1"), "node01");
    EXPECT_EQ(wb::firstSlurmHost("node[7,3]"), "node7");
    EXPECT_EQ(wb::firstSlurmHost("a1,a2"), "a1");
    EXPECT_EQ(wb::firstSlurmHost("rack[2-3]-n[5,9]"), "rack2-n5");
    for (long long job : {0LL, 1LL, 4711LL, 99999999LL}) {
        EXPECT_GE(wb::slurmStepPort(job, 0), 20000);
        EXPECT_LE(wb::slurmStepPort(job, 7), 32767);
    }
    EXPECT_NE(wb::slurmStepPort(4711, 0), wb::slurmStepPort(4711, 1)) << "two steps of a job, two ports";
}
