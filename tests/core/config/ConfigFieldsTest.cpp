// The config table (issue #11): every field walks through JSON (a changed value survives the round trip; a
// value of the wrong type is refused naming the field), validation (a value just outside the field's range is
// refused with the field's words, one just inside is not) and the per-task defaults (valid, and what
// defaultConfig gives). The CLI's walk is in tests/e2e/CliConfigFieldsTest.cpp, the panel's in
// tests/ui/experiment/ExperimentPanelTest.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "workbench/domain/ConfigFields.h"
#include "workbench/domain/Errors.h"

using namespace wb;

namespace {

// A valid value other than the field's initial one.
std::string otherValue(const ConfigField& f) {
    switch (f.type) {
        case FieldType::Integer: {
            const double lo = std::isfinite(f.min) ? f.min : 0;
            const auto initial = std::stoll(f.initial);
            return std::to_string(static_cast<long long>(lo) == initial ? initial + 1
                                                                        : static_cast<long long>(lo));
        }
        case FieldType::UnsignedInteger:
            return std::to_string(std::stoull(f.initial) + 7);
        case FieldType::Number:
            return std::stod(f.initial) == 0.25 ? "0.125" : "0.25";
        case FieldType::Boolean:
            return f.initial == "true" ? "false" : "true";
        case FieldType::Choice:
            return f.choices.back() == f.initial ? f.choices.front() : f.choices.back();
        case FieldType::Text:
            return f.parseText ? "cuda:1" : "something else";  // a parsed field takes only its own values
    }
    return {};
}

bool mentions(const std::vector<std::string>& problems, const std::string& words) {
    for (const auto& p : problems)
        if (p.find(words) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST(ConfigFields, NamesFlagsAndWordsAreUniqueAndComplete) {
    std::set<std::string> keys, flags, labels;
    for (const auto& f : configFields()) {
        EXPECT_TRUE(keys.insert(f.key).second) << f.key;
        if (!f.flag.empty()) EXPECT_TRUE(flags.insert(f.flag).second) << f.flag;
        EXPECT_TRUE(labels.insert(f.label).second) << f.label;
        EXPECT_FALSE(f.help.empty()) << f.key;
        EXPECT_EQ(findConfigField(f.key), &f);
        EXPECT_EQ(findConfigField(f.path()), &f);
        if (!f.flag.empty()) EXPECT_EQ(findConfigField(f.flag.substr(2)), &f);
    }
    EXPECT_EQ(findConfigField("lr"), findConfigField("learning_rate"));
    EXPECT_EQ(findConfigField("nonsense"), nullptr);
    try {
        configField("nonsense");
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("unknown setting 'nonsense' (known: name, task"),
                  std::string::npos);
    }
}

TEST(ConfigFields, EveryFieldSurvivesTheJsonRoundTrip) {
    for (const auto& f : configFields()) {
        ExperimentConfig c;
        const auto value = otherValue(f);
        ASSERT_NE(f.get(c), value) << f.path();
        f.set(c, value);
        ASSERT_EQ(f.get(c), value) << f.path();
        const auto back = ExperimentConfig::fromJson(c.toJson(), "config.json");
        EXPECT_EQ(f.get(back), value) << f.path();
        // The key sits where the table says.
        const auto j = nlohmann::json::parse(c.toJson());
        EXPECT_TRUE(f.section.empty() ? j.contains(f.key) : j.at(f.section).contains(f.key)) << f.path();
    }
}

TEST(ConfigFields, AValueOfTheWrongTypeInJsonNamesTheField) {
    for (const auto& f : configFields()) {
        nlohmann::json j = nlohmann::json::object();
        // A string where a number or boolean belongs; an object where a string belongs.
        nlohmann::json wrong = f.type == FieldType::Text || f.type == FieldType::Choice
                                   ? nlohmann::json::object()
                                   : nlohmann::json("x");
        if (f.section.empty())
            j[f.key] = wrong;
        else
            j[f.section][f.key] = wrong;
        try {
            ExperimentConfig::fromJson(j.dump(), "config.json");
            ADD_FAILURE() << f.path() << " accepted " << wrong;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("config.json: " + f.path() + ": expected"),
                      std::string::npos)
                << e.what();
        }
    }
}

TEST(ConfigFields, ValidationRefusesJustOutsideTheRangeAndAcceptsJustInside) {
    int checked = 0;
    for (const auto& f : configFields()) {
        if (f.type != FieldType::Integer && f.type != FieldType::Number) continue;
        const double step = f.type == FieldType::Integer ? 1 : 1e-6;
        for (const bool low : {true, false}) {
            const double bound = low ? f.min : f.max;
            if (!std::isfinite(bound)) continue;
            const bool open = low ? f.minOpen : f.maxOpen;
            const double outside = open ? bound : (low ? bound - step : bound + step);
            const double inside = open ? (low ? bound + step : bound - step) : bound;
            ExperimentConfig c = defaultConfig(Task::Classifier);
            c.data.corpus = "x.tsv";
            auto put = [&](double v) {
                if (f.type == FieldType::Integer)
                    f.integer(c) = static_cast<std::int64_t>(v);
                else
                    f.number(c) = v;
            };
            put(outside);
            EXPECT_TRUE(mentions(c.validate(), f.label + " must be")) << f.path() << " = " << outside;
            EXPECT_FALSE(f.rangeProblem(c).empty()) << f.path();
            put(inside);
            EXPECT_EQ(f.rangeProblem(c), "") << f.path() << " = " << inside;
            EXPECT_FALSE(mentions(c.validate(), f.label + " must be")) << f.path() << " = " << inside;
            ++checked;
        }
    }
    EXPECT_GE(checked, 30);
}

TEST(ConfigFields, TextThatIsNotAValueOfTheFieldsTypeIsRefusedNamingIt) {
    ExperimentConfig c;
    const std::pair<const char*, const char*> cases[] = {{"seq_len", "ten"},       {"seq_len", "1.5"},
                                                         {"seed", "-1"},           {"learning_rate", "fast"},
                                                         {"bidirectional", "yes"}, {"optimizer", "adagrad"}};
    for (const auto& [key, text] : cases) {
        const auto& f = configField(key);
        try {
            f.set(c, text);
            ADD_FAILURE() << key << " accepted " << text;
        } catch (const InputError& e) {
            EXPECT_EQ(std::string(e.what()).rfind(f.path() + ": ", 0), 0u) << e.what();
        }
    }
}

TEST(ConfigFields, PerTaskDefaultsAreValidAndAreWhatDefaultConfigGives) {
    for (const auto task : {Task::LanguageModel, Task::Classifier}) {
        const auto c = defaultConfig(task);
        EXPECT_TRUE(c.validate().empty()) << c.validate().front();
        for (const auto& f : configFields()) {
            const auto& expected = task == Task::LanguageModel ? f.lmDefault : f.classifierDefault;
            if (expected.empty()) continue;
            ExperimentConfig probe;
            f.set(probe, expected);
            EXPECT_EQ(f.get(c), f.get(probe)) << f.path();
        }
    }
    // What a config file that leaves a key out gets: the table's initial value.
    const auto empty = ExperimentConfig::fromJson("{}", "config.json");
    for (const auto& f : configFields()) {
        ExperimentConfig probe;
        f.set(probe, f.initial);
        EXPECT_EQ(f.get(empty), f.get(probe)) << f.path();
    }
}
