// Faults during work, through lstm-workbench-cli with WORKBENCH_FAILPOINTS
// (core/domain/src/io/Failpoints.h): the process is killed at every failpoint of a run in turn, and writes
// fail as on a full disk or a read-only folder. Whatever happens, the last good checkpoint must load and the
// run must resume to the same result as a run that was never interrupted.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "CliRunner.h"
#include "support/TestSupport.h"
#include "workbench/domain/RemoveAll.h"

namespace fs = std::filesystem;

namespace {
using wbtest::quote;

// The n-gram baseline's cache is shared between runs: the first run would write it and the next read it,
// so the runs' failpoints would differ. Without a cache every run writes the same files in the same order.
constexpr const char* kNoBaselineCache = "LSTM_WORKBENCH_BASELINE_CACHE= ";

wbtest::CliResult failpointCli(const std::string& args, const std::string& failpoints = "") {
    return wbtest::runCli(args,
                          std::string(kNoBaselineCache) +
                              (failpoints.empty() ? "" : "WORKBENCH_FAILPOINTS=" + quote(failpoints) + " "));
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

// The lines of a WORKBENCH_FAILPOINTS_TRACE file: "<site> <path>", one per failpoint reached, in order.
std::vector<std::string> traceLines(const fs::path& trace) {
    std::vector<std::string> out;
    std::istringstream in(fs::exists(trace) ? wbtest::readText(trace) : std::string());
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// "BeforeRename /tmp/x/run-3/model.safetensors" -> "BeforeRename model.safetensors".
std::string withoutDir(std::string line, const std::string& dir) {
    const auto at = line.find(dir + "/");
    if (at != std::string::npos) line.erase(at, dir.size() + 1);
    return line;
}

// No temporaries or half-written files: only what a run folder holds.
void expectOnlyRunFiles(const fs::path& run, const std::string& context) {
    static const std::set<std::string> allowed = {"config.json",
                                                  "vocab.json",
                                                  "run.json",
                                                  "metrics.csv",
                                                  "model.safetensors",
                                                  "optimizer.safetensors",
                                                  "best-model.safetensors",
                                                  "baseline.json",
                                                  "samples.jsonl",
                                                  "validation.safetensors",
                                                  "run.lock"};
    for (const auto& e : fs::directory_iterator(run)) {
        const auto name = e.path().filename().string();
        const bool events = name.rfind("events.out.tfevents.", 0) == 0;  // TensorBoard's, one per sitting
        EXPECT_TRUE(allowed.count(name) || events) << context << ": left " << e.path();
    }
}
}  // namespace

TEST(FaultInjection, KilledAtEveryFailpointOfARunTheLastCheckpointResumesToTheSameResult) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(60));
    const auto corpus = quote(dir.file("pattern.txt"));

    // The reference run lists its failpoints in order (WORKBENCH_FAILPOINTS_TRACE): kill@n fires at
    // sites[n-1], so each n has exactly one allowed outcome.
    const auto referenceTrace = dir.path() / "reference.trace";
    auto reference = wbtest::runCli(
        "train " + corpus + " --out " + quote(dir.file("reference")) + kRun + " --json",
        std::string(kNoBaselineCache) + "WORKBENCH_FAILPOINTS_TRACE=" + quote(referenceTrace.string()) + " ");
    ASSERT_EQ(reference.code, 0) << reference.err;
    const double expected = finalLoss(reference.out);
    const auto expectedRecords = lossRecords(dir.path() / "reference");
    ASSERT_GT(expectedRecords.size(), 4u);
    std::vector<std::string> sites;  // "BeforeRename model.safetensors", the run folder's path left out
    for (const auto& line : traceLines(referenceTrace))
        sites.push_back(withoutDir(line, dir.file("reference")));
    // The first checkpoint stands once its second half is renamed into place (RunState.h: recovery
    // finishes a commit only when both ".next" files are there): from the site after that rename on, a
    // kill must resume; before it (up to and including that rename), nothing may be resumable yet.
    const auto pairWritten = std::find(sites.begin(), sites.end(), "BeforeRename optimizer.safetensors.next");
    ASSERT_NE(pairWritten, sites.end()) << "the run wrote no checkpoint";
    const int firstResumable = static_cast<int>(pairWritten - sites.begin()) + 2;  // 1-based, the next site
    // Two checkpoints of 14 failpoints each (metrics, the pair, the commit) and the final files.
    ASSERT_GE(sites.size(), 2u * 14u);

    int resumed = 0, nothingToResume = 0;
    const int count = static_cast<int>(sites.size());
    for (int n = 1; n <= count + 1; ++n) {
        const auto run = dir.path() / ("run-" + std::to_string(n));
        const auto trace = dir.path() / ("run-" + std::to_string(n) + ".trace");
        const auto r =
            wbtest::runCli("train " + corpus + " --out " + quote(run.string()) + kRun + " --json",
                           std::string(kNoBaselineCache) + "WORKBENCH_FAILPOINTS=kill@" + std::to_string(n) +
                               " WORKBENCH_FAILPOINTS_TRACE=" + quote(trace.string()) + " ");
        if (n == count + 1) {  // past the last failpoint: the run is not interrupted
            ASSERT_FALSE(r.killed) << "a failpoint the reference run did not reach fired";
            ASSERT_EQ(r.code, 0) << r.err;
            EXPECT_DOUBLE_EQ(finalLoss(r.out), expected);
            break;
        }
        const std::string site = sites[n - 1];
        const std::string context = "killed at failpoint " + std::to_string(n) + " (" + site + ")";
        ASSERT_TRUE(r.killed) << context << ": the run was not killed: " << r.err;
        // The site that fired is the one the reference run listed as n-th.
        const auto fired = traceLines(trace);
        ASSERT_EQ(static_cast<int>(fired.size()), n) << context;
        ASSERT_EQ(withoutDir(fired.back(), run.string()), site) << context;

        ASSERT_TRUE(fs::exists(run)) << context
                                     << ": the run folder is made before the first file is written";
        const auto again = failpointCli("resume " + quote(run.string()) + " --json");
        if (n < firstResumable) {
            // Killed before the first checkpoint stood: nothing to resume, and a one-line message that
            // names what is missing (the checkpoint, or config.json / run.json when killed even earlier).
            EXPECT_EQ(again.code, 2) << context << ": " << again.err;
            EXPECT_EQ(std::count(again.err.begin(), again.err.end(), '\n'), 1)
                << context << ": " << again.err;
            EXPECT_NE(again.err.find(run.string()), std::string::npos) << context << ": " << again.err;
            ++nothingToResume;
            continue;
        }
        // Killed after a checkpoint stood: losing it is a failure, whatever files are left.
        ASSERT_EQ(again.code, 0) << context << ": the checkpoint was lost: " << again.err;
        EXPECT_DOUBLE_EQ(finalLoss(again.out), expected) << context;
        EXPECT_EQ(lossRecords(run), expectedRecords) << context;
        expectOnlyRunFiles(run, context);
        ++resumed;
        wb::removeAll(run);
    }
    EXPECT_EQ(nothingToResume, firstResumable - 1);
    EXPECT_EQ(resumed, count - firstResumable + 1);
    std::printf("%d failpoints: %d before the first checkpoint stood, %d resumed to the same final loss\n",
                count, nothingToResume, resumed);
}

TEST(FaultInjection, DiskFullDuringACheckpointStopsTheRunAndKeepsTheLastGoodOne) {
    for (const std::string rule :
         {"enospc@2:model.safetensors", "erofs@2:optimizer.safetensors", "eio@3:metrics.csv"}) {
        SCOPED_TRACE(rule);
        wbtest::TempDir dir;
        wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(60));
        const auto run = dir.path() / "run";
        auto r = failpointCli(
            "train " + quote(dir.file("pattern.txt")) + " --out " + quote(run.string()) + kRun, rule);
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
        if (full) {
            // Issue #46: the line says how much space there is, and the run's status says what Resume does
            // (the Runs list shows the same text: RunRecord::statusText).
            EXPECT_NE(r.err.find(" free)"), std::string::npos) << r.err;
            const auto shown = failpointCli("inspect " + quote(run.string()));
            EXPECT_NE(shown.out.find("disk full · resumes at step 2"), std::string::npos)
                << shown.out << shown.err;
        }

        // The checkpoint of step 2 is intact and the run goes on from it once the disk is fine again.
        r = failpointCli("resume " + quote(run.string()) + " --json");
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(nlohmann::json::parse(r.out)["summary"]["steps"], 4);
    }
}

// Issue #45: a disk full before the first checkpoint was told as if one existed ("the run folder keeps the
// last good checkpoint") and the Runs list read "failed · 0". The status says there is none.
TEST(FaultInjection, DiskFullBeforeTheFirstCheckpointSaysThereIsNone) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(60));
    const auto run = dir.path() / "run";
    const auto r =
        failpointCli("train " + quote(dir.file("pattern.txt")) + " --out " + quote(run.string()) + kRun,
                     "enospc@1:model.safetensors");
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
    const auto shown = failpointCli("inspect " + quote(run.string()));
    EXPECT_NE(shown.out.find("disk full · no checkpoint yet"), std::string::npos) << shown.out << shown.err;
    EXPECT_NE(shown.out.find("starts again from step 0"), std::string::npos) << shown.out;
}

TEST(FaultInjection, ABadFailpointRuleIsAnInputError) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(60));
    const auto r = failpointCli(
        "train " + quote(dir.file("pattern.txt")) + " --out " + quote(dir.file("run")) + kRun, "explode@1");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("WORKBENCH_FAILPOINTS"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir.path() / "run"));
}
