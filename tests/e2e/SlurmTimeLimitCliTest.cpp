// A `train` in a Slurm job warned of its time limit (SIGUSR1) queues its job again with `scontrol requeue`,
// and the controller then ends the job's processes with SIGTERM, this one and scontrol included, often before
// scontrol has exited. Here a scripted scontrol on PATH does what the controller does, at once: the run must
// live through it to say that the job was queued again and to remove scontrol's scratch files. Without a
// cluster (tests/e2e/SlurmTest.cpp has the real one, release only), so it runs under the sanitizers too.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "CliRunner.h"
#include "support/TestSupport.h"

namespace fs = std::filesystem;
using nlohmann::json;
using wbtest::quote;
using namespace std::chrono_literals;

namespace {

// Steps enough to be warned mid-run (each a few milliseconds), a checkpoint every two.
const char* kWarnedRun =
    " --seq-len 16 --embedding 8 --hidden 16 --layers 1 --batch-size 8 --lr 0.01 --threads 1 --dropout 0"
    " --max-steps 200000 --validate-every 2 --log-every 1 --warmup 0 --quiet";

// Starts `sh -c COMMAND` and returns its pid (the shell execs the CLI, so the pid is the CLI's).
pid_t startTrainShell(const std::string& command) {
    const pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    return pid;
}

// Waits up to `limit` for the child to end; kills it when it does not. Its wait status, or -1.
int waitTrainEnded(pid_t pid, std::chrono::seconds limit) {
    int status = 0;
    for (auto waited = 0ms; waited < limit; waited += 50ms) {
        if (waitpid(pid, &status, WNOHANG) == pid) return status;
        std::this_thread::sleep_for(50ms);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

}  // namespace

TEST(SlurmTimeLimitCli, ARunWhoseRequeueEndsItsJobAtOnceSaysSoAndLeavesNoScratch) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(60));
    const auto run = dir.path() / "run";
    // The controller's end of the job, before scontrol's own exit: SIGTERM to the job's processes.
    fs::create_directories(dir.path() / "bin");
    const auto scontrol = dir.path() / "bin" / "scontrol";
    wbtest::writeText(scontrol, "#!/bin/sh\necho \"$*\" >> " + quote(dir.file("scontrol.calls")) +
                                    "\nkill -TERM $PPID $$\nsleep 0.2\necho requeued\n");
    chmod(scontrol.c_str(), 0755);

    const pid_t pid =
        startTrainShell("PATH=" + quote((dir.path() / "bin").string()) + ":\"$PATH\" SLURM_JOB_ID=4711 " +
                        "SLURM_RESTART_COUNT= LSTM_WORKBENCH_BASELINE_CACHE= exec " + wbtest::cliProgram() +
                        " train " + quote(dir.file("pattern.txt")) + " --out " + quote(run.string()) +
                        kWarnedRun + " 2>" + quote(dir.file("train.err")));
    // Warned once it trains: its first records written.
    bool training = false;
    for (int i = 0; i < 1200 && !training; ++i) {
        training = fs::exists(run / "metrics.csv");
        if (!training) std::this_thread::sleep_for(50ms);
    }
    if (training) kill(pid, SIGUSR1);
    const int status = waitTrainEnded(pid, 120s);
    ASSERT_TRUE(training) << wbtest::readText(dir.file("train.err"));
    const std::string err = wbtest::readText(dir.file("train.err"));
    ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : -1)
                                   << ": " << err;
    EXPECT_EQ(WEXITSTATUS(status), 130) << err;
    EXPECT_EQ(wbtest::readText(dir.file("scontrol.calls")), "requeue 4711\n");
    EXPECT_NE(err.find("job 4711 queued again"), std::string::npos) << err;
    const auto stopped = json::parse(wbtest::readText(run / "run.json"));
    EXPECT_EQ(stopped["status"], "stopped");
    EXPECT_EQ(stopped["slurm_job"], "4711");
    for (const auto& entry : fs::directory_iterator(run))
        EXPECT_EQ(entry.path().filename().string().rfind(".scontrol", 0), std::string::npos) << entry.path();
}
