// Training under a real Slurm (issue #64): the tasks of an srun step are the ranks of a data-parallel job,
// their rank, world size and rank 0's address taken from Slurm and the job's secret from a file only its
// owner may read; a sweep's cells submitted as batch jobs train what they train here. Runs inside the cluster
// that tests/slurm_test.sh starts (munged, slurmctld and slurmd from Debian's packages, in a folder of their
// own; SLURM_CONF names it) and skips by name without it.
#include <sys/stat.h>

#include <functional>

#include "DistributedSupport.h"
#include "workbench/domain/Sweep.h"

namespace fs = std::filesystem;
using wbtest::shellQuote;
using namespace wbtest::distributed;

namespace {

class Slurm : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::getenv("SLURM_CONF"))
            GTEST_SKIP() << "needs the Slurm cluster of tests/slurm_test.sh (the ctest SlurmCluster)";
        wbtest::writeText(m_dir.path() / "pattern.txt", wbtest::patternText(400));
        // The job's secret, as the documented sbatch script makes it: a file only its owner reads.
        wbtest::writeText(m_dir.path() / "secret", "slurm-test-job-secret-0123456789\n");
        chmod(m_dir.file("secret").c_str(), 0600);
    }
    std::string corpus() const { return shellQuote(m_dir.file("pattern.txt")); }
    fs::path run(const char* name) const { return m_dir.path() / name; }

    // `srun ARGS lstm-workbench-cli train ...`: its exit code, its output and its error output. Tasks may
    // outnumber the node's cores (--overcommit), and a step the cluster cannot run fails within two minutes
    // instead of waiting (--immediate).
    wbtest::CliResult srunTrain(const std::string& srunArgs, const std::string& trainArgs) const {
        const std::string command =
            "srun --quiet --overcommit --immediate=120 " + srunArgs +
            " --export=ALL,LSTM_WORKBENCH_JOB_SECRET_FILE=" + shellQuote(m_dir.file("secret")) + " " +
            wbtest::cliProgram() + " train " + corpus() + " " + trainArgs + " 2>" +
            shellQuote(m_dir.file("srun.err"));
        wbtest::CliResult r;
        FILE* pipe = popen(command.c_str(), "r");
        if (!pipe) return r;
        char buf[4096];
        for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) r.out.append(buf, n);
        const int status = pclose(pipe);
        r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
        r.err = wbtest::readText(m_dir.file("srun.err"));
        return r;
    }

    // The sweeps' batch jobs the cluster knows (ended ones stay listed for MinJobAge, 300 s).
    static int cellJobs() {
        const std::string out = wbtest::commandOutput("scontrol show job -o 2>/dev/null");
        int jobs = 0;
        for (std::size_t at = out.find("JobName=lstm-workbench-cell"); at != std::string::npos;
             at = out.find("JobName=lstm-workbench-cell", at + 1))
            ++jobs;
        return jobs;
    }

    // A batch job's field from `scontrol show job -o ID` ("JobState", "Restarts"); "" once the cluster has
    // forgotten it.
    static std::string jobField(const std::string& id, const std::string& key) {
        const std::string out = wbtest::commandOutput("scontrol show job -o " + id + " 2>/dev/null");
        const auto at = out.find(" " + key + "=");
        if (at == std::string::npos) return {};
        const auto start = at + key.size() + 2;
        return out.substr(start, out.find_first_of(" \n", start) - start);
    }
    static bool waitForJob(const std::string& id, const std::function<bool()>& done, int seconds) {
        for (int tick = 0; tick < seconds * 10; ++tick) {
            if (done()) return true;
            usleep(100000);
        }
        return false;
    }

    // A job its run queued again: once Slurm holds it (pending, BeginTime: about two minutes after a
    // requeue), the test's cluster lets it go after two seconds. Not at once: each slurmd revokes the killed
    // job's credential at a time in whole seconds and refuses a new one issued in that same second ("Job
    // credential revoked", the job then fails). Slurm's own two-minute hold is what spares real clusters
    // this; a release 0.6 s after the requeue failed one CI run in this way.
    static bool releaseRequeued(const std::string& id) {
        if (!waitForJob(
                id,
                [&] {
                    return jobField(id, "Restarts") == "1" && jobField(id, "JobState") == "PENDING" &&
                           jobField(id, "Reason") == "BeginTime";
                },
                60))
            return false;
        sleep(2);
        return std::system(("scontrol update JobId=" + id + " StartTime=now").c_str()) == 0;
    }

    wbtest::TempDir m_dir;
};

}  // namespace

TEST_F(Slurm, TwoTasksOfAnSrunStepTrainTheLossesOfTwoLocalProcesses) {
    const std::string args = kSgdModel + " --batch-size 12 --max-steps 40 --validate-every 10";
    auto local = wbtest::runCli("train " + corpus() + " --out " + shellQuote(run("local").string()) + args +
                                " --nproc 2");
    ASSERT_EQ(local.code, 0) << local.err;
    auto step = srunTrain("-n 2", "--out " + shellQuote(run("slurm").string()) + args);
    ASSERT_EQ(step.code, 0) << step.err;
    expectSameLosses(run("local"), run("slurm"));
    const auto info = runJson(run("slurm"));
    EXPECT_EQ(info["world_size"], 2);
    EXPECT_EQ(info["hosts"].size(), 2u);
}

// Two nodes, one task each: rank 1 finds rank 0 on the step's first node by its name, over the cluster's
// network; the losses are those of two processes on one machine.
TEST_F(Slurm, TwoNodesOfAnSrunStepTrainTheLossesOfTwoLocalProcesses) {
    const std::string args = kSgdModel + " --batch-size 12 --max-steps 40 --validate-every 10";
    auto local = wbtest::runCli("train " + corpus() + " --out " + shellQuote(run("local").string()) + args +
                                " --nproc 2");
    ASSERT_EQ(local.code, 0) << local.err;
    auto step = srunTrain("-N 2 --ntasks-per-node=1", "--out " + shellQuote(run("slurm").string()) + args);
    ASSERT_EQ(step.code, 0) << step.err;
    expectSameLosses(run("local"), run("slurm"));
    const auto info = runJson(run("slurm"));
    EXPECT_EQ(info["world_size"], 2);
    EXPECT_EQ(info["hosts"], nlohmann::json::array({"wbn1", "wbn2"})) << "one rank on each node";
}

TEST_F(Slurm, ASecretFileOthersCanReadIsRefusedByEveryTaskInOneLine) {
    chmod(m_dir.file("secret").c_str(), 0644);
    auto step = srunTrain("-n 2", "--out " + shellQuote(run("refused").string()) + " --max-steps 2 --quiet");
    EXPECT_NE(step.code, 0);
    EXPECT_NE(step.err.find("may be read by others"), std::string::npos) << step.err;
    EXPECT_FALSE(fs::exists(run("refused") / "run.json"));
}

// `sweep --on slurm`: every cell a batch job of the cluster, each run the one the same sweep trains on this
// machine (same seeds, same losses), and the sweep's files as a local sweep writes them.
TEST_F(Slurm, AFourCellSweepOnTheClusterTrainsTheRunsOfTheSameSweepHere) {
    const std::string grid =
        " --grid hidden=8,12 --grid batch_size=4,8 --max-steps 6 --validate-every 3" + kShape + " --quiet";
    auto here = wbtest::runCli("sweep " + corpus() + " --out " + shellQuote(run("here").string()) + grid);
    ASSERT_EQ(here.code, 0) << here.err;
    auto there = wbtest::runCli("sweep " + corpus() + " --out " + shellQuote(run("there").string()) + grid +
                                " --on slurm --time 10:00");
    ASSERT_EQ(there.code, 0) << there.err;
    const auto sweep = wb::loadSweep(run("there").string());
    ASSERT_EQ(sweep.cells.size(), 4u);
    for (const auto& cell : sweep.cells) {
        EXPECT_EQ(cell.state, wb::CellState::Done) << sweep.describe(cell) << ": " << cell.error;
        expectSameLosses(run("here") / cell.runDir, run("there") / cell.runDir);
    }
    EXPECT_TRUE(fs::exists(run("there") / "results.csv"));
    EXPECT_EQ(cellJobs(), 4) << "each cell a batch job of the cluster";
    for (const auto& entry : fs::directory_iterator(run("there")))
        EXPECT_NE(entry.path().filename().string().rfind(".cell-", 0), 0u) << entry.path();
}

// Ctrl+C on a sweep on the cluster: the running cell's job gets SIGINT and is queued again, the done cell
// stays done; the resumed sweep submits only the cell not done, and the done cell's run is left as it was.
TEST_F(Slurm, ASweepStoppedOnTheClusterResumesWithoutRunningItsDoneCellAgain) {
    const std::string dir = run("stopped").string();
    const int before = cellJobs();
    // Its pid is the shell's, written before the shell becomes the sweep (exec).
    auto* sweep = popen(
        ("echo $$ > " + shellQuote(m_dir.file("sweep.pid")) + "; exec " + std::string(wbtest::cliProgram()) +
         " sweep " + corpus() + " --out " + shellQuote(dir) + " --grid max_steps=4,4000 --validate-every 0" +
         kShape + " --on slurm 2>" + shellQuote(m_dir.file("sweep.err")))
            .c_str(),
        "r");
    ASSERT_TRUE(sweep);
    const auto stateOf = [&](int cell) {
        try {
            return wb::loadSweep(dir).cells.at(std::size_t(cell)).state;
        } catch (const std::exception&) {
            return wb::CellState::Queued;
        }
    };
    for (int tick = 0;
         tick < 1200 && !(stateOf(0) == wb::CellState::Done && stateOf(1) == wb::CellState::Running); ++tick)
        usleep(100000);
    ASSERT_EQ(stateOf(0), wb::CellState::Done);
    ASSERT_EQ(stateOf(1), wb::CellState::Running);
    // Stopped once its `train` writes its first records: its 4000 steps take seconds more (this whole test,
    // which trains them twice, took 10-11 s on an idle Zen 5), where the stop reaches it within about half a
    // second (the launcher's poll, scancel, a batch).
    const auto records = fs::path(dir) / wb::loadSweep(dir).cells[1].runDir / "metrics.csv";
    for (int tick = 0; tick < 1200 && !fs::exists(records); ++tick) usleep(50000);
    ASSERT_TRUE(fs::exists(records));
    ASSERT_EQ(kill(std::stoi(wbtest::readText(m_dir.file("sweep.pid"))), SIGINT), 0);
    char buf[4096];  // read to its end before pclose, which would close the pipe under its last line
    while (fread(buf, 1, sizeof buf, sweep) > 0) {
    }
    const int code = pclose(sweep);
    EXPECT_TRUE(WIFEXITED(code) && WEXITSTATUS(code) == 130)
        << code << ": " << wbtest::readText(m_dir.file("sweep.err"));
    EXPECT_EQ(stateOf(1), wb::CellState::Queued) << "stopped, to be trained again";
    const auto doneRun = fs::path(dir) / wb::loadSweep(dir).cells[0].runDir / "run.json";
    const std::string doneBefore = wbtest::readText(doneRun);

    auto resumed = wbtest::runCli("sweep " + shellQuote(dir) + " --on slurm --quiet");
    ASSERT_EQ(resumed.code, 0) << resumed.err;
    EXPECT_EQ(stateOf(1), wb::CellState::Done);
    EXPECT_EQ(wbtest::readText(doneRun), doneBefore) << "the done cell is not trained again";
    EXPECT_EQ(cellJobs() - before, 3) << "two cells submitted, then only the one not done";
}

// The time limit's warning mid-run (the SIGUSR1 that sbatch --signal=B:USR1@SECONDS sends the batch shell,
// here the `train` the script execs): the run saves its checkpoint and queues its job again; Slurm starts the
// script again, and the same `train --out` continues the run to the losses of a run never stopped.
TEST_F(Slurm, ARunWarnedOfItsTimeLimitRequeuesItsJobAndEndsWithTheLossesOfARunNeverStopped) {
    // A train-loss record every 3 steps: a stop inside a record's window is carried over the requeue too.
    std::string args = kModel + " --batch-size 12 --max-steps 3000 --validate-every 100";
    args.replace(args.find("--log-every 2"), 13, "--log-every 3");
    auto whole = wbtest::runCli("train " + corpus() + " --out " + shellQuote(run("whole").string()) + args);
    ASSERT_EQ(whole.code, 0) << whole.err;
    wbtest::writeText(m_dir.path() / "job.sh", "#!/bin/sh\nexec " + std::string(wbtest::cliProgram()) +
                                                   " train " + corpus() + " --out " +
                                                   shellQuote(run("requeued").string()) + args + "\n");
    std::string id =
        wbtest::commandOutput("sbatch --parsable --requeue --open-mode=append --output=/dev/null --error=" +
                              shellQuote(m_dir.file("job.err")) + " " + shellQuote(m_dir.file("job.sh")));
    id = id.substr(0, id.find_first_of(";\n"));
    ASSERT_FALSE(id.empty());
    // Warned once it trains (its first records written; 3000 steps take seconds more).
    ASSERT_TRUE(waitForJob(
        id, [&] { return fs::exists(run("requeued") / "metrics.csv"); }, 120))
        << wbtest::readText(m_dir.file("job.err"));
    ASSERT_EQ(std::system(("scancel --batch --signal=USR1 " + id).c_str()), 0);
    ASSERT_TRUE(waitForJob(
        id, [&] { return jobField(id, "Restarts") == "1"; }, 60))
        << wbtest::readText(m_dir.file("job.err"));
    const auto stopped = runJson(run("requeued"));
    EXPECT_EQ(stopped["status"], "stopped");
    EXPECT_EQ(stopped["slurm_job"], id);
    const auto stoppedAt = stopped["summary"]["steps"].get<std::int64_t>();
    EXPECT_GT(stoppedAt, 0);
    EXPECT_LT(stoppedAt, 3000) << "warned mid-run";
    ASSERT_TRUE(releaseRequeued(id)) << jobField(id, "JobState") << " (" << jobField(id, "Reason") << ")";
    ASSERT_TRUE(waitForJob(
        id, [&] { return jobField(id, "JobState") == "COMPLETED"; }, 120))
        << jobField(id, "JobState") << " (" << jobField(id, "Reason") << ", exit " << jobField(id, "ExitCode")
        << ", on " << jobField(id, "BatchHost") << "): " << wbtest::readText(m_dir.file("job.err"));
    const std::string log = wbtest::readText(m_dir.file("job.err"));
    EXPECT_NE(log.find("queued again"), std::string::npos) << log;
    EXPECT_NE(log.find("continuing the run from step " + std::to_string(stoppedAt)), std::string::npos)
        << log;
    const auto ended = runJson(run("requeued"));
    EXPECT_EQ(ended["status"], "completed");
    EXPECT_EQ(ended["summary"]["steps"], 3000);
    // Exact resume: the same losses, digit for digit, as the run never stopped.
    const auto requeued = losses(run("requeued")), never = losses(run("whole"));
    EXPECT_EQ(requeued.size(), never.size());
    int differ = 0;
    for (const auto& [key, value] : never) {
        if (requeued.count(key) && requeued.at(key) == value) continue;
        ADD_FAILURE() << key << ": " << value << " never stopped, "
                      << (requeued.count(key) ? std::to_string(requeued.at(key)) : "none")
                      << " requeued at step " << stoppedAt;
        if (++differ == 5) break;
    }
    EXPECT_FALSE(fs::exists(run("requeued") / ".scontrol-requeue.out"));
}

// The documented batch script (scripts/slurm/poems-two-nodes.sbatch) on the cluster's two nodes, warned of
// its time limit mid-run: every rank stops at one step, rank 0 queues the job again, and the restarted
// script's srun continues the run: the losses of two processes never stopped, and one rank on each node.
TEST_F(Slurm, TheDocumentedTwoNodeScriptRequeuedMidRunEndsWithTheLossesOfARunNeverStopped) {
    std::string args = kSgdModel + " --batch-size 12 --max-steps 1500 --validate-every 100";
    args.replace(args.find(" --threads 1"), 12, "");  // the script gives --threads
    auto local = wbtest::runCli("train " + corpus() + " --out " + shellQuote(run("local").string()) + args +
                                " --nproc 2 --threads 1");
    ASSERT_EQ(local.code, 0) << local.err;
    const fs::path home = m_dir.path() / "home";
    fs::create_directories(home);
    const std::string script = wbtest::sourcePath("scripts/slurm/poems-two-nodes.sbatch");
    std::string id;
    // The cluster's nodes have the machine's cores (fewer than the script's 8), and a time limit of ten
    // minutes is the cluster's to give.
    const std::string submit =
        "HOME=" + shellQuote(home.string()) + " LSTM_WORKBENCH_CORPUS=" + corpus() +
        " PATH=" + shellQuote(fs::path(wbtest::cliProgram()).parent_path().string()) +
        ":$PATH sbatch --parsable --cpus-per-task=1 --time=10 --output=" + shellQuote(m_dir.file("job.out")) +
        " " + shellQuote(script) + args;
    id = wbtest::commandOutput(submit);
    id = id.substr(0, id.find_first_of(";\n"));
    ASSERT_FALSE(id.empty()) << submit;
    const fs::path out = home / "runs" / ("poems-2nodes-" + id);
    ASSERT_TRUE(waitForJob(
        id, [&] { return fs::exists(out / "metrics.csv"); }, 120))
        << wbtest::readText(m_dir.file("job.out"));
    ASSERT_EQ(std::system(("scancel --signal=USR1 " + id).c_str()), 0);  // every task of the job's steps
    ASSERT_TRUE(waitForJob(
        id, [&] { return jobField(id, "Restarts") == "1"; }, 60))
        << wbtest::readText(m_dir.file("job.out"));
    const auto stoppedAt = runJson(out)["summary"]["steps"].get<std::int64_t>();
    EXPECT_LT(stoppedAt, 1500) << "warned mid-run";
    ASSERT_TRUE(releaseRequeued(id)) << jobField(id, "JobState") << " (" << jobField(id, "Reason") << ")";
    ASSERT_TRUE(waitForJob(
        id, [&] { return jobField(id, "JobState") == "COMPLETED"; }, 120))
        << jobField(id, "JobState") << " (" << jobField(id, "Reason")
        << "): " << wbtest::readText(m_dir.file("job.out"));
    const std::string log = wbtest::readText(m_dir.file("job.out"));
    EXPECT_NE(log.find("continuing the run from step " + std::to_string(stoppedAt)), std::string::npos)
        << log;
    const auto info = runJson(out);
    EXPECT_EQ(info["status"], "completed");
    EXPECT_EQ(info["summary"]["steps"], 1500);
    EXPECT_EQ(info["hosts"], nlohmann::json::array({"wbn1", "wbn2"}));
    expectSameLosses(run("local"), out);
    EXPECT_FALSE(fs::exists(home / (".lstm-workbench-secret-" + id))) << "the job removes its secret";
}
