// Training under a real Slurm (issue #64): the tasks of an srun step are the ranks of a data-parallel job,
// their rank, world size and rank 0's address taken from Slurm and the job's secret from a file only its
// owner may read. Runs inside the cluster that tests/slurm_test.sh starts (munged, slurmctld and slurmd from
// Debian's packages, in a folder of their own; SLURM_CONF names it) and skips by name without it.
#include <sys/stat.h>

#include "DistributedSupport.h"

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

TEST_F(Slurm, ASecretFileOthersCanReadIsRefusedByEveryTaskInOneLine) {
    chmod(m_dir.file("secret").c_str(), 0644);
    auto step = srunTrain("-n 2", "--out " + shellQuote(run("refused").string()) + " --max-steps 2 --quiet");
    EXPECT_NE(step.code, 0);
    EXPECT_NE(step.err.find("may be read by others"), std::string::npos) << step.err;
    EXPECT_FALSE(fs::exists(run("refused") / "run.json"));
}
