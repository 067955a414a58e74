// The bad-input catalogue (tests/support/BadInputs.h) driven through lstm-workbench-cli, as a user types
// it: every malformed input exits 2 with exactly one line on stderr naming the file (and line), and leaves
// its folder exactly as it was; the inputs a user expects to work are inspected with exit code 0.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

#include "CliRunner.h"
#include "support/BadInputs.h"
#include "support/TestSupport.h"

namespace fs = std::filesystem;
using wbtest::BadInput;
using wbtest::BadInputCase;
using wbtest::Entry;

namespace {

using wbtest::quote;

std::string cliArgs(const BadInputCase& c, const BadInput& in, const fs::path& scratch) {
    switch (c.entry) {
        case Entry::Inspect:
            return "inspect --json --preview 1 " + quote(in.path);
        case Entry::Train:
            return "train " + quote(in.path) + " --out " + quote(in.out) + wbtest::tinyTrainFlags(c.task);
        case Entry::TrainConfig:
            return "train " + quote(in.corpus) + " --config " + quote(in.path) + " --out " + quote(in.out) +
                   " --quiet";
        case Entry::Resume:
            return "resume " + quote(in.path) + " --quiet";
        case Entry::Generate:
            return "generate " + quote(in.path) + " --length 5";
        case Entry::GeneratePoem:
            return "generate " + quote(in.path) + " --form quatrain7 --meter strict";
        case Entry::Classify:
            return "classify " + quote(in.path) +
                   (in.classifyFile.empty() ? std::string(" --text 'a good film'")
                                            : " --file " + quote(in.classifyFile));
        case Entry::Compare:
            // The CSV goes outside the case's folder: a failed compare must not write it either.
            return "compare " + quote(in.path) + " --csv " + quote((scratch / "compare.csv").string());
        case Entry::Sweep:
            return "sweep " + quote(in.path) + " --quiet";
    }
    return "";
}

class BadInputCli : public ::testing::TestWithParam<BadInputCase> {};

TEST_P(BadInputCli, ThroughTheCli) {
    const BadInputCase& c = GetParam();
    wbtest::TempDir dir, scratch;
    const BadInput in = c.write(dir.path());
    const auto before = wbtest::snapshotTree(dir.path());
    std::string env;
    for (const auto& [k, v] : c.env) env += k + "=" + quote(v) + " ";

    // A CLI that blocks (a FIFO read, a symlink loop followed) hangs here until ctest's timeout ends the
    // test: that is the hang guard. How long a call takes is not asserted.
    const auto r = wbtest::runCli(cliArgs(c, in, scratch.path()), env);

    if (c.accepted()) {
        ASSERT_EQ(r.code, 0) << c.name << ": " << r.err;
        const auto j = nlohmann::json::parse(r.out);
        EXPECT_EQ(j["documents"].get<std::int64_t>(), c.documents) << c.name;
        const auto first = j["preview"][0]["text"].get<std::string>();
        EXPECT_EQ(first.rfind(c.firstText, 0), 0u) << c.name << ": preview starts with '" << first << "'";
        EXPECT_EQ(first.find('\r'), std::string::npos) << c.name;
        std::vector<std::string> classes;
        for (auto it = j["classes"].begin(); it != j["classes"].end(); ++it) classes.push_back(it.key());
        EXPECT_EQ(classes, c.classes) << c.name;
        return;
    }
    EXPECT_EQ(r.code, 2) << c.name << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.name << ": not one line: " << r.err;
    EXPECT_EQ(r.err.find('\r'), std::string::npos) << c.name << ": " << r.err;
    EXPECT_EQ(r.err.rfind("lstm-workbench-cli: error: ", 0), 0u) << c.name << ": " << r.err;
    for (const auto& fragment : c.expected)
        EXPECT_NE(r.err.find(fragment), std::string::npos)
            << c.name << ": '" << fragment << "' not in: " << r.err;
    if (c.line > 0) {
        EXPECT_NE(r.err.find(":" + std::to_string(c.line) + ": "), std::string::npos)
            << c.name << ": " << r.err;
    }
    EXPECT_TRUE(r.out.empty()) << c.name << ": printed on stdout: " << r.out.substr(0, 200);
    EXPECT_EQ(wbtest::snapshotTree(dir.path()), before) << c.name << ": the command changed or left files";
    EXPECT_EQ(wbtest::listTree(scratch.path()), std::vector<std::string>{}) << c.name;
    if (!in.out.empty()) {
        EXPECT_FALSE(fs::exists(in.out)) << c.name << ": a run folder was left behind";
    }
}

INSTANTIATE_TEST_SUITE_P(Catalog, BadInputCli, ::testing::ValuesIn(wbtest::badInputCatalog()),
                         [](const ::testing::TestParamInfo<BadInputCase>& info) { return info.param.name; });

}  // namespace
