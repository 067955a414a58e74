// A run's state as lstm-workbench-cli reports it, derived from the run folder and its owner's lock: a `train`
// killed mid-run (a failpoint's SIGKILL, as a crash or the OOM killer would) reads "interrupted at step N" in
// `inspect` and `compare` while its run.json still says running, and resumes; a run never validated has no
// best validation: null in run.json and in --json, "none" in the tables.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "CliRunner.h"
#include "support/TestSupport.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
using wbtest::quote;

// Six steps, a checkpoint every two.
const char* kRun =
    " --seq-len 16 --embedding 8 --hidden 16 --layers 1 --batch-size 8 --lr 0.01 --threads 1 --dropout 0"
    " --max-steps 6 --validate-every 2 --log-every 1 --warmup 0 --quiet";
}  // namespace

TEST(RunStateCli, AKilledTrainReadsInterruptedAtItsLastCheckpointAndResumes) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(60));
    const auto run = dir.path() / "run";
    // Killed as the second checkpoint (step 4) starts writing metrics.csv: the first write of the file takes
    // four failpoints, so the fifth is the second write's first. The step-2 checkpoint stands.
    auto r =
        wbtest::runCli("train " + quote(dir.file("pattern.txt")) + " --out " + quote(run.string()) + kRun,
                       "LSTM_WORKBENCH_BASELINE_CACHE= WORKBENCH_FAILPOINTS=kill@5:metrics.csv ");
    ASSERT_TRUE(r.killed) << r.code << " " << r.err;
    EXPECT_EQ(json::parse(wbtest::readText(run / "run.json"))["status"], "running");
    const std::string runJson = wbtest::readText(run / "run.json");

    r = wbtest::runCli("inspect " + quote(run.string()) + " --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto inspected = json::parse(r.out);
    EXPECT_EQ(inspected["status"], "interrupted");
    EXPECT_EQ(inspected["interrupted_at_step"], 2);
    EXPECT_EQ(inspected["resume_from"], "checkpoint");
    r = wbtest::runCli("inspect " + quote(run.string()));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("interrupted at step 2"), std::string::npos) << r.out;
    r = wbtest::runCli("compare " + quote(run.string()));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("status: interrupted at step 2"), std::string::npos) << r.out;
    r = wbtest::runCli("compare " + quote(run.string()) + " --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["runs"][0]["status"], "interrupted at step 2");
    EXPECT_EQ(wbtest::readText(run / "run.json"), runJson) << "a reader rewrote run.json";

    r = wbtest::runCli("resume " + quote(run.string()) + " --json --quiet");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["summary"]["steps"], 6);
    r = wbtest::runCli("inspect " + quote(run.string()) + " --json");
    EXPECT_EQ(json::parse(r.out)["status"], "completed");
}

TEST(RunStateCli, ARunNeverValidatedHasNoBestValidationAnywhere) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(60));
    const auto run = dir.path() / "run";
    auto r = wbtest::runCli("train " + quote(dir.file("pattern.txt")) + " --out " + quote(run.string()) +
                            kRun + " --val-fraction 0 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(json::parse(r.out)["summary"]["best_val_loss"].is_null()) << r.out;
    const auto summary = json::parse(wbtest::readText(run / "run.json"))["summary"];
    EXPECT_TRUE(summary["best_val_loss"].is_null()) << summary.dump();
    EXPECT_TRUE(summary["best_val_accuracy"].is_null()) << summary.dump();

    r = wbtest::runCli("compare " + quote(run.string()));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find("0.0000"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("none"), std::string::npos) << r.out;
    r = wbtest::runCli("compare " + quote(run.string()) + " --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(json::parse(r.out)["runs"][0]["best_val_loss"].is_null()) << r.out;
    r = wbtest::runCli("inspect " + quote(run.string()));
    EXPECT_NE(r.out.find("best val    none"), std::string::npos) << r.out;
}
