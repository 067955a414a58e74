// The engine's one fork and exec (process/ChildProcess.h): the child's output files, its environment, its
// exit code, and a stop sent the moment it exists, which must end it rather than run this process's
// handler in the child (the sweep's cells and the local ranks depend on that).
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>

#include "process/ChildProcess.h"
#include "support/TestSupport.h"

namespace {

// This process's SIGINT handler, as the CLI's sweep has one: a child that ran it instead of the default
// action would go on to exec and sleep its 20 s out.
extern "C" void onInterrupt(int) {}

}  // namespace

TEST(ChildProcess, WritesItsOutputWhereToldSeesItsEnvironmentAndReportsItsExit) {
    wbtest::TempDir tmp;
    wb::ChildSpec spec;
    spec.argv = {"/bin/sh", "-c", "echo out; echo \"err $WB_CHILD_TEST\" >&2; exit 3"};
    spec.extraEnv = {"WB_CHILD_TEST=42"};
    spec.stdoutFile = tmp.file("out");
    spec.stderrFile = tmp.file("err");
    const auto exit = wb::waitChild(wb::spawnChild(spec, "a test child"));
    EXPECT_EQ(exit.code, 3);
    EXPECT_GT(exit.peakRssBytes, 0);
    EXPECT_EQ(wbtest::readText(tmp.file("out")), "out\n");
    EXPECT_EQ(wbtest::readText(tmp.file("err")), "err 42\n");

    spec.argv = {tmp.file("no-such-program")};
    EXPECT_EQ(wb::waitChild(wb::spawnChild(spec, "a test child")).code, 127);
}

TEST(ChildProcess, AStopSentTheMomentItStartsEndsTheChild) {
    struct sigaction mine {
    }, before{};
    mine.sa_handler = onInterrupt;
    sigemptyset(&mine.sa_mask);
    sigaction(SIGINT, &mine, &before);
    wb::ChildSpec spec;
    spec.argv = {"/bin/sleep", "20"};
    for (int round = 0; round < 20; ++round) {
        const auto start = std::chrono::steady_clock::now();
        const pid_t pid = wb::spawnChild(spec, "a test child");
        kill(pid, SIGINT);  // before or after its exec: either way the default action ends it
        const auto exit = wb::waitChild(pid);
        EXPECT_EQ(exit.code, 128 + SIGINT) << "round " << round;
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10)) << "round " << round;
        wb::ChildExit none;
        EXPECT_TRUE(wb::childEnded(pid, &none)) << "an ended child reads as ended";
    }
    sigaction(SIGINT, &before, nullptr);
}
