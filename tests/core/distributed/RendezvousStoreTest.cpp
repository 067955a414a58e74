// The rendezvous's parts in one process: SHA-256 and HMAC against their standards' vectors, and rank 0's
// server with GatedStore clients: the store's operations as c10d's TCPStore has them, a wrong secret refused
// with InputError, a rank outside the job refused, a client that waits for a key another one sets.
#include <gtest/gtest.h>

#include <mutex>
#include <thread>

#include "distributed/GatedStore.h"
#include "distributed/JobSecret.h"
#include "distributed/RendezvousServer.h"
#include "workbench/domain/Errors.h"

namespace {

using namespace std::chrono_literals;

std::string hexOf(const wb::rendezvous::Digest& d) {
    return wb::rendezvous::hex(std::string(d.begin(), d.end()));
}

std::vector<uint8_t> bytesOf(const std::string& s) { return {s.begin(), s.end()}; }
std::string textOf(const std::vector<uint8_t>& b) { return {b.begin(), b.end()}; }

const std::string kSecret = "0123456789abcdef-the-secret";

struct Server {
    std::mutex mutex;
    std::vector<std::string> lines;  // the server thread's
    std::vector<std::string> refusals() {
        std::lock_guard<std::mutex> lock(mutex);
        return lines;
    }
    wb::RendezvousServer server{"127.0.0.1", 0, kSecret, 2, [this](const std::string& l) {
                                    std::lock_guard<std::mutex> lock(mutex);
                                    lines.push_back(l);
                                }};
    wb::GatedStore::Identity as(int rank, const std::string& secret = kSecret) const {
        return {"127.0.0.1", server.port(), secret, rank};
    }
};

TEST(RendezvousStore, Sha256AndHmacMatchTheirStandardsVectors) {
    using namespace wb::rendezvous;
    EXPECT_EQ(hexOf(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(hexOf(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(hexOf(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(hexOf(hmacSha256("Jefe", "what do ya want for nothing?")),  // RFC 4231, case 2
              "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    EXPECT_EQ(hexOf(hmacSha256(std::string(131, '\xaa'),  // RFC 4231, case 6: a key longer than a block
                               "Test Using Larger Than Block-Size Key - Hash Key First")),
              "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
    EXPECT_NE(randomBytes(16), randomBytes(16));
}

TEST(RendezvousStore, AdmittedRanksSetGetAddCheckAndCompareAsTcpStoreDoes) {
    Server s;
    wb::GatedStore rank0(s.as(0), 5s), rank1(s.as(1), 5s);
    std::thread later([&] {
        std::this_thread::sleep_for(50ms);
        rank0.set("late", bytesOf("here"));
    });
    EXPECT_EQ(textOf(rank1.get("late")), "here");  // waits for the key
    later.join();
    EXPECT_EQ(rank0.add("n", 2), 2);
    EXPECT_EQ(rank1.add("n", 3), 5);
    EXPECT_EQ(textOf(rank1.get("n")), "5");
    EXPECT_TRUE(rank1.check({"n", "late"}));
    EXPECT_FALSE(rank1.check({"n", "absent"}));
    EXPECT_EQ(textOf(rank0.compareSet("c", {}, bytesOf("a"))), "a");
    EXPECT_EQ(textOf(rank0.compareSet("c", bytesOf("x"), bytesOf("b"))), "a");
    EXPECT_EQ(textOf(rank0.compareSet("c", bytesOf("a"), bytesOf("b"))), "b");
    EXPECT_EQ(rank0.getNumKeys(), 3);
    EXPECT_TRUE(rank0.deleteKey("c"));
    EXPECT_FALSE(rank0.deleteKey("c"));
    EXPECT_THROW(rank1.wait({"never"}, 100ms), std::runtime_error);
    auto copy = rank1.clone();  // the same process and rank: admitted again
    EXPECT_EQ(textOf(copy->get("late")), "here");
    EXPECT_EQ(rank1.localAddress(), "127.0.0.1");
    EXPECT_TRUE(s.refusals().empty());
}

TEST(RendezvousStore, AWrongSecretOrARankOutsideTheJobIsRefusedInOneLine) {
    Server s;
    try {
        wb::GatedStore stranger(s.as(1, "not-the-secret-at-all"), 5s);
        FAIL() << "admitted with a wrong secret";
    } catch (const wb::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("wrong job secret"), std::string::npos) << e.what();
    }
    EXPECT_THROW(wb::GatedStore(s.as(2), 5s), wb::InputError);
    for (int i = 0; i < 100 && s.refusals().size() < 2; ++i) std::this_thread::sleep_for(10ms);
    const auto refusals = s.refusals();
    ASSERT_EQ(refusals.size(), 2u);
    EXPECT_NE(refusals[0].find("wrong job secret for rank 1"), std::string::npos) << refusals[0];
    EXPECT_NE(refusals[1].find("rank 2 of a job of 2"), std::string::npos) << refusals[1];
    EXPECT_EQ(refusals[0].rfind("refused a process at 127.0.0.1:", 0), 0u) << refusals[0];
}

}  // namespace
