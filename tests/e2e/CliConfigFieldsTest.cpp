// The CLI reads the config table (issue #11): every field with a flag is in `train --help` with the table's
// help, and a value the field refuses, given through its flag, is one line naming that field and exit 2,
// before anything is created. Together with the core walk (ConfigFieldsTest) this shows one table feeds the
// flags, the JSON and validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "CliRunner.h"
#include "support/TestSupport.h"
#include "workbench/domain/ConfigFields.h"

namespace fs = std::filesystem;

namespace {

// A value the field must refuse, and the words the message must contain.
std::pair<std::string, std::string> refused(const wb::ConfigField& f) {
    switch (f.type) {
        case wb::FieldType::Integer:
            if (std::isfinite(f.min))
                return {std::to_string(static_cast<long long>(f.min) - 1), f.label + " must be"};
            return {"x", f.path()};
        case wb::FieldType::Number:
            return {f.minOpen ? "0" : "-1", f.label + " must be"};
        case wb::FieldType::UnsignedInteger:
            return {"-1", f.path() + ": expected a non-negative integer"};
        case wb::FieldType::Choice:
            return {"nonsense", f.path() + ": unknown"};
        default:
            return {};
    }
}

}  // namespace

TEST(CliConfigFields, EveryFlaggedFieldIsInTheHelpWithTheTablesWords) {
    const auto help = wbtest::runCli("train --help");
    ASSERT_EQ(help.code, 0) << help.err;
    for (const auto& f : wb::configFields()) {
        if (f.flag.empty()) continue;
        EXPECT_NE(help.out.find(f.flag), std::string::npos) << f.flag;
        EXPECT_NE(help.out.find(f.help.substr(0, 30)), std::string::npos) << f.flag << ": " << f.help;
    }
}

TEST(CliConfigFields, AValueTheFieldRefusesThroughItsFlagIsOneLineNamingItAndExitTwo) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(40));
    int checked = 0;
    for (const auto& f : wb::configFields()) {
        if (f.flag.empty()) continue;
        auto [value, words] = refused(f);
        std::string extra;
        if (f.type == wb::FieldType::Boolean) {      // --bidirectional on a language model
            if (f.key != "bidirectional") continue;  // a switch other switches refuse nothing with
            value.clear();
            words = "bidirectional is for classifiers only";
            extra = " --task lm";
        } else if (f.key == "device") {
            value = "gpu:0";
            words = "gpu:0";
        } else if (f.key == "name") {
            continue;  // any text is a name
        }
        ASSERT_FALSE(words.empty()) << f.path();
        const auto run = dir.path() / ("run-" + f.key);
        const auto r = wbtest::runCli("train " + wbtest::shellQuote(dir.file("pattern.txt")) + " --out " +
                                      wbtest::shellQuote(run.string()) + " " + f.flag +
                                      (value.empty() ? "" : " " + wbtest::shellQuote(value)) + extra);
        EXPECT_EQ(r.code, 2) << f.flag << " " << value << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find(words), std::string::npos) << f.flag << " " << value << ": " << r.err;
        EXPECT_FALSE(fs::exists(run)) << f.flag;
        ++checked;
    }
    EXPECT_GE(checked, 25);
}
