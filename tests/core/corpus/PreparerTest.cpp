// Tests for finding the corpus preparer: an installed package finds its own copy relative to its binary (also
// when unpacked somewhere else), a build finds the source tree's, $LSTM_WORKBENCH_PREPARER wins, and the
// command a message tells the user to type is the one that exists where they are.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "support/BadInputs.h"
#include "support/TestSupport.h"
#include "workbench/domain/CorpusCatalog.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Preparer.h"

namespace fs = std::filesystem;

namespace {

class PreparerTest : public ::testing::Test {
protected:
    wbtest::TempDir tmp;
    wbtest::ScopedEnv noOverride{{{"LSTM_WORKBENCH_PREPARER", ""}}};  // empty counts as unset

    // PREFIX/bin/lstm-workbench-cli and, when `withScript`, PREFIX/share/lstm-workbench/prepare.py.
    std::string installTree(const std::string& prefix, bool withScript) {
        const fs::path root = tmp.path() / prefix;
        wbtest::writeText(root / "bin" / "lstm-workbench-cli", "");
        if (withScript) wbtest::writeText(root / "share" / "lstm-workbench" / "prepare.py", "");
        return (root / "bin" / "lstm-workbench-cli").string();
    }
    std::string sourceTree() {
        wbtest::writeText(tmp.path() / "src" / "datasets" / "prepare.py", "");
        return (tmp.path() / "src").string();
    }
};

TEST_F(PreparerTest, InstalledCopyBesideTheBinaryComesFirst) {
    const std::string exe = installTree("usr", true);
    const auto found = wb::findPreparerFor(exe, sourceTree());
    ASSERT_TRUE(found);
    EXPECT_EQ(found->origin, wb::Preparer::Origin::Installed);
    EXPECT_EQ(fs::path(found->script), fs::canonical(tmp.path() / "usr/share/lstm-workbench/prepare.py"));
}

TEST_F(PreparerTest, ABuildUsesTheSourceTreesScript) {
    const std::string exe = installTree("build", false);  // build/bin/…, no share/ beside it
    const auto found = wb::findPreparerFor(exe, sourceTree());
    ASSERT_TRUE(found);
    EXPECT_EQ(found->origin, wb::Preparer::Origin::SourceTree);
    EXPECT_EQ(fs::path(found->script), fs::canonical(tmp.path() / "src/datasets/prepare.py"));
}

TEST_F(PreparerTest, NoneWhenNeitherExists) {
    EXPECT_FALSE(wb::findPreparerFor(installTree("opt", false), (tmp.path() / "gone").string()));
    EXPECT_FALSE(wb::findPreparerFor("", ""));
}

TEST_F(PreparerTest, EnvironmentWinsEvenWhenMissingSoThatRunningItSaysWhy) {
    const wbtest::ScopedEnv env{{{"LSTM_WORKBENCH_PREPARER", (tmp.path() / "elsewhere.py").string()}}};
    const auto found = wb::findPreparerFor(installTree("usr", true), sourceTree());
    ASSERT_TRUE(found);
    EXPECT_EQ(found->origin, wb::Preparer::Origin::Environment);
    EXPECT_EQ(found->script, (tmp.path() / "elsewhere.py").string());
}

TEST_F(PreparerTest, ArgvRunsThePythonScriptWithTheArguments) {
    const auto argv =
        wb::preparerArgv({"/x/prepare.py", wb::Preparer::Origin::Installed}, {"--list", "--json"});
    ASSERT_EQ(argv.size(), 4u);
    EXPECT_NE(argv[0].find("python3"), std::string::npos);
    EXPECT_EQ(argv[1], "/x/prepare.py");
    EXPECT_EQ(argv[2], "--list");
    EXPECT_EQ(argv[3], "--json");
}

// This test binary runs from the build folder, so messages name the source tree's script; with an installed
// preparer named by the environment they name the product's command.
TEST_F(PreparerTest, MessagesNameTheCommandOfThisInstallation) {
    EXPECT_EQ(wb::prepareCommand("tang-quatrains-7"), "python3 datasets/prepare.py tang-quatrains-7");
    const wbtest::ScopedEnv env{{{"LSTM_WORKBENCH_PREPARER", installTree("usr", true)}}};
    EXPECT_EQ(wb::prepareCommand("--force brown"), "lstm-workbench-cli prepare --force brown");
    const wbtest::ScopedEnv cache{{{"LSTM_WORKBENCH_DATA", tmp.str()}}};
    try {
        wb::resolveCorpusPath("tang-quatrains-5");
        FAIL() << "an unprepared corpus resolved";
    } catch (const wb::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("prepare it with: lstm-workbench-cli prepare tang-quatrains-5"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
