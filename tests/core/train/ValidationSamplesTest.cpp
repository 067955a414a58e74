// Samples at validation: a language model writes a few samples per validation to samples.jsonl and says them
// in the log; a poem corpus gets poems of its form, checked when it has verse tables; a classifier, or 0
// samples, writes none.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/TestSupport.h"
#include "support/TinyExperiments.h"
#include "train/ValidationSamples.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Training.h"

using namespace wb;
namespace fs = std::filesystem;

namespace {
std::vector<nlohmann::json> jsonLines(const fs::path& file) {
    std::vector<nlohmann::json> out;
    std::istringstream in(wbtest::readText(file));
    for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
    return out;
}

std::vector<std::string> train(const ExperimentConfig& config, const std::string& runDir) {
    std::vector<std::string> log;
    TrainingCallbacks callbacks;
    callbacks.onLog = [&](const std::string& line) { log.push_back(line); };
    TrainingJob(config, runDir).run(callbacks);
    return log;
}
}  // namespace

TEST(ValidationSamples, ALanguageModelWritesSamplesAtEveryValidation) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(120));
    auto config = wbtest::tinyLanguageModel(dir.file("pattern.txt"));
    config.train.maxSteps = 8;
    config.train.epochs = 0;
    config.train.validateEvery = 4;
    config.train.validationSamples = 2;
    const auto log = train(config, dir.file("run"));
    const auto lines = jsonLines(dir.path() / "run" / runfiles::kSamples);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0]["step"], 4);
    EXPECT_EQ(lines[1]["step"], 8);
    const auto bpc = seriesOf(loadRunFolder(dir.file("run")).metrics, "val", "bpc");
    ASSERT_EQ(bpc.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(lines[i]["form"], "free");
        ASSERT_EQ(lines[i]["samples"].size(), 2u);
        EXPECT_FALSE(lines[i]["samples"][0].get<std::string>().empty());
        EXPECT_NEAR(lines[i]["val_bpc"].get<double>(), bpc[i].value, 1e-6);
        EXPECT_FALSE(lines[i].contains("verse"));
    }
    int said = 0;
    for (const auto& line : log) said += line.rfind("samples at step ", 0) == 0;
    EXPECT_EQ(said, 2) << "each validation's samples are in the log";
}

TEST(ValidationSamples, APoemCorpusGetsCheckedPoemsOfItsForm) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "poems.json", wbtest::quatrainJson(60));
    wbtest::writeVerseTables(dir.path());
    EXPECT_EQ(dominantPoemForm(loadCorpus(dir.file("poems.json"))), PoemForm::Quatrain7);
    auto config = wbtest::tinyLanguageModel(dir.file("poems.json"), CorpusFormat::Poems);
    config.train.maxSteps = 4;
    config.train.epochs = 0;
    config.train.validateEvery = 4;
    config.train.validationSamples = 3;
    const auto log = train(config, dir.file("run"));
    const auto lines = jsonLines(dir.path() / "run" / runfiles::kSamples);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0]["form"], "quatrain7");
    ASSERT_EQ(lines[0]["samples"].size(), 3u);
    ASSERT_EQ(lines[0]["verse"].size(), 3u);
    for (const auto& poem : lines[0]["samples"])
        EXPECT_EQ(verseLines(poem.get<std::string>()).size(), 4u) << poem;
    for (const auto& v : lines[0]["verse"])
        EXPECT_EQ(v["summary"].get<std::string>().rfind("七绝", 0), 0u) << v;
}

TEST(ValidationSamples, NoneForAClassifierOrWhenOff) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "reviews.tsv", wbtest::separableTsv(120));
    auto classifier = wbtest::tinyClassifier(dir.file("reviews.tsv"));
    classifier.train.maxSteps = 4;
    classifier.train.validationSamples = 3;
    train(classifier, dir.file("classifier"));
    EXPECT_FALSE(fs::exists(dir.path() / "classifier" / runfiles::kSamples));

    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(60));
    auto lm = wbtest::tinyLanguageModel(dir.file("pattern.txt"));
    lm.train.maxSteps = 4;
    lm.train.validationSamples = 0;
    train(lm, dir.file("lm"));
    EXPECT_FALSE(fs::exists(dir.path() / "lm" / runfiles::kSamples));
    EXPECT_EQ(dominantPoemForm(loadCorpus(dir.file("pattern.txt"))), PoemForm::Free);
}
