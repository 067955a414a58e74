// The scheduler's words and exit codes the sweep's Slurm launcher reads from `scontrol show job -o`
// (core/engine/src/slurm/SlurmJobLine.h), on lines as Slurm 22.05 prints them (shortened). The launcher
// against a real cluster: tests/e2e/SlurmTest.cpp.
#include <gtest/gtest.h>

#include "slurm/SlurmJobLine.h"

using namespace wb::slurmline;

namespace {
std::string job(const std::string& fields) {
    return " JobId=7 JobName=lstm-workbench-cell UserId=root(0) Priority=1 " + fields +
           " RunTime=00:00:04 TimeLimit=00:10:00";
}
}  // namespace

TEST(SlurmJobLine, FieldsAreFoundByTheirWholeName) {
    const auto line = job("JobState=RUNNING Reason=None Restarts=0 ExitCode=0:0");
    EXPECT_EQ(field(line, "JobId"), "7");
    EXPECT_EQ(field(line, "JobState"), "RUNNING");
    EXPECT_EQ(field(line, "TimeLimit"), "00:10:00");
    EXPECT_EQ(field(line, "Id"), "") << "not the end of JobId";
    EXPECT_EQ(field(line, "Partition"), "");
}

TEST(SlurmJobLine, ACellShowsTheSchedulersWordsAndWhetherItWasRequeued) {
    EXPECT_EQ(schedulerWords(job("JobState=PENDING Reason=Resources Restarts=0")), "pending (Resources)");
    EXPECT_EQ(schedulerWords(job("JobState=RUNNING Reason=None Restarts=0")), "running");
    EXPECT_EQ(schedulerWords(job("JobState=PENDING Reason=BeginTime Restarts=1")),
              "requeued, pending (BeginTime)");
    EXPECT_EQ(schedulerWords(job("JobState=RUNNING Reason=None Restarts=2")), "requeued, running");
}

TEST(SlurmJobLine, OnlyTheStatesAJobDoesNotLeaveEndIt) {
    for (const char* state : {"PENDING", "RUNNING", "REQUEUED", "COMPLETING", "CONFIGURING", "SUSPENDED"})
        EXPECT_FALSE(ended(state)) << state;
    for (const char* state : {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"})
        EXPECT_TRUE(ended(state)) << state;
}

TEST(SlurmJobLine, AnEndedJobsExitCodeIsItsScriptsOrItsSignals) {
    EXPECT_EQ(exitCode(job("JobState=COMPLETED ExitCode=0:0")), 0);
    EXPECT_EQ(exitCode(job("JobState=FAILED ExitCode=2:0")), 2) << "train's own code (bad input)";
    EXPECT_EQ(exitCode(job("JobState=CANCELLED ExitCode=0:15")), 128 + 15) << "SIGTERM";
    EXPECT_EQ(exitCode(job("JobState=CANCELLED ExitCode=0:0")), 1) << "cancelled while pending";
}
