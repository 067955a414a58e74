// Run folders: loading hand-written folders (what another machine's CLI leaves), refusing missing or
// contradictory files by name, atomic writes that leave no temporary behind, and the comparison table.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "support/TestSupport.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"

namespace fs = std::filesystem;

namespace {

using wbtest::TempDir;
using wbtest::writeText;

#define EXPECT_CONTAINS(haystack, needle) \
    EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "in: " << (haystack)

const char* const kRunJson = R"({
  "id": "run-cpu-1",
  "status": "completed",
  "device": "cpu",
  "device_name": "AMD EPYC",
  "threads": 2,
  "precision": "fp32",
  "libtorch_version": "1.13.1",
  "blas": "openblas",
  "blas_threads": 1,
  "host": "box",
  "started_at": "2024-05-01T12:00:00Z",
  "ended_at": "2024-05-01T12:05:00Z",
  "timing_method": "steady_clock",
  "summary": {"steps": 120, "epochs": 2.0, "samples": 3840, "train_seconds": 30.5,
              "samples_per_second": 125.9, "us_per_sample": 7942.8, "tokens_per_second": 8056.0,
              "final_train_loss": 1.25, "best_val_loss": 1.4, "best_val_accuracy": 0,
              "final_val_loss": 1.45, "final_val_accuracy": 0, "parameters": 280897,
              "future_field": "ignored"}
})";

void writeRun(const fs::path& dir, const std::string& runJson = kRunJson, bool metrics = true) {
    writeText(dir / "config.json", R"({"name": "hand written", "task": "lm", "model": {"hidden": 32}})");
    writeText(dir / "run.json", runJson);
    if (metrics)
        writeText(dir / "metrics.csv", wb::metricsCsvHeader() +
                                           "\nrun-cpu-1,10,0.1,320,1.5,train,loss,3.2\n"
                                           "run-cpu-1,60,1,1920,15,val,loss,1.9\n");
}

std::string loadError(const std::string& dir) {
    try {
        wb::loadRunFolder(dir);
    } catch (const wb::InputError& e) {
        return e.what();
    }
    ADD_FAILURE() << "loaded " << dir;
    return {};
}

TEST(RunStatus, Strings) {
    for (auto s : {wb::RunStatus::Created, wb::RunStatus::Running, wb::RunStatus::Completed,
                   wb::RunStatus::Stopped, wb::RunStatus::Failed})
        EXPECT_EQ(wb::runStatusFromString(wb::toString(s)), s);
    EXPECT_EQ(wb::toString(wb::RunStatus::Stopped), "stopped");
    EXPECT_THROW(wb::runStatusFromString("done"), wb::InputError);
}

TEST(RunInfo, JsonRoundTripWithSnakeCaseKeys) {
    const auto info = wb::RunInfo::fromJson(kRunJson, "run.json");
    EXPECT_EQ(info.id, "run-cpu-1");
    EXPECT_EQ(info.status, wb::RunStatus::Completed);
    EXPECT_EQ(info.deviceName, "AMD EPYC");
    EXPECT_EQ(info.threads, 2);
    EXPECT_EQ(info.blasThreads, 1);
    EXPECT_EQ(info.libtorchVersion, "1.13.1");
    EXPECT_EQ(info.summary.steps, 120);
    EXPECT_DOUBLE_EQ(info.summary.samplesPerSecond, 125.9);
    EXPECT_EQ(info.summary.parameters, 280897);
    const auto j = nlohmann::json::parse(info.toJson());
    EXPECT_EQ(j["device_name"], "AMD EPYC");
    EXPECT_EQ(j["blas_threads"], 1);
    EXPECT_EQ(j["summary"]["best_val_loss"], 1.4);
    EXPECT_EQ(j["summary"]["us_per_sample"], 7942.8);
    const auto back = wb::RunInfo::fromJson(info.toJson(), "run.json");
    EXPECT_EQ(back.toJson(), info.toJson());
    // Non-finite numbers cannot be JSON; they are written as null and read back as 0.
    wb::RunInfo failed;
    failed.status = wb::RunStatus::Failed;
    failed.summary.finalTrainLoss = std::nan("");
    failed.error = "loss became NaN at step 7";
    const auto f = wb::RunInfo::fromJson(failed.toJson(), "run.json");
    EXPECT_EQ(f.summary.finalTrainLoss, 0);
    EXPECT_EQ(f.error, "loss became NaN at step 7");
    // warnings: absent in older runs (read as none), kept in order otherwise.
    EXPECT_TRUE(info.warnings.empty());
    failed.warnings = {"2 threads were asked for, but the BLAS in use cannot take them", "second"};
    EXPECT_EQ(wb::RunInfo::fromJson(failed.toJson(), "run.json").warnings, failed.warnings);
    EXPECT_THROW(wb::RunInfo::fromJson(R"({"warnings": "one"})", "run.json"), wb::InputError);
}

// Issue #63: a first run fitted to the machine says so in run.json; a run nobody fitted says null.
TEST(RunInfo, APlanFittedToATimeBudgetIsKeptAndNoneIsNull) {
    wb::RunInfo info;
    EXPECT_TRUE(nlohmann::json::parse(info.toJson()).at("plan").is_null());
    EXPECT_FALSE(wb::RunInfo::fromJson(info.toJson(), "run.json").plan.fitted());
    EXPECT_EQ(info.plan.describe(), "");
    info.plan = {600, 1980, 4200, 597.5, 9400};
    const auto back = wb::RunInfo::fromJson(info.toJson(), "run.json").plan;
    EXPECT_DOUBLE_EQ(back.budgetSeconds, 600);
    EXPECT_EQ(back.steps, 1980);
    EXPECT_EQ(back.stepsAsked, 4200);
    EXPECT_DOUBLE_EQ(back.estimatedSeconds, 597.5);
    EXPECT_DOUBLE_EQ(back.calibrationUsPerSample, 9400);
    EXPECT_EQ(back.describe(),
              "1980 of the 4200 steps asked, to fit 10.0 min on this machine (timed here: 9400 µs a sample; "
              "estimate 10.0 min)");
    EXPECT_THROW(wb::RunInfo::fromJson(R"({"plan": 3})", "run.json"), wb::InputError);
    EXPECT_THROW(wb::RunInfo::fromJson(R"({"plan": {"steps": "many"}})", "run.json"), wb::InputError);
}

TEST(RunInfo, BadJsonNamesTheKey) {
    try {
        wb::RunInfo::fromJson(R"({"status": "finished"})", "r/run.json");
        ADD_FAILURE();
    } catch (const wb::InputError& e) {
        EXPECT_CONTAINS(e.what(), "r/run.json: status: unknown run status 'finished'");
    }
    try {
        wb::RunInfo::fromJson(R"({"summary": {"steps": "many"}})", "r/run.json");
        ADD_FAILURE();
    } catch (const wb::InputError& e) {
        EXPECT_STREQ(e.what(), "r/run.json: summary.steps: expected an integer");
    }
    EXPECT_THROW(wb::RunInfo::fromJson("[1]", "run.json"), wb::InputError);
}

TEST(RunFolder, LoadsAHandWrittenFolder) {
    TempDir dir;
    writeRun(dir.path());
    EXPECT_TRUE(wb::isRunFolder(dir.str()));
    auto rec = wb::loadRunFolder(dir.str());
    EXPECT_EQ(rec.dir, dir.str());
    EXPECT_EQ(rec.config.name, "hand written");
    EXPECT_EQ(rec.config.model.hidden, 32);
    EXPECT_EQ(rec.info.id, "run-cpu-1");
    ASSERT_EQ(rec.metrics.size(), 2u);
    EXPECT_EQ(rec.metrics[1].split, "val");
    EXPECT_FALSE(rec.hasCheckpoint);
    EXPECT_EQ(rec.label(), "cpu · 2 threads · fp32");
    writeText(dir.path() / "model.safetensors", "x");
    EXPECT_TRUE(wb::loadRunFolder(dir.str()).hasCheckpoint);

    // metrics.csv is optional: a run that failed before its first record has none.
    fs::remove(dir.path() / "metrics.csv");
    rec = wb::loadRunFolder(dir.str());
    EXPECT_TRUE(rec.metrics.empty());
}

TEST(RunFolder, IdFallsBackToTheFolderName) {
    TempDir dir;
    writeRun(dir.path() / "my-run", R"({"status": "stopped"})", false);
    EXPECT_EQ(wb::loadRunFolder(dir.file("my-run")).info.id, "my-run");
}

TEST(RunFolder, MissingOrContradictoryFilesAreNamed) {
    TempDir dir;
    EXPECT_CONTAINS(loadError(dir.file("absent")), "absent: no such run folder");
    writeText(dir.file("plain.txt"), "x");
    EXPECT_CONTAINS(loadError(dir.file("plain.txt")), "not a run folder");
    EXPECT_FALSE(wb::isRunFolder(dir.str()));

    writeRun(dir.path() / "a");
    fs::remove(dir.path() / "a/run.json");
    EXPECT_FALSE(wb::isRunFolder(dir.file("a")));
    EXPECT_CONTAINS(loadError(dir.file("a")), (dir.path() / "a/run.json").string() + ": no such file");

    writeRun(dir.path() / "b");
    writeText(dir.path() / "b/config.json", "{\n\"model\": {\"hidden\": \"big\"}}");
    EXPECT_CONTAINS(loadError(dir.file("b")), "b/config.json: model.hidden: expected an integer");

    writeRun(dir.path() / "c");
    writeText(dir.path() / "c/run.json", "{\n  \"id\": \"x\",\n");
    EXPECT_CONTAINS(loadError(dir.file("c")), "c/run.json:3: invalid JSON");

    writeRun(dir.path() / "d");
    writeText(dir.path() / "d/metrics.csv", wb::metricsCsvHeader() + "\nrun-cpu-1,1,0,1\n");
    EXPECT_CONTAINS(loadError(dir.file("d")), "d/metrics.csv:2: expected 8 columns");

    writeRun(dir.path() / "e");
    writeText(dir.path() / "e/metrics.csv", wb::metricsCsvHeader() + "\nother-run,1,0,1,0.1,train,loss,2\n");
    EXPECT_CONTAINS(loadError(dir.file("e")),
                    "e/metrics.csv: run_id 'other-run' does not match the id 'run-cpu-1'");

    writeRun(dir.path() / "f");
    fs::remove(dir.path() / "f/config.json");
    fs::create_directory(dir.path() / "f/config.json");
    EXPECT_CONTAINS(loadError(dir.file("f")), "f/config.json: not a regular file");
}

TEST(RunFolder, LabelNamesDeviceThreadsAndPrecision) {
    wb::RunRecord r;
    r.info.device = "cpu";
    r.info.threads = 1;
    r.info.precision = "bf16";
    EXPECT_EQ(r.label(), "cpu · 1 thread · bf16");
    r.info.device = "cuda:0";
    r.info.deviceName = "NVIDIA H100 80GB HBM3";
    EXPECT_EQ(r.label(), "NVIDIA H100 80GB HBM3 · bf16");
    wb::RunRecord fromConfig;  // nothing in run.json yet: the config says what was asked for
    fromConfig.config.device.spec = wb::DeviceSpec::parse("cpu:4");
    fromConfig.config.device.precision = wb::Precision::Fp32;
    EXPECT_EQ(fromConfig.label(), "cpu · 4 threads · fp32");
}

TEST(WriteFileAtomic, WritesReplacesAndLeavesNoTemporary) {
    TempDir dir;
    const std::string path = dir.file("run.json");
    wb::writeFileAtomic(path, "first");
    EXPECT_EQ(wb::readFile(path), "first");
    const std::string big(3 << 20, 'x');
    wb::writeFileAtomic(path, big);
    EXPECT_EQ(wb::readFile(path), big);
    wb::writeFileAtomic(dir.file("empty"), "");
    EXPECT_EQ(wb::readFile(dir.file("empty")), "");
    EXPECT_EQ(wbtest::listTree(dir.path()), (std::vector<std::string>{"empty", "run.json"}));
}

TEST(WriteFileAtomic, FailureThrowsTrainingErrorAndLeavesNothing) {
    TempDir dir;
    const std::string path = dir.file("no/such/folder/run.json");
    try {
        wb::writeFileAtomic(path, "x");
        ADD_FAILURE() << "wrote into a missing folder";
    } catch (const wb::TrainingError& e) {
        EXPECT_CONTAINS(e.what(), "cannot write " + path + ": No such file or directory");
    }
    EXPECT_TRUE(wbtest::listTree(dir.path()).empty());
    // Renaming over a folder fails after the temporary was written: it must be removed, the folder kept.
    fs::create_directories(dir.path() / "target/inside");
    EXPECT_THROW(wb::writeFileAtomic(dir.file("target"), "x"), wb::TrainingError);
    EXPECT_EQ(wbtest::listTree(dir.path()), (std::vector<std::string>{"target", "target/inside"}));
}

TEST(ReadFile, MissingAndFolder) {
    TempDir dir;
    EXPECT_THROW(wb::readFile(dir.file("nope")), wb::InputError);
    try {
        wb::readFile(dir.str());
        ADD_FAILURE();
    } catch (const wb::InputError& e) {
        EXPECT_EQ(e.file(), dir.str());
        EXPECT_CONTAINS(e.what(), "not a regular file");
    }
}

wb::RunRecord syntheticRun(const std::string& id, double samplesPerSecond,
                           std::vector<std::pair<double, double>> val,
                           std::vector<std::pair<double, double>> train = {}) {
    wb::RunRecord r;
    r.info.id = id;
    r.info.device = "cpu";
    r.info.threads = 1;
    r.info.precision = "fp32";
    r.info.summary.samplesPerSecond = samplesPerSecond;
    std::int64_t step = 0;
    for (auto [wall, loss] : train) r.metrics.push_back({++step, 0, step * 10, wall, "train", "loss", loss});
    for (auto [wall, loss] : val) r.metrics.push_back({++step, 0, step * 10, wall, "val", "loss", loss});
    return r;
}

TEST(CompareRuns, SpeedupAndTimeToTarget) {
    std::vector<wb::RunRecord> runs = {
        syntheticRun("slow", 100, {{10, 2.0}, {20, 1.4}, {30, 1.2}}),
        syntheticRun("fast", 250, {{4, 1.6}, {8, 1.5}, {12, 1.49}}),
        // Never validated: time to target comes from the train loss.
        syntheticRun("train-only", 400, {}, {{1, 3.0}, {2, 1.5}, {3, 1.1}}),
        syntheticRun("unknown", 0, {{1, 5.0}}),
    };
    runs[0].info.summary.bestValLoss = 1.2;
    runs[1].info.summary.bestValAccuracy = 0.75;
    const auto rows = wb::compareRuns(runs, 1.5);
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[0].runId, "slow");
    EXPECT_EQ(rows[0].label, "cpu · 1 thread · fp32");
    EXPECT_EQ(rows[0].device, "cpu");
    EXPECT_DOUBLE_EQ(rows[0].speedup, 1.0);
    EXPECT_DOUBLE_EQ(rows[1].speedup, 2.5);
    EXPECT_DOUBLE_EQ(rows[2].speedup, 4.0);
    EXPECT_DOUBLE_EQ(rows[3].speedup, 0.0);
    EXPECT_DOUBLE_EQ(rows[0].secondsToTarget, 20);
    EXPECT_DOUBLE_EQ(rows[1].secondsToTarget, 8);
    EXPECT_DOUBLE_EQ(rows[2].secondsToTarget, 2);
    EXPECT_DOUBLE_EQ(rows[3].secondsToTarget, -1);
    EXPECT_DOUBLE_EQ(rows[0].usPerSample, 10000);
    EXPECT_DOUBLE_EQ(rows[1].usPerSample, 4000);
    EXPECT_DOUBLE_EQ(rows[0].bestValLoss, 1.2);
    EXPECT_DOUBLE_EQ(rows[1].bestValLoss, 1.49);  // from the curve when the summary has none
    EXPECT_DOUBLE_EQ(rows[1].bestValAccuracy, 0.75);
    EXPECT_TRUE(wb::compareRuns({}, 1.0).empty());
}

TEST(CompareRuns, ComparisonCsvHasEveryRunsRows) {
    const std::vector<wb::RunRecord> runs = {syntheticRun("a", 1, {{1, 2.0}}),
                                             syntheticRun("b,c", 2, {{1, 1.0}, {2, 0.5}})};
    const std::string csv = wb::comparisonCsv(runs);
    // Issue #35: each row also names the run and its device as the charts show them, not its folder's id
    // alone.
    const std::string a = "," + runs[0].name() + ",cpu · 1 thread · fp32\n";
    const std::string bc = "," + runs[1].name() + ",cpu · 1 thread · fp32\n";
    ASSERT_EQ(runs[1].name().find(','), std::string::npos);  // the quotes below are the id's
    EXPECT_EQ(csv, wb::metricsCsvHeader() + ",run_name,device\n" + "a,1,0,10,1,val,loss,2" + a +
                       "\"b,c\",1,0,10,1,val,loss,1" + bc + "\"b,c\",2,0,20,2,val,loss,0.5" + bc);
    std::string lastId;
    EXPECT_EQ(wb::parseMetricsCsv(csv, "cmp.csv", &lastId).size(), 3u);  // it reads as a metrics.csv
    EXPECT_EQ(lastId, "b,c");
}

}  // namespace
