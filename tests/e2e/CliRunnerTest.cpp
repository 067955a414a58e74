// The e2e suites' runner (CliRunner.h): a command run in a forked copy of the test process must be the
// program itself, the same output, errors, exit code, files and kill as the program that execs, and a command
// that needs a fresh process must get one.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "CliRunner.h"
#include "support/TestSupport.h"

namespace {

using wbtest::quote;

// runCli with every command execed (WORKBENCH_E2E_CLI=exec), the variable put back after.
wbtest::CliResult runExeced(const std::string& args, const std::string& env = "") {
    const char* before = std::getenv("WORKBENCH_E2E_CLI");
    const std::string saved = before ? before : "";
    ::setenv("WORKBENCH_E2E_CLI", "exec", 1);
    auto r = wbtest::runCli(args, env);
    if (before)
        ::setenv("WORKBENCH_E2E_CLI", saved.c_str(), 1);
    else
        ::unsetenv("WORKBENCH_E2E_CLI");
    return r;
}

const char* kTinyRun =
    " --seq-len 16 --embedding 8 --hidden 16 --layers 1 --batch-size 8 --lr 0.01 --threads 1 --dropout 0"
    " --max-steps 4 --validate-every 2 --log-every 1 --warmup 0 --quiet --json";

}  // namespace

TEST(CliRunner, AForkedCommandAnswersAsTheProgramDoes) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "corpus.txt", wbtest::patternText(40));
    wbtest::writeText(dir.path() / "bad.json", "{\"task\": ");
    const std::vector<std::string> commands = {
        "--version",
        "train --help",
        "no-such-command",
        "inspect " + quote(dir.file("corpus.txt")) + " --json --preview 1",
        "train " + quote(dir.file("corpus.txt")) + " --config " + quote(dir.file("bad.json")) + " --out " +
            quote(dir.file("never")),
        "resume " + quote(dir.file("missing-run")),
    };
    for (const auto& args : commands) {
        SCOPED_TRACE(args);
        ASSERT_TRUE(wbtest::runsForked(args));
        const auto forked = wbtest::runCli(args);
        const auto execed = runExeced(args);
        EXPECT_EQ(forked.code, execed.code);
        EXPECT_EQ(forked.out, execed.out);
        EXPECT_EQ(forked.err, execed.err);
        EXPECT_FALSE(forked.out.empty() && forked.err.empty()) << "the command said nothing";
    }
}

TEST(CliRunner, AForkedRunTrainsAsTheProgramDoes) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "corpus.txt", wbtest::patternText(40));
    const auto train = [&](const std::string& out) {
        return "train " + quote(dir.file("corpus.txt")) + " --out " + quote(dir.file(out)) + kTinyRun;
    };
    const auto forked = wbtest::runCli(train("forked"));
    const auto execed = runExeced(train("execed"));
    ASSERT_EQ(forked.code, 0) << forked.err;
    ASSERT_EQ(execed.code, 0) << execed.err;
    const auto summary = [](const std::string& out) { return nlohmann::json::parse(out)["summary"]; };
    EXPECT_EQ(summary(forked.out)["final_train_loss"], summary(execed.out)["final_train_loss"]);
    EXPECT_EQ(summary(forked.out)["steps"], 4);
    for (const char* file : {"config.json", "vocab.json", "model.safetensors"})
        EXPECT_EQ(wbtest::readText(dir.path() / "forked" / file).size(),
                  wbtest::readText(dir.path() / "execed" / file).size())
            << file;
    // A failpoint's kill ends the forked process as it ends the program.
    const auto killed = wbtest::runCli(train("killed"), "WORKBENCH_FAILPOINTS=kill@1 ");
    EXPECT_TRUE(killed.killed);
    EXPECT_EQ(killed.code, 128 + SIGKILL);
}

TEST(CliRunner, WhatNeedsAFreshProcessExecsTheProgram) {
    EXPECT_TRUE(
        wbtest::runsForked("--version", "LSTM_WORKBENCH_BASELINE_CACHE= WORKBENCH_FAILPOINTS='kill@3' "));
    EXPECT_FALSE(wbtest::runsForked("--version >/dev/null"));
    EXPECT_FALSE(wbtest::runsForked("devices | head -1"));
    EXPECT_FALSE(wbtest::runsForked("devices $(echo --json)"));
    EXPECT_FALSE(wbtest::runsForked("devices", "OMP_NUM_THREADS=2 "));
    EXPECT_FALSE(wbtest::runsForked("devices", "LSTM_WORKBENCH_CPU_CAPABILITY=avx2 "));
    EXPECT_FALSE(wbtest::runsForked("devices", "ATEN_CPU_CAPABILITY=avx2 "));
    // ... and so what such a variable changes is seen.
    const auto capped = wbtest::runCli("devices", "LSTM_WORKBENCH_CPU_CAPABILITY=avx2 ");
    ASSERT_EQ(capped.code, 0) << capped.err;
    EXPECT_NE(capped.out.find("CPU kernels: avx2"), std::string::npos) << capped.out;
}
