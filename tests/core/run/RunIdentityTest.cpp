// Tests for which run is which and what may be compared: names, notes and tags in annotations.json, the
// default name, deleting a run folder (and nothing else), and the comparison's groups, per-task targets,
// baseline and busy-machine note.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/TestSupport.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"

namespace fs = std::filesystem;

namespace {

using wbtest::TempDir;
using wbtest::writeText;

// A run folder as a run leaves it (config.json and run.json), id = the folder's name.
std::string writeRun(const TempDir& tmp, const std::string& id, wb::Task task = wb::Task::LanguageModel) {
    const fs::path dir = tmp.path() / id;
    wb::ExperimentConfig config = wb::defaultConfig(task);
    config.data.corpus = "/data/corpora/tang-quatrains-7/tang-quatrains-7.json";
    wb::RunInfo info;
    info.id = id;
    info.device = "cpu";
    info.threads = 2;
    info.precision = "fp32";
    info.startedAt = "2026-11-24T13:05:12Z";
    writeText(dir / "config.json", config.toJson());
    writeText(dir / "run.json", info.toJson());
    return dir.string();
}

TEST(RunAnnotations, WrittenReadAndLoadedWithTheRun) {
    TempDir tmp;
    const std::string dir = writeRun(tmp, "run-a");
    EXPECT_TRUE(wb::readRunAnnotations(dir).empty());
    wb::RunAnnotations a;
    a.name = "baseline on one core";
    a.notes = "first try\nlr too high?";
    a.tags = {"baseline", "fp32"};
    wb::writeRunAnnotations(dir, a);
    const auto back = wb::readRunAnnotations(dir);
    EXPECT_EQ(back.name, a.name);
    EXPECT_EQ(back.notes, a.notes);
    EXPECT_EQ(back.tags, a.tags);
    const auto record = wb::loadRunFolder(dir);
    EXPECT_EQ(record.name(), "baseline on one core");
    EXPECT_EQ(record.annotations.tags, a.tags);
    // config, run, annotations and the lock they are saved under: no temporary file left
    EXPECT_EQ(wbtest::listTree(dir).size(), 4u);
}

TEST(RunAnnotations, MalformedFileIsNamedAndNotAFolderIsRefused) {
    TempDir tmp;
    const std::string dir = writeRun(tmp, "run-b");
    writeText(fs::path(dir) / "annotations.json", R"({"name": 3})");
    try {
        wb::loadRunFolder(dir);
        FAIL() << "a malformed annotations.json was accepted";
    } catch (const wb::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("annotations.json"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("name: expected a string"), std::string::npos) << e.what();
    }
    fs::create_directories(tmp.path() / "plain");
    EXPECT_THROW(wb::writeRunAnnotations((tmp.path() / "plain").string(), {}), wb::InputError);
    EXPECT_FALSE(fs::exists(tmp.path() / "plain" / "annotations.json"));
}

TEST(RunFolderRemoval, DeletesARunFolderAndRefusesAnythingElse) {
    TempDir tmp;
    const std::string dir = writeRun(tmp, "run-c");
    writeText(tmp.path() / "notes" / "keep.txt", "mine");
    EXPECT_THROW(wb::removeRunFolder((tmp.path() / "notes").string()), wb::InputError);
    EXPECT_TRUE(fs::exists(tmp.path() / "notes" / "keep.txt"));
    fs::create_symlink(dir, tmp.path() / "link");
    EXPECT_THROW(wb::removeRunFolder((tmp.path() / "link").string()), wb::InputError);
    EXPECT_TRUE(fs::exists(fs::path(dir) / "config.json"));
    wb::removeRunFolder(dir);
    EXPECT_FALSE(fs::exists(dir));
}

TEST(RunNames, TheDefaultTellsRunsOfOneExperimentOnOneDeviceApart) {
    TempDir tmp;
    auto first = wb::loadRunFolder(writeRun(tmp, "r1"));
    auto second = first;
    second.info.startedAt = "2026-11-24T15:40:00Z";
    EXPECT_EQ(first.corpusName(), "tang-quatrains-7");
    EXPECT_NE(first.name().find("tang-quatrains-7 LM · cpu · 2 threads · fp32 · 11-24 "), std::string::npos)
        << first.name();
    EXPECT_NE(first.name(), second.name());
    first.config.task = wb::Task::Classifier;
    EXPECT_NE(first.defaultName().find("tang-quatrains-7 classifier"), std::string::npos);
    first.annotations.name = "mine";
    EXPECT_EQ(first.name(), "mine");
    EXPECT_EQ(first.shortName(), "mine");
}

// The Runs list's name: the start to the second and the corpus, nothing its other columns say.
TEST(RunNames, TheShortNameIsTheStartToTheSecondAndTheCorpus) {
    TempDir tmp;
    auto first = wb::loadRunFolder(writeRun(tmp, "r1"));
    auto second = first;
    first.info.startedAt = "2026-11-24T15:40:00Z";
    second.info.startedAt = "2026-11-24T15:40:01Z";
    EXPECT_NE(first.shortName(), second.shortName());
    EXPECT_EQ(first.shortName().size(), std::string("11-24 15:40:00 · tang-quatrains-7").size())
        << first.shortName();
    const std::string corpus = " · tang-quatrains-7";
    EXPECT_EQ(first.shortName().substr(first.shortName().size() - corpus.size()), corpus);
    EXPECT_EQ(first.shortName().find("cpu"), std::string::npos);
    first.info.startedAt.clear();
    EXPECT_EQ(first.shortName(), "tang-quatrains-7");
}

wb::RunRecord run(const std::string& id, wb::Task task, double samplesPerSecond,
                  std::vector<std::pair<double, double>> val, const std::string& metric = "loss") {
    wb::RunRecord r;
    r.config = wb::defaultConfig(task);
    r.config.data.corpus = task == wb::Task::Classifier ? "spam.tsv" : "poems.json";
    r.info.id = id;
    r.info.device = "cpu";
    r.info.threads = 1;
    r.info.summary.samplesPerSecond = samplesPerSecond;
    std::int64_t step = 0;
    for (auto [wall, value] : val) r.metrics.push_back({++step, 0, step * 10, wall, "val", metric, value});
    if (metric == "loss") {
        r.info.summary.bestValLoss = val.empty() ? 0 : val.back().second;
    } else {
        for (auto [wall, value] : val)
            r.info.summary.bestValAccuracy = std::max(r.info.summary.bestValAccuracy, value);
    }
    return r;
}

TEST(CompareRuns, AClassifierIsNeverComparedWithALanguageModel) {
    const std::vector<wb::RunRecord> runs = {
        run("lm-slow", wb::Task::LanguageModel, 100, {{10, 3.0}, {20, 2.5}, {30, 2.2}}),
        run("cls", wb::Task::Classifier, 1189, {{5, 0.70}, {9, 0.90}}, "accuracy"),
        run("lm-fast", wb::Task::LanguageModel, 180, {{6, 2.9}, {12, 2.4}, {18, 2.0}}),
        run("cls-2", wb::Task::Classifier, 500, {{3, 0.80}, {8, 0.85}}, "accuracy"),
    };
    const auto rows = wb::compareRuns(runs, wb::CompareOptions{});
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[0].group, 0);
    EXPECT_EQ(rows[2].group, 0);
    EXPECT_EQ(rows[1].group, 1);
    EXPECT_EQ(rows[3].group, 1);
    // Speed-ups against each group's slowest run, not the classifier against the language model.
    EXPECT_DOUBLE_EQ(rows[0].speedup, 1.0);
    EXPECT_TRUE(rows[0].baseline);
    EXPECT_DOUBLE_EQ(rows[2].speedup, 1.8);
    EXPECT_DOUBLE_EQ(rows[3].speedup, 1.0);
    EXPECT_DOUBLE_EQ(rows[1].speedup, 1189.0 / 500.0);
    // Language models: the val loss the slower learner reached (2.2), timed for both.
    EXPECT_EQ(rows[0].target, "val loss ≤ 2.200");
    EXPECT_DOUBLE_EQ(rows[0].secondsToTarget, 30);
    EXPECT_DOUBLE_EQ(rows[2].secondsToTarget, 18);
    // Classifiers: the accuracy both reached (85 %).
    EXPECT_EQ(rows[1].target, "val accuracy ≥ 85.0 %");
    EXPECT_DOUBLE_EQ(rows[1].secondsToTarget, 9);
    EXPECT_DOUBLE_EQ(rows[3].secondsToTarget, 8);
    EXPECT_NE(rows[1].groupLabel.find("spam · classifier"), std::string::npos) << rows[1].groupLabel;
}

TEST(CompareRuns, AChosenBaselineAndOneTargetLossForAll) {
    const std::vector<wb::RunRecord> runs = {
        run("a", wb::Task::LanguageModel, 100, {{10, 3.0}, {20, 2.5}}),
        run("b", wb::Task::LanguageModel, 200, {{5, 2.8}, {10, 2.4}}),
    };
    wb::CompareOptions options;
    options.baseline = 1;
    options.targetLoss = 2.6;
    const auto rows = wb::compareRuns(runs, options);
    EXPECT_DOUBLE_EQ(rows[0].speedup, 0.5);
    EXPECT_TRUE(rows[1].baseline);
    EXPECT_FALSE(rows[0].baseline);
    EXPECT_EQ(rows[0].target, "val loss ≤ 2.600");
    EXPECT_DOUBLE_EQ(rows[0].secondsToTarget, 20);
    EXPECT_DOUBLE_EQ(rows[1].secondsToTarget, 10);
}

TEST(CompareRuns, AMoreThreadedRunSlowerOnABusyMachineSaysWhy) {
    std::vector<wb::RunRecord> runs = {
        run("one", wb::Task::LanguageModel, 150, {{10, 3.0}}),
        run("two", wb::Task::LanguageModel, 120, {{10, 3.0}}),
    };
    runs[1].info.threads = 2;
    runs[1].info.hostCpus = 2;
    runs[1].info.loadAverage = 1.6;
    auto rows = wb::compareRuns(runs, wb::CompareOptions{});
    EXPECT_TRUE(rows[0].note.empty());
    EXPECT_NE(rows[1].note.find("busy"), std::string::npos) << rows[1].note;
    EXPECT_NE(rows[1].note.find("load 1.6 on 2 CPUs"), std::string::npos) << rows[1].note;
    runs[1].info.loadAverage = 0.1;  // idle: slower for another reason, which the load does not explain
    rows = wb::compareRuns(runs, wb::CompareOptions{});
    EXPECT_TRUE(rows[1].note.empty()) << rows[1].note;
}

// Issue #35: two runs that trained at the same time on one host shared its cores: both are flagged, whatever
// their thread counts (before, only a many-worker run on a busy machine was, and one-thread runs side by side
// were compared as if each had had a core to itself).
TEST(CompareRuns, RunsThatTrainedAtOnceOnOneHostAreFlagged) {
    std::vector<wb::RunRecord> runs = {
        run("first", wb::Task::LanguageModel, 150, {{10, 3.0}}),
        run("beside", wb::Task::LanguageModel, 140, {{10, 3.0}}),
        run("after", wb::Task::LanguageModel, 150, {{10, 3.0}}),
        run("elsewhere", wb::Task::LanguageModel, 150, {{10, 3.0}}),
    };
    const std::pair<const char*, const char*> times[] = {{"2026-11-25T16:00:00Z", "2026-11-25T16:05:00Z"},
                                                         {"2026-11-25T16:04:00Z", "2026-11-25T16:09:00Z"},
                                                         {"2026-11-25T16:09:00Z", "2026-11-25T16:12:00Z"},
                                                         {"2026-11-25T16:01:00Z", "2026-11-25T16:03:00Z"}};
    for (std::size_t i = 0; i < runs.size(); ++i) {
        runs[i].info.host = i == 3 ? "gpu-server" : "laptop";
        runs[i].info.startedAt = times[i].first;
        runs[i].info.endedAt = times[i].second;
        runs[i].info.status = wb::RunStatus::Completed;
    }
    const auto rows = wb::compareRuns(runs, wb::CompareOptions{});
    EXPECT_TRUE(rows[0].overlapped);
    EXPECT_TRUE(rows[1].overlapped);
    EXPECT_FALSE(rows[2].overlapped);  // started the second "beside" ended
    EXPECT_FALSE(rows[3].overlapped);  // at the same time, on another machine
    EXPECT_NE(rows[0].note.find("same time as " + runs[1].name()), std::string::npos) << rows[0].note;
    EXPECT_NE(rows[1].note.find("on laptop"), std::string::npos) << rows[1].note;
    EXPECT_TRUE(rows[2].note.empty()) << rows[2].note;
    // A run still training overlaps whatever started on its host since.
    runs[2].info.endedAt.clear();
    runs[2].info.status = wb::RunStatus::Running;
    runs[2].info.startedAt = "2026-11-25T16:08:00Z";
    EXPECT_TRUE(wb::compareRuns(runs, wb::CompareOptions{})[2].overlapped);
}

// Issue #35: time to a loss target has one definition in Compare and sweeps. The target every run reached
// is read from the curves the times are read from: run.json's best (exact) could lie a hair under the
// curve metrics.csv keeps (rounded), and a run with the same best loss then read "—" beside another's 2.3 s.
TEST(CompareRuns, TheCommonTargetIsReachedOnEveryRunsOwnCurve) {
    std::vector<wb::RunRecord> runs = {
        run("a", wb::Task::LanguageModel, 100, {{1.0, 0.9}, {2.3, 0.600001}}),
        run("b", wb::Task::LanguageModel, 100, {{1.5, 0.7}, {3.1, 0.5}}),
    };
    runs[0].info.summary.bestValLoss = 0.6000004;  // exact in run.json, rounded up in the curve
    const double target = wb::commonLossTarget(runs);
    EXPECT_DOUBLE_EQ(target, 0.600001);
    const auto rows = wb::compareRuns(runs, target);
    EXPECT_DOUBLE_EQ(rows[0].secondsToTarget, 2.3);
    EXPECT_DOUBLE_EQ(rows[1].secondsToTarget, 3.1);
    // A run never validated is timed on its train loss, and its best there counts.
    wb::RunRecord trainOnly = run("c", wb::Task::LanguageModel, 100, {});
    trainOnly.metrics.push_back({1, 0, 10, 4.0, "train", "loss", 0.8});
    runs.push_back(trainOnly);
    EXPECT_DOUBLE_EQ(wb::commonLossTarget(runs), 0.8);
    EXPECT_DOUBLE_EQ(wb::compareRuns(runs, 0.8)[2].secondsToTarget, 4.0);
}

}  // namespace

// Issue #45: runs are told apart by a number, one more than the highest of their folder, first in their
// default names (lists, titles, legends); an unreadable neighbour or a run from before numbers counts as
// none.
TEST(RunNames, ANewRunsNumberIsOneMoreThanItsFoldersHighest) {
    TempDir tmp;
    EXPECT_EQ(wb::nextRunNumber(tmp.str()), 1);
    const auto old = writeRun(tmp, "from-before-numbers");
    EXPECT_EQ(wb::nextRunNumber(tmp.str()), 1);
    for (const auto& [id, number] : {std::pair<std::string, std::int64_t>{"a", 3}, {"b", 7}}) {
        auto info = wb::loadRunFolder(writeRun(tmp, id)).info;
        info.number = number;
        writeText(tmp.path() / id / "run.json", info.toJson());
    }
    writeText(tmp.path() / "broken" / "run.json", "{not json");
    EXPECT_EQ(wb::nextRunNumber(tmp.str()), 8);
    auto record = wb::loadRunFolder((tmp.path() / "b").string());
    EXPECT_EQ(record.info.number, 7);
    EXPECT_EQ(record.shortName().rfind("run 7 · 11-24 ", 0), 0u) << record.shortName();
    EXPECT_EQ(record.defaultName().rfind("run 7 · tang-quatrains-7 LM · cpu", 0), 0u) << record.defaultName();
    record.annotations.name = "mine";  // a name the user gave keeps the run's number (issue #63)
    EXPECT_EQ(record.shortName(), "run 7 · mine");
    EXPECT_EQ(record.name(), "run 7 · mine");
    EXPECT_EQ(wb::loadRunFolder(old).shortName().find("run "), std::string::npos);
}
