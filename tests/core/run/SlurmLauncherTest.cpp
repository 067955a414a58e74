// The sweep's Slurm launcher (makeSlurmLauncher, core/engine/src/sweep/SlurmLauncher.cpp) against sbatch,
// scontrol and scancel written here as shell scripts: what a cell's job asks the scheduler for, the
// scheduler's words a cell shows until its job ends, how it ended, and what a stop and a kill send. It runs
// in every build, the sanitizers' included; the real scheduler (munge, slurmctld, two slurmd) is the e2e
// suite SlurmCluster's subject (tests/e2e/SlurmTest.cpp), which the release suite runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "support/BadInputs.h"
#include "support/TestSupport.h"
#include "workbench/domain/Config.h"
#include "workbench/domain/DeviceSpec.h"
#include "workbench/domain/Errors.h"
#include "workbench/engine/SweepRun.h"

namespace fs = std::filesystem;

namespace {

// A cluster of three scripts in a folder put first on PATH. sbatch records its arguments (one a line) and
// prints "ID;cluster" as `--parsable` does, or fails with a message the test gives; each `scontrol show job
// -o` prints the next of the lines the test scripted (the last one again once they run out), or fails while
// a file says so; scancel appends its arguments to a log.
class FakeCluster {
public:
    FakeCluster() {
        const auto bin = m_dir.path() / "bin";
        fs::create_directories(bin);
        script(bin / "sbatch", R"(n=$(($(cat "$S/submitted" 2>/dev/null || echo 0) + 1))
if [ -f "$S/sbatch-fails" ]; then cat "$S/sbatch-fails" >&2; exit 1; fi
echo $n > "$S/submitted"
printf '%s\n' "$@" > "$S/sbatch-args.$n"
if [ -f "$S/sbatch-prints" ]; then cat "$S/sbatch-prints"; exit 0; fi
echo "$((4710 + n));cluster"
)");
        script(bin / "scontrol",
               R"([ "$*" = 'show job -o' ] || { echo "scontrol: unexpected: $*" >&2; exit 2; }
if [ -f "$S/scontrol-fails" ]; then
    rm "$S/scontrol-fails"; echo 'slurm_load_jobs error: Socket timed out' >&2; exit 1
fi
k=$(($(cat "$S/polls" 2>/dev/null || echo 0) + 1)); echo $k > "$S/polls"
while [ $k -gt 1 ] && [ ! -f "$S/poll.$k" ]; do k=$((k - 1)); done
cat "$S/poll.$k" 2>/dev/null || true
)");
        script(bin / "scancel", R"(echo "$*" >> "$S/scancel.log"
)");
        m_path = std::make_unique<wbtest::ScopedEnv>(
            std::map<std::string, std::string>{{"PATH", bin.string() + ":" + std::getenv("PATH")}});
    }

    // What the Kth `scontrol show job -o` prints (K from 1).
    void poll(int k, const std::string& lines) const {
        wbtest::writeText(state("poll") + "." + std::to_string(k), lines);
    }
    void sbatchFails(const std::string& message) const { wbtest::writeText(state("sbatch-fails"), message); }
    void sbatchPrints(const std::string& text) const { wbtest::writeText(state("sbatch-prints"), text); }
    void scontrolFailsOnce() const { wbtest::writeText(state("scontrol-fails"), ""); }

    std::vector<std::string> sbatchArgs(int n) const {
        return lines(state("sbatch-args") + "." + std::to_string(n));
    }
    std::vector<std::string> scancels() const { return lines(state("scancel.log")); }
    int polls() const { return fs::exists(state("polls")) ? std::stoi(wbtest::readText(state("polls"))) : 0; }

    // A cell's files, as the sweep makes them: its config (on DEVICE) in a cell folder.
    wb::CellJob cell(const std::string& name, const std::string& device) const {
        const auto dir = m_dir.path() / "sweep" / name;
        fs::create_directories(dir);
        auto config = wb::defaultConfig(wb::Task::LanguageModel);
        config.device.spec = wb::DeviceSpec::parse(device);
        wb::CellJob job;
        job.corpus = "tang-quatrains-7";
        job.runDir = (dir / "run").string();
        job.configFile = (dir / "config.json").string();
        job.errorFile = (dir / "train.err").string();
        wbtest::writeText(job.configFile, config.toJson());
        return job;
    }

private:
    std::string state(const std::string& name) const { return (m_dir.path() / name).string(); }
    // A script whose $S is the folder of the cluster's state (a temporary folder: no quote in its name).
    void script(const fs::path& path, const std::string& body) const {
        wbtest::writeText(path, "#!/bin/sh\nS='" + m_dir.path().string() + "'\n" + body);
        fs::permissions(path, fs::perms::owner_all);
    }
    static std::vector<std::string> lines(const std::string& file) {
        std::vector<std::string> out;
        std::ifstream in(file);
        for (std::string line; std::getline(in, line);) out.push_back(line);
        return out;
    }

    wbtest::TempDir m_dir;
    std::unique_ptr<wbtest::ScopedEnv> m_path;
};

bool has(const std::vector<std::string>& args, const std::string& arg) {
    return std::find(args.begin(), args.end(), arg) != args.end();
}

const std::string kProgram = "/opt/lstm workbench/lstm-workbench-cli";  // a space, quoted in the script

}  // namespace

TEST(SlurmLauncher, ACellsJobAsksForItsDevicesCpusAndTheSweepsSettingsAndRunsItsTrain) {
    FakeCluster cluster;
    auto launcher = wb::makeSlurmLauncher(kProgram, {"debug", "lab", "1:00:00"});
    const auto job = cluster.cell("cell-1", "cpu:3");
    launcher->start(job);
    const auto args = cluster.sbatchArgs(1);
    for (const auto* expected : {"--parsable", "--ntasks=1", "--cpus-per-task=3", "--partition=debug",
                                 "--account=lab", "--requeue", "--time=1:00:00", "--signal=B:USR1@90"})
        EXPECT_TRUE(has(args, expected)) << expected;
    EXPECT_TRUE(has(args, "--error=" + job.errorFile));
    ASSERT_FALSE(args.empty());
    EXPECT_EQ(args.back(), job.configFile + ".sbatch");
    const auto script = wbtest::readText(args.back());
    EXPECT_NE(script.find("exec '" + kProgram + "' train 'tang-quatrains-7' --out '" + job.runDir +
                          "' --config '" + job.configFile + "' --quiet"),
              std::string::npos)
        << script;

    // A GPU cell asks for a GPU and no CPUs; without settings, the partition's own limits.
    auto plain = wb::makeSlurmLauncher(kProgram, {});
    plain->start(cluster.cell("cell-2", "cuda:0"));
    const auto gpu = cluster.sbatchArgs(2);
    EXPECT_TRUE(has(gpu, "--gres=gpu:1"));
    for (const auto& arg : gpu)
        for (const auto* absent : {"--cpus-per-task", "--partition", "--account", "--time", "--signal"})
            EXPECT_NE(arg.rfind(absent, 0), 0u) << arg;
}

TEST(SlurmLauncher, ACellShowsTheSchedulersWordsUntilItsJobEndsWithItsExitCode) {
    FakeCluster cluster;
    cluster.poll(1, "JobId=4711 JobName=lstm-workbench-cell JobState=PENDING Reason=Resources Restarts=0\n");
    cluster.poll(
        2, "JobId=4711 JobState=RUNNING Reason=None Restarts=0\nJobId=99 JobState=RUNNING Reason=None\n");
    cluster.poll(3, "JobId=4711 JobState=COMPLETED Reason=None Restarts=0 ExitCode=0:0\n");
    auto launcher = wb::makeSlurmLauncher(kProgram, {});
    std::vector<std::string> heard;
    launcher->setStateListener([&](int, const std::string& state) { heard.push_back(state); });
    const auto job = cluster.cell("cell-1", "cpu");
    const int handle = launcher->start(job);
    const auto [ended, end] = launcher->waitForAnEnd();
    EXPECT_EQ(ended, handle);
    EXPECT_EQ(end.code, 0);
    EXPECT_EQ(end.error, "");
    EXPECT_EQ(heard, (std::vector<std::string>{"pending (Resources)", "running"}));
    EXPECT_FALSE(fs::exists(job.configFile + ".sbatch")) << "an ended cell's script is removed";
    EXPECT_TRUE(cluster.scancels().empty());
}

TEST(SlurmLauncher, AFailedJobEndsWithItsTrainsErrorLineOrElseTheSchedulersStateAndReason) {
    FakeCluster cluster;
    cluster.poll(1,
                 "JobId=4711 JobState=FAILED Reason=NonZeroExitCode ExitCode=2:0\n"
                 "JobId=4712 JobState=NODE_FAIL Reason=NodeDown ExitCode=0:9\n");
    auto launcher = wb::makeSlurmLauncher(kProgram, {});
    const auto first = cluster.cell("cell-1", "cpu"), second = cluster.cell("cell-2", "cpu");
    wbtest::writeText(first.errorFile, std::string(wb::kCliErrorPrefix) + "the corpus is empty\nmore\n");
    const int a = launcher->start(first), b = launcher->start(second);
    std::map<int, wb::CellEnd> ends;
    for (int i = 0; i < 2; ++i) ends.insert(launcher->waitForAnEnd());
    EXPECT_EQ(ends.at(a).code, 2);
    EXPECT_EQ(ends.at(a).error, "the corpus is empty");
    EXPECT_EQ(ends.at(b).code, 128 + 9) << "a signal that ended the job";
    EXPECT_EQ(ends.at(b).error, "its Slurm job 4712 ended NODE_FAIL (NodeDown)");
}

TEST(SlurmLauncher, AStopCancelsPendingJobsAndInterruptsRunningOnesAKillCancelsAtOnce) {
    FakeCluster cluster;
    cluster.poll(1, "JobId=4711 JobState=RUNNING Reason=None\n");
    cluster.poll(2, "JobId=4711 JobState=CANCELLED Reason=None ExitCode=0:15\n");
    auto launcher = wb::makeSlurmLauncher(kProgram, {});
    launcher->start(cluster.cell("cell-1", "cpu"));
    launcher->stop();
    auto [handle, end] = launcher->waitForAnEnd();
    EXPECT_EQ(end.code, wb::kStoppedCode) << "a cell cancelled as asked is stopped, redone on resume";
    EXPECT_EQ(cluster.scancels(),
              (std::vector<std::string>{"--quiet --state=PENDING 4711",
                                        "--quiet --state=RUNNING --batch --signal=INT 4711"}));
    // A cell started after the stop is cancelled as it is submitted; a kill then cancels it outright.
    cluster.poll(3, "JobId=4712 JobState=CANCELLED Reason=None ExitCode=0:9\n");
    launcher->start(cluster.cell("cell-2", "cpu"));
    EXPECT_EQ(cluster.scancels().size(), 4u);
    launcher->kill();
    std::tie(handle, end) = launcher->waitForAnEnd();
    EXPECT_EQ(end.code, wb::kStoppedCode);
    ASSERT_EQ(cluster.scancels().size(), 5u);
    EXPECT_EQ(cluster.scancels().back(), "--quiet 4712");
}

TEST(SlurmLauncher, AControllerThatDoesNotAnswerIsAskedAgain) {
    FakeCluster cluster;
    cluster.poll(1, "JobId=4711 JobState=COMPLETED Reason=None ExitCode=0:0\n");
    cluster.scontrolFailsOnce();
    auto launcher = wb::makeSlurmLauncher(kProgram, {});
    launcher->start(cluster.cell("cell-1", "cpu"));
    EXPECT_EQ(launcher->waitForAnEnd().second.code, 0);
    EXPECT_EQ(cluster.polls(), 1) << "the failed call counted no poll; the next one was answered";
}

TEST(SlurmLauncher, SbatchsRefusalOrAnAnswerWithoutAJobIdIsATrainingErrorWithItsWords) {
    FakeCluster cluster;
    auto launcher = wb::makeSlurmLauncher(kProgram, {});
    cluster.sbatchPrints("Submitted batch job\n");
    try {
        launcher->start(cluster.cell("cell-1", "cpu"));
        ADD_FAILURE() << "an answer without an id was taken";
    } catch (const wb::TrainingError& e) {
        EXPECT_NE(std::string(e.what()).find("sbatch printed no job id"), std::string::npos) << e.what();
    }
    cluster.sbatchFails("sbatch: error: invalid partition specified: gpu\n");
    try {
        launcher->start(cluster.cell("cell-2", "cpu"));
        ADD_FAILURE() << "a refused submission was taken";
    } catch (const wb::TrainingError& e) {
        EXPECT_NE(std::string(e.what()).find("invalid partition specified: gpu"), std::string::npos)
            << e.what();
    }
}

TEST(SlurmLauncher, WithoutSlurmsCommandsOnPathItSaysToSubmitFromTheCluster) {
    const wbtest::TempDir empty;
    const wbtest::ScopedEnv env({{"PATH", empty.path().string()}});
    try {
        wb::makeSlurmLauncher(kProgram, {});
        ADD_FAILURE() << "made without sbatch";
    } catch (const wb::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("sbatch is not on PATH"), std::string::npos) << e.what();
    }
}
