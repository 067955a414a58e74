// Who may join a run (issue #46): rank 0's rendezvous admits only processes of its own job. A single-machine
// run listens on loopback alone; a stranger at the port of a job started by hand (garbage bytes, a wrong job
// secret, a rank already taken, a connection that says half a hello and waits) is refused with one line on
// rank 0 and changes nothing: the job trains the losses it trains without them.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "CliRunner.h"
#include "DistributedSupport.h"
#include "distributed/RendezvousProtocol.h"
#include "support/TestSupport.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using wbtest::shellQuote;
using namespace wbtest::distributed;

namespace {

const std::string kSecret = "e2e-rendezvous-secret-0123456789";

std::string torchrunEnv(int rank, int port, const std::string& secret = kSecret) {
    return "RANK=" + std::to_string(rank) + " WORLD_SIZE=2 LOCAL_RANK=" + std::to_string(rank) +
           " LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(port) +
           " WORKBENCH_DIST_TIMEOUT=30 LSTM_WORKBENCH_JOB_SECRET=" + secret + " ";
}

bool isLoopback(const Listener& l) {
    return l.v6 ? l.address == "00000000000000000000000001000000" : l.address == ipv4Hex("127.0.0.1");
}

bool listensOn(pid_t pid, int port) {
    for (const auto& l : listeningSocketsOf(pid))
        if (l.port == port) return true;
    return false;
}

// A TCP connection to 127.0.0.1:port whose reads give up after 20 s (a test never hangs on one).
int connectTo(int port) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    timeval tv{20, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) ADD_FAILURE() << "cannot connect";
    return fd;
}

// Everything the other end sends until it closes the connection; "<timeout>" if it never does.
std::string readUntilClosed(int fd) {
    std::string got;
    char buf[256];
    for (;;) {
        const ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n == 0 || (n < 0 && errno == ECONNRESET)) return got;
        if (n < 0) return got + "<timeout>";
        got.append(buf, static_cast<std::size_t>(n));
    }
}

int countLines(const std::string& text, const std::string& containing) {
    int n = 0;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) n += line.find(containing) != std::string::npos;
    return n;
}

class DistributedRendezvous : public ::testing::Test {
protected:
    void SetUp() override { wbtest::writeText(m_dir.path() / "pattern.txt", wbtest::patternText(120)); }
    std::string corpus() const { return shellQuote(m_dir.file("pattern.txt")); }
    std::string out(const char* name) const { return " --out " + shellQuote(m_dir.file(name)); }
    fs::path run(const char* name) const { return m_dir.path() / name; }

    wbtest::TempDir m_dir;
};

// `train --nproc 2` on one machine: while it trains, every socket its processes listen on (the store's and
// each rank's Gloo) is bound to loopback; none to every interface or a network address.
TEST_F(DistributedRendezvous, AOneMachineRunListensOnLoopbackOnly) {
    Background job("train " + corpus() + out("run") + kLongRun + " --nproc 2", "WORKBENCH_DIST_TIMEOUT=30 ",
                   /*ownGroup=*/true);
    ASSERT_TRUE(waitForCheckpoint(run("run"))) << job.err();
    std::vector<pid_t> pids = childrenOf(job.pid());
    ASSERT_GE(pids.size(), 1u) << "rank 1 is rank 0's child";
    pids.push_back(job.pid());
    int listeners = 0;
    for (const pid_t pid : pids)
        for (const auto& l : listeningSocketsOf(pid)) {
            ++listeners;
            EXPECT_TRUE(isLoopback(l)) << "pid " << pid << " listens on " << l.address << ":" << l.port;
        }
    EXPECT_GE(listeners, 1) << "rank 0's store listens while the job trains";
    kill(-job.pid(), SIGINT);
    EXPECT_EQ(job.wait(30s), 130) << job.err();
}

// A job of 2 started by hand, as torchrun would, with four strangers at its port before rank 1 comes: each
// is refused in one line on rank 0, the job trains on, and its losses are those of the same job alone.
TEST_F(DistributedRendezvous, StrangersAreRefusedInOneLineEachAndTheJobTrainsAsWithoutThem) {
    const std::string args = std::string(kModel) + " --batch-size 12 --max-steps 20 --validate-every 10";
    const auto alone = wbtest::runCli("train " + corpus() + out("alone") + args + " --nproc 2");
    ASSERT_EQ(alone.code, 0) << alone.err;

    const int port = freePort();
    Background rank0("train " + corpus() + out("job") + args, torchrunEnv(0, port));
    for (int i = 0; i < 3000 && !listensOn(rank0.pid(), port); ++i) std::this_thread::sleep_for(10ms);
    ASSERT_TRUE(listensOn(rank0.pid(), port)) << rank0.err();

    // (a) Bytes that are not the protocol: closed, nothing else said.
    const int garbage = connectTo(port);
    const std::string junk = "GET / HTTP/1.0\r\n\r\n";
    ASSERT_EQ(send(garbage, junk.data(), junk.size(), MSG_NOSIGNAL), static_cast<ssize_t>(junk.size()));
    // Rank 0 closes it: what came before is its hello, or nothing where the close overtook it (a reset).
    const auto answer = readUntilClosed(garbage);
    EXPECT_TRUE(answer.empty() || answer.rfind(wb::rendezvous::kMagic, 0) == 0) << answer;
    EXPECT_LE(answer.size(), wb::rendezvous::kServerHelloBytes) << answer;
    close(garbage);
    // (d) Half a hello, then silence, for the whole job: the stall that one c10d TCPStore thread cannot take.
    const int halfOpen = connectTo(port);
    ASSERT_EQ(send(halfOpen, "LWB-R", 5, MSG_NOSIGNAL), 5);
    // (b) A process with a wrong secret: refused, exit 2, one line.
    const auto wrong = wbtest::runCli("train " + corpus() + out("wrong") + args,
                                      torchrunEnv(1, port, "not-this-jobs-secret"));
    EXPECT_EQ(wrong.code, 2) << wrong.err;
    EXPECT_EQ(lineCount(wrong.err), 1) << wrong.err;
    EXPECT_NE(wrong.err.find("wrong job secret"), std::string::npos) << wrong.err;
    // (c) The right secret, a rank already taken (rank 0 holds rank 0): refused with the answer that says so.
    {
        using namespace wb::rendezvous;
        const int fd = connectTo(port);
        std::string hello(kServerHelloBytes, '\0');
        ASSERT_EQ(recv(fd, hello.data(), hello.size(), MSG_WAITALL), static_cast<ssize_t>(hello.size()));
        const auto nonce = hello.substr(kMagic.size()), token = randomBytes(kTokenBytes);
        const auto ours = kMagic + rankBytes(0) + token + clientProof(kSecret, nonce, 0, token);
        ASSERT_EQ(send(fd, ours.data(), ours.size(), MSG_NOSIGNAL), static_cast<ssize_t>(ours.size()));
        EXPECT_EQ(readUntilClosed(fd), std::string(1, static_cast<char>(Admission::RankTaken)));
        close(fd);
    }
    // Rank 1 of the job itself: admitted, and the job trains.
    const auto rank1 = wbtest::runCli("train " + corpus() + out("unused") + args, torchrunEnv(1, port));
    EXPECT_EQ(rank1.code, 0) << rank1.err;
    EXPECT_EQ(rank0.wait(60s), 0) << rank0.err();
    close(halfOpen);

    const auto err = rank0.err();
    EXPECT_EQ(countLines(err, "rank 0: refused a process at 127.0.0.1:"), countLines(err, "refused")) << err;
    EXPECT_EQ(countLines(err, "does not speak the rendezvous protocol"), 1) << err;
    EXPECT_EQ(countLines(err, "wrong job secret for rank 1"), 1) << err;
    EXPECT_EQ(countLines(err, "rank 0 is already taken"), 1) << err;
    EXPECT_EQ(runJson(run("job"))["world_size"], 2);
    expectSameLosses(run("alone"), run("job"));
}

}  // namespace
