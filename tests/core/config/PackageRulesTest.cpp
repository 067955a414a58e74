// The rules the Python package reads from rules.json (workbench/domain/PackageRules.h): a default changed in
// the C++ field table reaches the package through the rules alone, with no edit to its Python.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "support/TestSupport.h"
#include "workbench/domain/ConfigFields.h"
#include "workbench/domain/PackageRules.h"

namespace fs = std::filesystem;

TEST(PackageRules, AModelDefaultChangedInTheTableReachesThePythonPackage) {
    auto fields = wb::configFields();
    for (auto& f : fields)
        if (f.path() == "model.hidden") f.initial = "96";
    wbtest::TempDir tmp;
    // The package's rules module beside rules made from the changed table, as `lstm-workbench-cli rules`
    // would print them from a build with that table.
    fs::copy_file(wbtest::sourcePath("python/lstm_workbench/rules.py"), tmp.file("rules.py"));
    wbtest::writeText(tmp.file("rules.json"), wb::packageRulesJson(fields));
    const std::string script =
        "import importlib.util as u; s = u.spec_from_file_location('rules', '" + tmp.file("rules.py") +
        "'); m = u.module_from_spec(s); s.loader.exec_module(m); "
        "print(m.MODEL_DEFAULTS['hidden'], m.initial('model', 'hidden'), m.VALIDATION_BATCH_AT_LEAST)";
    EXPECT_EQ(wbtest::commandOutput("python3 -c \"" + script + "\" 2>&1"), "96 96 64\n");

    // The package as committed says what the table says now.
    const auto committed =
        nlohmann::json::parse(wbtest::readText(wbtest::sourcePath("python/lstm_workbench/rules.json")));
    for (const auto& row : committed["config_fields"])
        if (row["section"] == "model" && row["key"] == "hidden")
            EXPECT_EQ(row["initial"], std::stoll(wb::configField("hidden").initial));
}

TEST(PackageRules, EveryFieldIsThereWithItsTypedInitialValueAndRange) {
    const auto rules = nlohmann::json::parse(wb::packageRulesJson());
    ASSERT_EQ(rules["config_fields"].size(), wb::configFields().size());
    for (const auto& row : rules["config_fields"]) {
        const auto& f = wb::configField(row["key"].get<std::string>());
        if (row["type"] == "integer") EXPECT_TRUE(row["initial"].is_number_integer()) << f.key;
        if (row["type"] == "boolean") EXPECT_TRUE(row["initial"].is_boolean()) << f.key;
        if (row["type"] == "choice") EXPECT_EQ(row["choices"].size(), f.choices.size()) << f.key;
    }
    EXPECT_EQ(rules["validation_batch_at_least"], 64);
    EXPECT_EQ(rules["special_tokens"][0], "<pad>");
}
