// Scale-out across hosts (issue #29): each rank in a network namespace of its own (NetworkHosts: its own
// address, interface and host name, on one bridge), started by hand with torchrun's variables as on real
// machines, GLOO_SOCKET_IFNAME naming the interface. What loopback cannot show: that the job forms over a
// real interface between addresses, that every fault a network brings (a rank that hangs with its sockets
// open, a link that goes down, rank 0 gone) ends the job within the timeout with one line naming the rank
// and its host, and that no process is left behind.
//
// Root and iproute2 are needed; without them every test skips by name with the reason. Equivalence uses
// SGD, as DistributedTest does, so that gradients summed instead of averaged would fail it.
#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>

#include "DistributedSupport.h"
#include "sweep/NetworkHosts.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace wbtest::distributed;
using wb::NetworkHosts;
using wbtest::shellQuote;

namespace {

constexpr int kTimeout = 8;  // WORKBENCH_DIST_TIMEOUT of the fault tests, in seconds

class NetworkScaleOut : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string why = NetworkHosts::unavailableReason();
        if (!why.empty()) GTEST_SKIP() << why;
        wbtest::writeText(m_dir.path() / "pattern.txt", wbtest::patternText(120));
    }
    std::string corpus() const { return shellQuote(m_dir.file("pattern.txt")); }
    std::string out(const std::string& name) const { return " --out " + shellQuote(m_dir.file(name)); }
    fs::path run(const std::string& name) const { return m_dir.path() / name; }

    // torchrun's variables for a rank on host `rank` of `hosts`, rank 0's address the master's.
    static std::string env(const NetworkHosts& hosts, int rank, int port, int timeout = 30) {
        return "RANK=" + std::to_string(rank) + " WORLD_SIZE=" + std::to_string(hosts.size()) +
               " LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 MASTER_ADDR=" + hosts.address(0) +
               " MASTER_PORT=" + std::to_string(port) + " GLOO_SOCKET_IFNAME=" + NetworkHosts::interface() +
               " WORKBENCH_DIST_TIMEOUT=" + std::to_string(timeout) +
               " LSTM_WORKBENCH_JOB_SECRET=network-scale-out-test-secret ";
    }

    // One long run over 2 hosts, rank 1 started first; the test waits for rank 0's first checkpoint.
    struct Pair {
        std::unique_ptr<Background> rank1, rank0;
    };
    Pair startPair(const NetworkHosts& hosts, int port) const {
        Pair p;
        p.rank1 = std::make_unique<Background>("train " + corpus() + out("unused") + kLongRun,
                                               env(hosts, 1, port, kTimeout), false, hosts.run(1));
        p.rank0 = std::make_unique<Background>("train " + corpus() + out("job") + kLongRun,
                                               env(hosts, 0, port, kTimeout), false, hosts.run(0));
        return p;
    }

    // The namespaces NetworkHosts made ("wb<pid>n<k>...") for a process that has ended: what a sweep that
    // cleaned up after itself leaves none of. Not a count of every namespace: another suite running beside
    // this one (SlurmCluster, Distributed) makes and removes namespaces of its own meanwhile.
    static std::set<std::string> orphanedNamespaces() {
        std::set<std::string> out;
        if (FILE* p = popen("ip netns list", "r")) {
            char line[256];
            while (std::fgets(line, sizeof line, p)) {
                const std::string name(line, std::strcspn(line, " \n"));
                const auto digitsEnd = name.find_first_not_of("0123456789", 2);
                if (name.rfind("wb", 0) != 0 || digitsEnd == 2 || digitsEnd == std::string::npos) continue;
                if (::kill(std::stoi(name.substr(2, digitsEnd - 2)), 0) != 0 && errno == ESRCH)
                    out.insert(name);
            }
            pclose(p);
        }
        return out;
    }

    wbtest::TempDir m_dir;
};

// Two and three hosts train the losses of one process with the same global batch (12 rows: 6 or 4 a host).
TEST_F(NetworkScaleOut, TwoAndThreeHostsTrainTheLossesOfOneProcess) {
    const std::string args = kSgdModel + " --batch-size 12 --max-steps 12 --validate-every 6";
    auto single = wbtest::runCli("train " + corpus() + out("single") + args);
    ASSERT_EQ(single.code, 0) << single.err;
    for (const int count : {2, 3}) {
        SCOPED_TRACE(std::to_string(count) + " hosts");
        NetworkHosts hosts(count);
        const std::string name = "hosts" + std::to_string(count);
        std::vector<std::unique_ptr<Background>> ranks;
        for (int r = count - 1; r >= 0; --r)
            ranks.push_back(std::make_unique<Background>(
                "train " + corpus() + out(r == 0 ? name : name + "-unused") + args, env(hosts, r, 29500),
                false, hosts.run(r)));
        for (auto& rank : ranks) {
            const int code = rank->wait(120s);
            ASSERT_EQ(code, 0) << rank->err();
        }
        expectSameLosses(run("single"), run(name));
        const auto info = runJson(run(name));
        EXPECT_EQ(info["world_size"], count);
        ASSERT_TRUE(info["hosts"].is_array()) << info.dump(2);
        for (int r = 0; r < count; ++r) EXPECT_EQ(info["hosts"][r], hosts.hostName(r)) << info.dump(2);
        EXPECT_FALSE(fs::exists(run(name + "-unused"))) << "only rank 0 writes";
    }
}

// A rank that hangs with its sockets open on another host (SIGSTOP): rank 0's next collective times out and
// the job ends with one line naming the rank and its host; the checkpoint stays and resumes in one process.
TEST_F(NetworkScaleOut, AHungRankOnAnotherHostEndsTheJobWithinTheTimeout) {
    NetworkHosts hosts(2);
    auto pair = startPair(hosts, 29501);
    Background& rank1 = *pair.rank1;
    Background& rank0 = *pair.rank0;
    ASSERT_TRUE(waitForCheckpoint(run("job"))) << rank0.err() << rank1.err();
    const auto stoppedAt = std::chrono::steady_clock::now();
    kill(rank1.pid(), SIGSTOP);
    const int code = rank0.wait(40s);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - stoppedAt).count();
    ASSERT_NE(code, -1) << "rank 0 still runs 40 s after rank 1 hung";
    EXPECT_EQ(code, 1) << rank0.err();
    EXPECT_LT(seconds, kTimeout + 5) << rank0.err();
    EXPECT_EQ(lineCount(rank0.err()), 1) << rank0.err();
    EXPECT_NE(rank0.err().find("rank 1 on host1"), std::string::npos) << rank0.err();
    std::printf("rank 0 stopped %.2f s after rank 1 hung on host1: %s", seconds, rank0.err().c_str());
    kill(rank1.pid(), SIGKILL);
    const auto info = runJson(run("job"));
    EXPECT_EQ(info["status"], "failed");
    const auto steps = info["summary"]["steps"].get<int>();
    auto resumed = wbtest::runCli("resume " + shellQuote(run("job").string()) + " --max-steps " +
                                  std::to_string(steps + 4) + " --nproc 1 --json");
    ASSERT_EQ(resumed.code, 0) << resumed.err;
}

// The link to a host taken down mid-run: nothing closes, nothing arrives. Both sides end within the timeout
// (the cut-off rank a little later: it also waits for the store, which is across the cut), each with one
// line; rank 0's names the rank and host it lost, and its checkpoint resumes.
TEST_F(NetworkScaleOut, ALinkTakenDownEndsBothSidesWithOneLineEach) {
    NetworkHosts hosts(2);
    auto pair = startPair(hosts, 29502);
    Background& rank1 = *pair.rank1;
    Background& rank0 = *pair.rank0;
    ASSERT_TRUE(waitForCheckpoint(run("job"))) << rank0.err() << rank1.err();
    const auto cutAt = std::chrono::steady_clock::now();
    hosts.setLink(1, false);
    const int code0 = rank0.wait(40s);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - cutAt).count();
    ASSERT_NE(code0, -1) << "rank 0 still runs 40 s after the link went down";
    EXPECT_EQ(code0, 1) << rank0.err();
    EXPECT_LT(seconds, kTimeout + 5) << rank0.err();
    EXPECT_EQ(lineCount(rank0.err()), 1) << rank0.err();
    EXPECT_NE(rank0.err().find("rank 1 on host1"), std::string::npos) << rank0.err();
    const int code1 = rank1.wait(std::chrono::seconds(3 * kTimeout + 10));
    ASSERT_NE(code1, -1) << "rank 1 still runs long after its link went down: " << rank1.err();
    EXPECT_EQ(code1, 1) << rank1.err();
    EXPECT_EQ(lineCount(rank1.err()), 1) << rank1.err();
    EXPECT_NE(rank1.err().find("rank 0"), std::string::npos) << rank1.err();
    std::printf("rank 0 stopped %.2f s after the cut: %srank 1: %s", seconds, rank0.err().c_str(),
                rank1.err().c_str());
    const auto steps = runJson(run("job"))["summary"]["steps"].get<int>();
    auto resumed = wbtest::runCli("resume " + shellQuote(run("job").string()) + " --max-steps " +
                                  std::to_string(steps + 4) + " --json");
    ASSERT_EQ(resumed.code, 0) << resumed.err;
}

// Issue #46: across hosts rank 0 listens on MASTER_ADDR's address alone (not every interface), and a process
// on another host without the job's secret is refused there in one line while the job trains on.
TEST_F(NetworkScaleOut, RankZeroListensOnTheMastersAddressOnlyAndRefusesAStrangerWithoutTheSecret) {
    NetworkHosts hosts(2);
    auto pair = startPair(hosts, 29504);
    ASSERT_TRUE(waitForCheckpoint(run("job"))) << pair.rank0->err() << pair.rank1->err();
    const auto listeners = listeningSocketsOf(pair.rank0->pid());
    ASSERT_FALSE(listeners.empty());
    for (const auto& l : listeners)
        EXPECT_TRUE(!l.v6 && l.address == ipv4Hex(hosts.address(0))) << l.address << ":" << l.port;
    std::string stranger = env(hosts, 1, 29504, kTimeout);
    stranger.replace(stranger.find("LSTM_WORKBENCH_JOB_SECRET="), std::string::npos,
                     "LSTM_WORKBENCH_JOB_SECRET=a-guess-at-the-secret ");
    Background intruder("train " + corpus() + out("intruder") + kLongRun, stranger, false, hosts.run(1));
    EXPECT_EQ(intruder.wait(30s), 2) << intruder.err();
    EXPECT_NE(intruder.err().find("wrong job secret"), std::string::npos) << intruder.err();
    EXPECT_NE(pair.rank0->err().find("rank 0: refused a process at " + hosts.address(1) + ":"),
              std::string::npos)
        << pair.rank0->err();
    kill(pair.rank0->pid(), SIGINT);  // the job still trains: Ctrl+C stops it as ever
    EXPECT_EQ(pair.rank0->wait(30s), 130) << pair.rank0->err();
    EXPECT_NE(pair.rank1->wait(30s), -1) << "rank 1 still runs 30 s after rank 0 stopped";
}

// Rank 0 killed outright: the others stop with one line naming it, within seconds (its sockets close), and
// no process is left on their hosts.
TEST_F(NetworkScaleOut, AKilledRankZeroLeavesNoProcessBehind) {
    NetworkHosts hosts(3);
    std::vector<std::unique_ptr<Background>> workers;
    for (int r = 2; r >= 1; --r)
        workers.push_back(std::make_unique<Background>("train " + corpus() + out("unused") + kLongRun,
                                                       env(hosts, r, 29503, kTimeout), false, hosts.run(r)));
    Background rank0("train " + corpus() + out("job") + kLongRun, env(hosts, 0, 29503, kTimeout), false,
                     hosts.run(0));
    ASSERT_TRUE(waitForCheckpoint(run("job"))) << rank0.err();
    kill(rank0.pid(), SIGKILL);
    EXPECT_EQ(rank0.wait(10s), 128 + SIGKILL);
    for (auto& worker : workers) {
        const int code = worker->wait(std::chrono::seconds(kTimeout + 10));
        ASSERT_NE(code, -1) << "a worker outlived rank 0 by the timeout";
        EXPECT_EQ(code, 1) << worker->err();
        EXPECT_EQ(lineCount(worker->err()), 1) << worker->err();
        EXPECT_NE(worker->err().find("rank 0"), std::string::npos) << worker->err();
    }
    for (int h = 1; h < 3; ++h) EXPECT_FALSE(hosts.anyProcessIn(h)) << "a process is left on host" << h;
}

// The sweep's link axis: each cell trains over hosts of its own, its links shaped to the cell's rate, and
// the sweep folder reads as any other (results.csv with a link column, the speed-up plot naming the links).
// The hosts are gone when the sweep ends.
TEST_F(NetworkScaleOut, ASweepOverLinksTrainsEachCellOnHostsOfItsOwn) {
    const auto orphansBefore = orphanedNamespaces();
    const auto sweep = m_dir.path() / "sweep";
    auto r = wbtest::runCli("sweep " + corpus() + " --out " + shellQuote(sweep.string()) + kSgdModel +
                            " --batch-size 12 --max-steps 10 --validate-every 100 --nproc 2"
                            " --grid link=unshaped,1mbit");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto sweepJson = nlohmann::json::parse(wbtest::readText(sweep / "sweep.json"));
    ASSERT_EQ(sweepJson["cells"].size(), 2u);
    for (const auto& cell : sweepJson["cells"]) {
        const auto info = runJson(sweep / cell["run_dir"].get<std::string>());
        EXPECT_EQ(info["world_size"], 2);
        EXPECT_EQ(info["hosts"], nlohmann::json::array({"host0", "host1"})) << info.dump(2);
        EXPECT_GT(info["gradient_bytes_per_step"].get<double>(), 0);
    }
    // The cells' samples/s: at 1 Mbit/s each step waits for its gradients (tens of kB) on the wire.
    std::istringstream csv(wbtest::readText(sweep / "results.csv"));
    std::string line;
    std::getline(csv, line);
    ASSERT_EQ(line.rfind("kind,cell,repeat,link,status,runs,samples_per_s,", 0), 0u) << line;
    std::map<std::string, double> samplesPerSecond;  // the cell rows' mean, by link
    while (std::getline(csv, line)) {
        std::vector<std::string> f;
        std::istringstream fields(line);
        for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
        if (f.size() > 6 && f[0] == "cell") samplesPerSecond[f[3]] = std::stod(f[6]);
    }
    ASSERT_EQ(samplesPerSecond.size(), 2u);
    EXPECT_LT(samplesPerSecond["1mbit"], samplesPerSecond["unshaped"] / 3)
        << samplesPerSecond["1mbit"] << " against " << samplesPerSecond["unshaped"];
#ifdef WORKBENCH_CLI_HAS_UI
    EXPECT_NE(wbtest::readText(sweep / "plots" / "speedup.csv").find("1mbit link"), std::string::npos);
#endif
    auto left = orphanedNamespaces();  // new ones: the sweep's own hosts remove older leftovers
    for (const auto& name : orphansBefore) left.erase(name);
    EXPECT_TRUE(left.empty()) << "the sweep left namespaces behind, " << *left.begin();
}

}  // namespace
