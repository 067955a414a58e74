// main() of core_tests and e2e_tests: GoogleTest's own, but a run whose every test skipped itself exits 77
// (support/SuiteExit.h), and a crash prints its stack before the process dies, so a machine without a
// debugger (the GPU machine) still says where (the test binaries export their symbols: -rdynamic).
// ui_tests has its own (ui/UiTestMain.cpp).
#include <gtest/gtest.h>

#include <csignal>
#include <cstring>

#include <execinfo.h>
#include <unistd.h>

#include "support/SuiteExit.h"

namespace {
extern "C" void printStackAndDie(int signal) {
    // Only async-signal-safe calls: write and backtrace_symbols_fd (backtrace was called once in main, so
    // it allocates nothing here).
    const char* name = signal == SIGSEGV ? "SIGSEGV" : signal == SIGBUS ? "SIGBUS" : "SIGABRT";
    (void)!write(STDERR_FILENO, "\n*** ", 5);
    (void)!write(STDERR_FILENO, name, std::strlen(name));
    (void)!write(STDERR_FILENO, ": the stack ***\n", 16);
    void* frames[64];
    backtrace_symbols_fd(frames, backtrace(frames, 64), STDERR_FILENO);
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}
}  // namespace

int main(int argc, char** argv) {
    void* warm[1];
    (void)backtrace(warm, 1);  // loads libgcc's unwinder now, not inside the handler
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)  // sanitizers report crashes themselves
    for (const int s : {SIGSEGV, SIGBUS, SIGABRT}) std::signal(s, printStackAndDie);
#endif
    ::testing::InitGoogleTest(&argc, argv);
    return wbtest::suiteExitCode(RUN_ALL_TESTS());
}
