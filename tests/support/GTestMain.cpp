// main() of core_tests and e2e_tests: GoogleTest's own, but a run whose every test skipped itself exits 77
// (support/SuiteExit.h), and a crash prints its stack before the process dies, so a machine without a
// debugger (the GPU machine) still says where (the test binaries export their symbols: -rdynamic).
// ui_tests has its own (ui/UiTestMain.cpp).
#include <gtest/gtest.h>

#include <csignal>
#include <cstdint>
#include <cstring>

#include <dlfcn.h>
#include <execinfo.h>
#include <ucontext.h>
#include <unistd.h>

#include "support/SuiteExit.h"

namespace {
void writeText(const char* text) { (void)!write(STDERR_FILENO, text, std::strlen(text)); }

void writeHex(const void* address) {
    char digits[2 + 2 * sizeof(void*) + 1] = "0x";
    auto value = reinterpret_cast<std::uintptr_t>(address);
    for (int i = 2 * static_cast<int>(sizeof(void*)) - 1; i >= 0; --i, value >>= 4)
        digits[2 + i] = "0123456789abcdef"[value & 0xf];
    digits[sizeof(digits) - 1] = '\0';
    writeText(digits);
}

// An address, and the library (and symbol) it is in.
void writeWhere(const void* address) {
    writeHex(address);
    Dl_info where{};
    if (dladdr(address, &where) && where.dli_fname) {
        writeText(" in ");
        writeText(where.dli_fname);
        writeText(where.dli_sname ? " (" : "");
        writeText(where.dli_sname ? where.dli_sname : "");
        writeText(where.dli_sname ? ")" : "");
    }
}

// The faulting instruction and address, and the library the instruction is in (dladdr is not
// async-signal-safe, but the process is dying anyway and it names what the stack may not: code without
// unwind tables stops backtrace at the signal frame).
extern "C" void printStackAndDie(int signal, siginfo_t* info, void* context) {
    writeText(signal == SIGSEGV ? "\n*** SIGSEGV" : signal == SIGBUS ? "\n*** SIGBUS" : "\n*** SIGABRT");
    writeText(": the stack ***\n");
#if defined(__x86_64__)
    const auto& registers = static_cast<ucontext_t*>(context)->uc_mcontext.gregs;
    const void* pc = reinterpret_cast<const void*>(registers[REG_RIP]);
    writeText("at instruction ");
    writeWhere(pc);
    writeText(", address ");
    writeHex(info ? info->si_addr : nullptr);
    writeText("\n");
    if (!pc) {  // a call through a null pointer: the caller is the return address the call pushed
        writeText("called from ");
        writeWhere(*reinterpret_cast<void* const*>(registers[REG_RSP]));
        writeText("\n");
    }
#endif
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
    struct sigaction action {};
    action.sa_sigaction = printStackAndDie;
    action.sa_flags = SA_SIGINFO;
    for (const int s : {SIGSEGV, SIGBUS, SIGABRT}) sigaction(s, &action, nullptr);
#endif
    ::testing::InitGoogleTest(&argc, argv);
    return wbtest::suiteExitCode(RUN_ALL_TESTS());
}
