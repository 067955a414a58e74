// Run folders' format versions (workbench/domain/FormatVersion.h) on committed folders of each version
// (tests/fixtures/run-formats): a folder without a version opens with format 1's defaults, format 2 opens
// as written, a newer major version is refused naming both versions, and a format 2 config without a field
// that changes what the model computes is an error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "support/TestSupport.h"
#include "workbench/domain/Config.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/FormatVersion.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/RunState.h"
#include "workbench/engine/Inference.h"

using namespace wb;
namespace fs = std::filesystem;

namespace {

std::string fixture(const std::string& name) {
    return wbtest::sourcePath("tests/fixtures/run-formats/" + name);
}

std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

// A copy of a fixture whose config.json is edited.
std::string editedCopy(const wbtest::TempDir& tmp, const std::string& name, const std::string& copy,
                       const std::function<void(nlohmann::json&)>& edit) {
    const auto dir = tmp.file(copy);
    fs::copy(fixture(name), dir, fs::copy_options::recursive);
    const auto path = dir + "/config.json";
    auto j = nlohmann::json::parse(readFile(path));
    edit(j);
    std::ofstream(path) << j.dump(2);
    return dir;
}

}  // namespace

TEST(FormatVersion, ThisProgramWritesFormatTwo) {
    EXPECT_EQ(toString(kFormatVersion), "2.0");
    const auto config = nlohmann::json::parse(defaultConfig(Task::Classifier).toJson());
    EXPECT_EQ(config.at("format_version"), "2.0");
    EXPECT_EQ(config.at("written_by"), writtenBy());
    const auto vocab = nlohmann::json::parse(vocabularyFileJson(Vocabulary(), {"a", "b"}));
    EXPECT_EQ(vocab.at("format_version"), "2.0");
    EXPECT_EQ(nlohmann::json::parse(RunInfo().toJson()).at("format_version"), "2.0");
}

TEST(FormatVersion, AFolderWithoutAVersionOpensWithFormatOnesDefaults) {
    const auto model = TrainedModel::load(fixture("format-1"));
    EXPECT_EQ(model->config().model.pooling, Pooling::Last);
    EXPECT_FALSE(model->config().model.bidirectional);
    EXPECT_TRUE(model->warnings().empty());
    const auto answer = model->classify("good great film");
    EXPECT_EQ(answer.predicted, "pos");
    EXPECT_EQ(loadRunFolder(fixture("format-1")).config.model.pooling, Pooling::Last);
}

TEST(FormatVersion, FormatTwoOpensAsWritten) {
    const auto model = TrainedModel::load(fixture("format-2"));
    EXPECT_EQ(model->config().model.pooling, Pooling::Mean);
    EXPECT_TRUE(model->config().model.bidirectional);
    EXPECT_TRUE(model->warnings().empty());
    EXPECT_EQ(model->classify("awful bad film").predicted, "neg");
}

TEST(FormatVersion, ANewerMajorVersionIsRefusedNamingBothVersions) {
    const auto dir = fixture("format-3");
    for (const auto& message :
         {errorOf([&] { TrainedModel::load(dir); }), errorOf([&] { loadRunFolder(dir); }),
          errorOf([&] { readVocabularyFile(dir + "/vocab.json", nullptr); }),
          errorOf([&] { RunInfo::fromJson(readFile(dir + "/run.json"), "run.json"); })}) {
        EXPECT_NE(message.find("format 3.0 by LSTM Workbench 9.0.0"), std::string::npos) << message;
        EXPECT_NE(message.find("reads formats up to 2.x"), std::string::npos) << message;
    }
}

TEST(FormatVersion, AMissingFieldThatChangesTheModelIsAnErrorInFormatTwo) {
    wbtest::TempDir tmp;
    const auto dir = editedCopy(tmp, "format-2", "no-pooling", [](auto& j) { j["model"].erase("pooling"); });
    const auto message = errorOf([&] { TrainedModel::load(dir); });
    EXPECT_NE(message.find("config.json"), std::string::npos) << message;
    EXPECT_NE(message.find("model.pooling: missing"), std::string::npos) << message;
    // A field that does not change what the model computes takes its initial value.
    const auto lenient =
        editedCopy(tmp, "format-2", "no-log-every", [](auto& j) { j["train"].erase("log_every"); });
    EXPECT_NO_THROW(TrainedModel::load(lenient));
}

TEST(FormatVersion, UnknownFieldsOfANewerMinorVersionAreNamedInWarnings) {
    wbtest::TempDir tmp;
    const auto dir = editedCopy(tmp, "format-2", "newer-minor", [](auto& j) {
        j["format_version"] = "2.7";
        j["model"]["attention"] = "additive";
        j["colour"] = "blue";
    });
    const auto model = TrainedModel::load(dir);
    ASSERT_EQ(model->warnings().size(), 2u);
    EXPECT_NE(model->warnings()[0].find("unknown field 'colour'"), std::string::npos) << model->warnings()[0];
    EXPECT_NE(model->warnings()[1].find("unknown field 'model.attention'"), std::string::npos)
        << model->warnings()[1];
}

TEST(FormatVersion, AMalformedVersionIsAnError) {
    for (const char* version : {"\"two\"", "2", "\"2.\"", "\"-1.0\""}) {
        const auto message = errorOf([&] {
            ExperimentConfig::fromJson(std::string("{\"format_version\": ") + version + "}", "config.json");
        });
        EXPECT_NE(message.find("format_version: expected \"MAJOR.MINOR\""), std::string::npos) << message;
    }
}
