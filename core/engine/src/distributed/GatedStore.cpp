// GatedStore (see GatedStore.h). Blocking reads and writes with the job's timeout on the socket, so that a
// link that went down without closing ends a request rather than hangs it; waiting for a key is polling (a
// few milliseconds apart), which the rendezvous's handful of keys can afford.
#include "distributed/GatedStore.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "distributed/RendezvousProtocol.h"
#include "workbench/domain/Errors.h"

namespace wb {

using namespace rendezvous;

namespace {

using StoreClock = std::chrono::steady_clock;

std::string storeText(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }
std::vector<uint8_t> storeBytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

// One connection attempt to `ai`, given up after `limit`: -1 when refused or not answered.
int connectWithin(const addrinfo& ai, std::chrono::milliseconds limit) {
    const int fd = socket(ai.ai_family, ai.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai.ai_protocol);
    if (fd < 0) return -1;
    if (connect(fd, ai.ai_addr, ai.ai_addrlen) != 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    pollfd p{fd, POLLOUT, 0};
    int error = 0;
    socklen_t len = sizeof error;
    if (poll(&p, 1, static_cast<int>(limit.count())) != 1 ||
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

std::string localAddressOf(int fd) {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    char host[INET6_ADDRSTRLEN] = "";
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    if (a.ss_family == AF_INET)
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&a)->sin_addr, host, sizeof host);
    else
        inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&a)->sin6_addr, host, sizeof host);
    return host;
}

}  // namespace

const std::string& processToken() {
    static const std::string token = randomBytes(kTokenBytes);
    return token;
}

GatedStore::GatedStore(Identity identity, std::chrono::milliseconds timeout)
    : c10d::Store(timeout), m_identity(std::move(identity)) {
    connectAndPresent();
}

GatedStore::~GatedStore() {
    if (m_fd >= 0) close(m_fd);
}

void GatedStore::connectAndPresent() {
    const auto deadline = StoreClock::now() + timeout_;
    const std::string where = m_identity.host + ":" + std::to_string(m_identity.port);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    while (m_fd < 0) {
        addrinfo* found = nullptr;
        if (getaddrinfo(m_identity.host.c_str(), std::to_string(m_identity.port).c_str(), &hints, &found) ==
            0) {
            for (addrinfo* ai = found; ai && m_fd < 0; ai = ai->ai_next)
                m_fd = connectWithin(*ai, std::chrono::milliseconds(1000));
            freeaddrinfo(found);
        }
        if (m_fd >= 0) break;
        if (StoreClock::now() > deadline) throw StoreUnreachable("no answer from " + where);
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    // Blocking from here, each read and write bounded by the timeout.
    const int one = 1;
    setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    const auto ms = timeout_.count() > 0 ? timeout_.count() : 0;
    timeval tv{static_cast<time_t>(ms / 1000), static_cast<suseconds_t>((ms % 1000) * 1000)};
    setsockopt(m_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(m_fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    fcntl(m_fd, F_SETFL, fcntl(m_fd, F_GETFL) & ~O_NONBLOCK);
    m_localAddress = localAddressOf(m_fd);
    present(where);
}

// The handshake of RendezvousProtocol.h, from the rank's side.
void GatedStore::present(const std::string& where) {
    std::string hello;
    try {
        hello = readExactly(kServerHelloBytes);
    } catch (const std::exception&) {
        throw TrainingError("the process at " + where +
                            " is not rank 0 of a workbench job (it closed the "
                            "connection or said nothing): are MASTER_ADDR and MASTER_PORT rank 0's?");
    }
    if (hello.compare(0, kMagic.size(), kMagic) != 0)
        throw TrainingError("the process at " + where +
                            " is not rank 0 of a workbench job (it does not speak the rendezvous protocol): "
                            "are MASTER_ADDR and MASTER_PORT rank 0's?");
    const std::string nonce = hello.substr(kMagic.size());
    const std::string rank = std::to_string(m_identity.rank);
    sendAll(kMagic + rankBytes(m_identity.rank) + processToken() +
            clientProof(m_identity.secret, nonce, m_identity.rank, processToken()));
    std::string answer;
    try {
        answer = readExactly(1);
    } catch (const std::exception&) {
        answer = std::string(1, static_cast<char>(Admission::WrongSecret));
    }
    switch (static_cast<Admission>(answer[0])) {
        case Admission::Admitted:
            break;
        case Admission::RankTaken:
            throw InputError(
                "RANK " + rank +
                " is already taken by another process of this job: give each process its own RANK");
        case Admission::RankOutsideJob:
            throw InputError("rank 0 at " + where + " runs a job of fewer than " +
                             std::to_string(m_identity.rank + 1) +
                             " processes: start every process with the same WORLD_SIZE");
        default:
            throw InputError(
                "rank 0 at " + where + " refused rank " + rank +
                ": wrong job secret (give every process of the job the same LSTM_WORKBENCH_JOB_SECRET)");
    }
    if (!sameProof(readExactly(kProofBytes), serverProof(m_identity.secret, nonce, processToken())))
        throw TrainingError("the process at " + where + " admitted rank " + rank +
                            " without knowing the job secret: it is not this job's rank 0");
}

void GatedStore::sendAll(const std::string& bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
        const ssize_t n = send(m_fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            throw std::runtime_error("rank 0's store at " + m_identity.host + " is gone (" +
                                     std::strerror(errno) + ")");
        sent += static_cast<std::size_t>(n);
    }
}

std::string GatedStore::readExactly(std::size_t n) {
    std::string out(n, '\0');
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = recv(m_fd, out.data() + got, n - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r == 0)
            throw std::runtime_error("rank 0's store at " + m_identity.host + " closed the connection");
        if (r < 0)
            throw std::runtime_error("rank 0's store at " + m_identity.host + " did not answer (" +
                                     std::strerror(errno) + ")");
        got += static_cast<std::size_t>(r);
    }
    return out;
}

std::string GatedStore::request(const std::string& payload) {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::string frame;
    putU32(frame, static_cast<std::uint32_t>(payload.size()));
    sendAll(frame + payload);
    const auto size = readU32(readExactly(4).data());
    if (size > kMaxFrameBytes)
        throw std::runtime_error("rank 0's store sent a frame of " + std::to_string(size) + " bytes");
    return readExactly(size);
}

namespace {
std::string opFrame(Op op) { return std::string(1, static_cast<char>(op)); }
}  // namespace

void GatedStore::set(const std::string& key, const std::vector<uint8_t>& value) {
    auto f = opFrame(Op::Set);
    putString(f, key);
    putString(f, storeText(value));
    request(f);
}

std::vector<uint8_t> GatedStore::compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                            const std::vector<uint8_t>& desired) {
    auto f = opFrame(Op::CompareSet);
    putString(f, key);
    putString(f, storeText(expected));
    putString(f, storeText(desired));
    const auto answer = request(f);
    return storeBytes(FrameReader(answer).string());
}

std::optional<std::string> GatedStore::tryGet(const std::string& key) {
    auto f = opFrame(Op::TryGet);
    putString(f, key);
    const auto answer = request(f);
    FrameReader r(answer);
    if (r.byte() == 0) return std::nullopt;
    return r.string();
}

std::vector<uint8_t> GatedStore::get(const std::string& key) {
    wait({key});
    auto value = tryGet(key);
    if (!value) throw std::runtime_error("the key " + key + " went away");
    return storeBytes(*value);
}

int64_t GatedStore::add(const std::string& key, int64_t value) {
    auto f = opFrame(Op::Add);
    putString(f, key);
    putI64(f, value);
    const auto answer = request(f);
    return FrameReader(answer).i64();
}

bool GatedStore::deleteKey(const std::string& key) {
    auto f = opFrame(Op::Delete);
    putString(f, key);
    return request(f).at(0) != 0;
}

bool GatedStore::check(const std::vector<std::string>& keys) {
    auto f = opFrame(Op::Check);
    putU32(f, static_cast<std::uint32_t>(keys.size()));
    for (const auto& k : keys) putString(f, k);
    return request(f).at(0) != 0;
}

int64_t GatedStore::getNumKeys() {
    const auto answer = request(opFrame(Op::NumKeys));
    return FrameReader(answer).i64();
}

void GatedStore::wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

void GatedStore::wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) {
    const bool forever = timeout == c10d::Store::kNoTimeout;
    const auto deadline = StoreClock::now() + timeout;
    auto pause = std::chrono::milliseconds(1);
    while (!check(keys)) {
        if (!forever && StoreClock::now() > deadline)
            throw std::runtime_error("waited " + std::to_string(timeout.count() / 1000) +
                                     " s for rank 0's store to hold " + keys.front());
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::milliseconds(20));
    }
}

c10::intrusive_ptr<c10d::Store> GatedStore::clone() {
    return c10::make_intrusive<GatedStore>(m_identity, timeout_);
}

}  // namespace wb
