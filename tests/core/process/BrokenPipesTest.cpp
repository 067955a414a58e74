// A write to a peer that has gone (process/BrokenPipes.h): an error for the rank that wrote, not its end,
// while the programs it starts keep the usual SIGPIPE.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>

#include "process/BrokenPipes.h"
#include "process/ChildProcess.h"
#include "support/TestSupport.h"

TEST(BrokenPipes, AWriteToAClosedPeerFailsWithEpipeInsteadOfEndingTheProcess) {
    // In a child: without the handler the write ends it with SIGPIPE, which this process must not risk.
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        wb::failWritesToClosedPeers();
        int fds[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) _exit(2);
        close(fds[1]);
        const ssize_t n = write(fds[0], "x", 1);  // a plain write, as Gloo's writev: no MSG_NOSIGNAL
        _exit(n == -1 && errno == EPIPE ? 0 : 3);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_FALSE(WIFSIGNALED(status)) << "ended by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 0) << "2: no socket pair; 3: the write did not fail with EPIPE";
}

TEST(BrokenPipes, TheProgramsStartedAfterwardsTakeTheDefaultSigpipe) {
    wb::failWritesToClosedPeers();
    wbtest::TempDir tmp;
    wb::ChildSpec spec;
    spec.argv = {"/bin/cat", "/proc/self/status"};
    spec.stdoutFile = tmp.file("status");
    ASSERT_EQ(wb::waitChild(wb::spawnChild(spec, "cat")).code, 0);
    // SigIgn and SigCgt are hexadecimal masks, bit N-1 for signal N: SIGPIPE neither ignored nor caught.
    std::istringstream lines(wbtest::readText(tmp.file("status")));
    int seen = 0;
    for (std::string line; std::getline(lines, line);) {
        for (const char* field : {"SigIgn:", "SigCgt:"}) {
            if (line.rfind(field, 0) != 0) continue;
            ++seen;
            const auto mask = std::stoull(line.substr(line.find_first_not_of(" \t", 7)), nullptr, 16);
            EXPECT_EQ(mask & (1ull << (SIGPIPE - 1)), 0u) << line;
        }
    }
    EXPECT_EQ(seen, 2);
}
