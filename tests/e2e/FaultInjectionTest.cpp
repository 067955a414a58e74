// Faults during work, through lstm-workbench-cli with WORKBENCH_FAILPOINTS (core/src/io/Failpoints.h):
// the process is killed at every failpoint of a run in turn, and writes fail as on a full disk or a
// read-only folder. Whatever happens, the last good checkpoint must load and the run must resume to the
// same result as a run that was never interrupted.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "CliRunner.h"
#include "support/TestSupport.h"

namespace fs = std::filesystem;

namespace {
std::string quote(const std::string& s) { return wbtest::shellQuote(s); }

wbtest::CliResult cli(const std::string& args, const std::string& failpoints = "") {
    return wbtest::runCli(args, failpoints.empty() ? "" : "WORKBENCH_FAILPOINTS=" + quote(failpoints) + " ");
}

// Four steps, validation (and so a checkpoint) every two: two checkpoints, the second replacing the first.
const char* kRun =
    " --seq-len 16 --embedding 8 --hidden 16 --layers 1 --batch-size 8 --lr 0.01 --threads 1 --dropout 0"
    " --max-steps 4 --validate-every 2 --log-every 1 --warmup 0 --quiet";

double finalLoss(const std::string& jsonOut) {
    return nlohmann::json::parse(jsonOut)["summary"]["final_train_loss"].get<double>();
}

// The loss and accuracy records of metrics.csv (step, split, metric, value), without the clock columns.
std::vector<std::string> lossRecords(const fs::path& run) {
    std::vector<std::string> out;
    std::istringstream in(wbtest::readText(run / "metrics.csv"));
    for (std::string line; std::getline(in, line);) {
        std::vector<std::string> f;
        std::istringstream fields(line);
        for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
        if (f.size() == 8 && (f[6] == "loss" || f[6] == "accuracy"))
            out.push_back(f[1] + " " + f[5] + " " + f[6] + " " + f[7]);
    }
    return out;
}

// No temporaries or half-written files: only what a run folder holds.
void expectOnlyRunFiles(const fs::path& run, const std::string& context) {
    static const std::set<std::string> allowed = {
        "config.json", "vocab.json", "run.json", "metrics.csv", "model.safetensors", "optimizer.safetensors"};
    for (const auto& e : fs::directory_iterator(run))
        EXPECT_TRUE(allowed.count(e.path().filename().string())) << context << ": left " << e.path();
}
}  // namespace

TEST(FaultInjection, KilledAtEveryFailpointOfARunTheLastCheckpointResumesToTheSameResult) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(60));
    const auto corpus = quote(dir.file("pattern.txt"));

    auto reference = cli("train " + corpus + " --out " + quote(dir.file("reference")) + kRun + " --json");
    ASSERT_EQ(reference.code, 0) << reference.err;
    const double expected = finalLoss(reference.out);
    const auto expectedRecords = lossRecords(dir.path() / "reference");
    ASSERT_GT(expectedRecords.size(), 4u);

    int killedRuns = 0, resumed = 0, nothingToResume = 0;
    for (int n = 1; n < 400; ++n) {
        const auto run = dir.path() / ("run-" + std::to_string(n));
        const auto r = cli("train " + corpus + " --out " + quote(run.string()) + kRun + " --json",
                           "kill@" + std::to_string(n));
        if (!r.killed) {  // the run got past its last failpoint: every moment has been tried
            ASSERT_EQ(r.code, 0) << "kill@" << n << ": " << r.err;
            EXPECT_DOUBLE_EQ(finalLoss(r.out), expected);
            break;
        }
        ++killedRuns;
        const std::string context = "killed at failpoint " + std::to_string(n);
        if (!fs::exists(run)) continue;  // killed before the run folder was made: nothing to lose
        const auto again = cli("resume " + quote(run.string()) + " --json");
        if (again.code == 2 && !fs::exists(run / "model.safetensors") &&
            !fs::exists(run / "model.safetensors.next")) {
            // Killed before the first checkpoint: nothing to resume, and a one-line message that names
            // what is missing (the checkpoint, or config.json / run.json when killed even earlier).
            EXPECT_EQ(std::count(again.err.begin(), again.err.end(), '\n'), 1)
                << context << ": " << again.err;
            EXPECT_NE(again.err.find(run.string()), std::string::npos) << context << ": " << again.err;
            ++nothingToResume;
            continue;
        }
        ASSERT_EQ(again.code, 0) << context << ": " << again.err;
        EXPECT_DOUBLE_EQ(finalLoss(again.out), expected) << context;
        EXPECT_EQ(lossRecords(run), expectedRecords) << context;
        expectOnlyRunFiles(run, context);
        ++resumed;
        fs::remove_all(run);
    }
    // Two checkpoints of ~18 failpoints each, plus the run's set-up: every one of them was a kill point.
    EXPECT_GT(killedRuns, 36);
    EXPECT_GT(resumed, 18);
    std::printf("killed %d times: %d resumed to the same final loss, %d before any checkpoint\n", killedRuns,
                resumed, nothingToResume);
}

TEST(FaultInjection, DiskFullDuringACheckpointStopsTheRunAndKeepsTheLastGoodOne) {
    for (const std::string rule :
         {"enospc@2:model.safetensors", "erofs@2:optimizer.safetensors", "eio@3:metrics.csv"}) {
        SCOPED_TRACE(rule);
        wbtest::TempDir dir;
        wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(60));
        const auto run = dir.path() / "run";
        auto r =
            cli("train " + quote(dir.file("pattern.txt")) + " --out " + quote(run.string()) + kRun, rule);
        EXPECT_EQ(r.code, 1) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
        const bool full = rule.rfind("enospc", 0) == 0, readOnly = rule.rfind("erofs", 0) == 0;
        EXPECT_NE(r.err.find(full       ? "No space left on device"
                             : readOnly ? "Read-only file system"
                                        : "Input/output error"),
                  std::string::npos)
            << r.err;
        expectOnlyRunFiles(run, rule);

        // The checkpoint of step 2 is intact and the run goes on from it once the disk is fine again.
        r = cli("resume " + quote(run.string()) + " --json");
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(nlohmann::json::parse(r.out)["summary"]["steps"], 4);
    }
}

TEST(FaultInjection, ABadFailpointRuleIsAnInputError) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(60));
    const auto r = cli("train " + quote(dir.file("pattern.txt")) + " --out " + quote(dir.file("run")) + kRun,
                       "explode@1");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("WORKBENCH_FAILPOINTS"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir.path() / "run"));
}
