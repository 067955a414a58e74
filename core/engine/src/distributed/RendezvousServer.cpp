// RendezvousServer (see RendezvousServer.h): one thread, poll(2) over the listening sockets, a wake pipe and
// every connection, all non-blocking. A stranger's connection holds a nonce, a few buffered bytes and a
// deadline; it never reaches the store.
#include "distributed/RendezvousServer.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <thread>
#include <unordered_map>
#include <vector>

#include "distributed/RendezvousProtocol.h"
#include "workbench/domain/Errors.h"

namespace wb {

// Named rather than anonymous: RendezvousServer::State holds these.
namespace rendezvous {

using ServerClock = std::chrono::steady_clock;
constexpr auto kHelloDeadline = std::chrono::seconds(10);
constexpr std::size_t kMaxStrangers = 64;  // connections not yet admitted; the oldest goes first

struct Connection {
    int fd = -1;
    std::string peer, nonce, in, out;
    bool admitted = false, closing = false;
    ServerClock::time_point since;
};

inline std::string peerName(const sockaddr_storage& a) {
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (a.ss_family == AF_INET) {
        const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
        inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host);
        port = ntohs(v4->sin_port);
        return std::string(host) + ":" + std::to_string(port);
    }
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
    inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host);
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(v6->sin6_port));
}

// The store's answer to one admitted request (the frame's payload after its length).
class KeyValues {
public:
    std::string answer(const std::string& frame) {
        FrameReader r(frame);
        std::string out;
        switch (static_cast<Op>(r.byte())) {
            case Op::Set: {
                auto k = r.string();
                m_values[k] = r.string();
                break;
            }
            case Op::TryGet: {
                const auto it = m_values.find(r.string());
                out.push_back(it == m_values.end() ? '\0' : '\1');
                if (it != m_values.end()) putString(out, it->second);
                break;
            }
            case Op::Add: {
                auto k = r.string();
                const auto it = m_values.find(k);
                const std::int64_t now = (it == m_values.end() ? 0 : std::stoll(it->second)) + r.i64();
                m_values[k] = std::to_string(now);
                putI64(out, now);
                break;
            }
            case Op::Check: {
                bool all = true;
                for (std::uint32_t n = r.u32(); n > 0; --n) all = m_values.count(r.string()) && all;
                out.push_back(all ? '\1' : '\0');
                break;
            }
            case Op::Delete:
                out.push_back(m_values.erase(r.string()) ? '\1' : '\0');
                break;
            case Op::NumKeys:
                putI64(out, static_cast<std::int64_t>(m_values.size()));
                break;
            case Op::CompareSet:
                out = compareSet(r);
                break;
            default:
                throw std::runtime_error("an unknown rendezvous request");
        }
        return out;
    }

private:
    // c10d's compareSet: set `desired` when the value is `expected` (an absent key counts as empty).
    std::string compareSet(FrameReader& r) {
        auto k = r.string(), expected = r.string(), desired = r.string();
        std::string out;
        const auto it = m_values.find(k);
        if ((it == m_values.end() && expected.empty()) || (it != m_values.end() && it->second == expected)) {
            m_values[k] = desired;
            putString(out, desired);
        } else {
            putString(out, it == m_values.end() ? expected : it->second);
        }
        return out;
    }
    std::unordered_map<std::string, std::string> m_values;
};

}  // namespace rendezvous

using namespace rendezvous;

struct RendezvousServer::State {
    std::string secret;
    int worldSize = 1, port = 0, wake[2] = {-1, -1};
    Log log;
    std::vector<int> listeners;
    std::deque<Connection> connections;
    std::map<int, std::string> ranks;  // rank -> the token of the process that holds it
    KeyValues store;
    std::thread thread;

    void run();
    void accept(int listener);
    void refuse(Connection& c, const std::string& reason, Admission answer, bool answerIt);
    void admit(Connection& c);
    void serve(Connection& c);
    void receive(Connection& c);
    void flush(Connection& c);
};

bool isWildcardAddress(const std::string& a) { return a == "0.0.0.0" || a == "::" || a == "*" || a.empty(); }

namespace {

int listenOn(const addrinfo& ai, int& error) {
    const int fd = socket(ai.ai_family, ai.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai.ai_protocol);
    if (fd < 0) return error = errno, -1;
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ai.ai_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(fd, ai.ai_addr, ai.ai_addrlen) != 0 || listen(fd, 128) != 0) {
        error = errno;
        close(fd);
        return -1;
    }
    return fd;
}

int boundPort(int fd) {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    return a.ss_family == AF_INET ? ntohs(reinterpret_cast<sockaddr_in*>(&a)->sin_port)
                                  : ntohs(reinterpret_cast<sockaddr_in6*>(&a)->sin6_port);
}

}  // namespace

RendezvousServer::RendezvousServer(const std::string& bindAddress, int port, const std::string& secret,
                                   int worldSize, Log log)
    : m(std::make_unique<State>()) {
    m->secret = secret;
    m->worldSize = worldSize;
    m->log = std::move(log);
    const std::string shown = bindAddress + ":" + std::to_string(port);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string host = bindAddress == "*" ? "" : bindAddress;
    if (const int rc =
            getaddrinfo(host.empty() ? nullptr : host.c_str(), std::to_string(port).c_str(), &hints, &found);
        rc != 0)
        throw TrainingError("rank 0 cannot listen on " + shown + ": " + gai_strerror(rc));
    int error = 0;
    for (addrinfo* ai = found; ai; ai = ai->ai_next) {
        // A name with two addresses takes one port on both: the first bound picks it when 0 was asked.
        if (port == 0 && !m->listeners.empty()) {
            auto* sa = ai->ai_addr;
            const auto chosen = htons(static_cast<std::uint16_t>(m->port));
            if (sa->sa_family == AF_INET) reinterpret_cast<sockaddr_in*>(sa)->sin_port = chosen;
            if (sa->sa_family == AF_INET6) reinterpret_cast<sockaddr_in6*>(sa)->sin6_port = chosen;
        }
        const int fd = listenOn(*ai, error);
        // A port taken on one of the name's addresses is taken: a rank could reach the other program there.
        if (fd < 0 && error == EADDRINUSE) {
            for (int bound : m->listeners) close(bound);
            m->listeners.clear();
            break;
        }
        if (fd < 0) continue;  // an address family this machine lacks (IPv6 turned off)
        m->listeners.push_back(fd);
        m->port = boundPort(fd);
    }
    freeaddrinfo(found);
    if (m->listeners.empty()) {
        std::string why = std::strerror(error);
        if (error == EADDRINUSE) why = "the port is in use by another program (choose another MASTER_PORT)";
        if (error == EADDRNOTAVAIL)
            why = bindAddress +
                  " is not an address of this machine (rank 0 listens on MASTER_ADDR; set "
                  "LSTM_WORKBENCH_BIND_ADDR to this machine's address that the others reach)";
        throw TrainingError("rank 0 cannot listen on " + shown + ": " + why);
    }
    if (pipe2(m->wake, O_CLOEXEC | O_NONBLOCK) != 0)
        throw TrainingError(std::string("rank 0 cannot start its rendezvous: ") + std::strerror(errno));
    m->thread = std::thread([state = m.get()] { state->run(); });
}

RendezvousServer::~RendezvousServer() {
    if (m->thread.joinable()) {
        const char stop = 's';
        [[maybe_unused]] const auto n = write(m->wake[1], &stop, 1);
        m->thread.join();
    }
    for (auto& c : m->connections) close(c.fd);
    for (int fd : m->listeners) close(fd);
    for (int fd : m->wake)
        if (fd >= 0) close(fd);
}

int RendezvousServer::port() const { return m->port; }

bool RendezvousServer::loopbackOnly() const {
    for (int fd : m->listeners) {
        sockaddr_storage a{};
        socklen_t len = sizeof a;
        getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
        const bool loopback = a.ss_family == AF_INET
                                  ? (ntohl(reinterpret_cast<sockaddr_in*>(&a)->sin_addr.s_addr) >> 24) == 127
                                  : IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<sockaddr_in6*>(&a)->sin6_addr);
        if (!loopback) return false;
    }
    return true;
}

void RendezvousServer::State::run() {
    std::vector<pollfd> fds;
    for (;;) {
        fds.clear();
        fds.push_back({wake[0], POLLIN, 0});
        for (int fd : listeners) fds.push_back({fd, POLLIN, 0});
        for (auto& c : connections)
            fds.push_back({c.fd, static_cast<short>(POLLIN | (c.out.empty() ? 0 : POLLOUT)), 0});
        if (poll(fds.data(), fds.size(), 200) < 0 && errno != EINTR) return;
        if (fds[0].revents) return;
        std::size_t at = 1;
        for (int fd : listeners)
            if (fds[at++].revents & POLLIN) accept(fd);
        const auto now = ServerClock::now();
        for (std::size_t i = 0; i < connections.size() && at + i < fds.size(); ++i) {
            auto& c = connections[i];
            if (c.fd >= 0 && (fds[at + i].revents & (POLLIN | POLLERR | POLLHUP))) receive(c);
            if (c.fd >= 0 && !c.out.empty()) flush(c);
            if (c.fd >= 0 && !c.admitted && !c.closing && now - c.since > kHelloDeadline)
                refuse(c, "it presented no job secret within 10 s", Admission::WrongSecret, false);
            if (c.fd >= 0 && c.closing && (c.out.empty() || now - c.since > 2 * kHelloDeadline)) {
                close(c.fd);
                c.fd = -1;
            }
        }
        // Closed connections go at the end of a pass, so that the indices above match the poll's.
        for (auto it = connections.begin(); it != connections.end();)
            it = it->fd < 0 ? connections.erase(it) : it + 1;
    }
}

void RendezvousServer::State::accept(int listener) {
    for (;;) {
        sockaddr_storage a{};
        socklen_t len = sizeof a;
        const int fd = accept4(listener, reinterpret_cast<sockaddr*>(&a), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) return;
        const int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        std::size_t strangers = 0;
        for (auto& c : connections) strangers += !c.admitted && !c.closing && c.fd >= 0;
        if (strangers >= kMaxStrangers)
            for (auto& c : connections)
                if (!c.admitted && !c.closing && c.fd >= 0) {
                    refuse(c, "too many connections had not presented a job secret", Admission::WrongSecret,
                           false);
                    close(c.fd);
                    c.fd = -1;
                    break;
                }
        Connection c;
        c.fd = fd;
        c.peer = peerName(a);
        c.nonce = randomBytes(kNonceBytes);
        c.out = kMagic + c.nonce;
        c.since = ServerClock::now();
        connections.push_back(std::move(c));
        flush(connections.back());  // the hello goes at once: 24 bytes always fit a new socket's buffer
    }
}

void RendezvousServer::State::refuse(Connection& c, const std::string& reason, Admission answer,
                                     bool answerIt) {
    log("refused a process at " + c.peer + ": " + reason);
    c.in.clear();
    c.out.clear();
    if (answerIt) c.out.push_back(static_cast<char>(answer));
    c.closing = true;
}

void RendezvousServer::State::admit(Connection& c) {
    FrameReader r(c.in, kMagic.size());
    const int rank = static_cast<int>(r.u32());
    const std::string token = c.in.substr(kMagic.size() + 4, kTokenBytes);
    const std::string proof = c.in.substr(kMagic.size() + 4 + kTokenBytes, kProofBytes);
    c.in.erase(0, kClientHelloBytes);
    if (!sameProof(proof, clientProof(secret, c.nonce, rank, token)))
        return refuse(c, "wrong job secret for rank " + std::to_string(rank), Admission::WrongSecret, true);
    if (rank < 0 || rank >= worldSize)
        return refuse(c,
                      "it asked for rank " + std::to_string(rank) + " of a job of " +
                          std::to_string(worldSize) + " processes",
                      Admission::RankOutsideJob, true);
    const auto held = ranks.find(rank);
    if (held != ranks.end() && held->second != token)
        return refuse(c, "rank " + std::to_string(rank) + " is already taken by another process",
                      Admission::RankTaken, true);
    ranks[rank] = token;
    c.admitted = true;
    c.out.push_back(static_cast<char>(Admission::Admitted));
    c.out += serverProof(secret, c.nonce, token);
}

void RendezvousServer::State::receive(Connection& c) {
    char buf[65536];
    for (;;) {
        // A stranger is read no further than its hello: what it sends after stays in the kernel.
        const std::size_t want =
            c.admitted ? sizeof buf : (c.in.size() < kClientHelloBytes ? kClientHelloBytes - c.in.size() : 0);
        if (want == 0 || c.closing) break;
        const ssize_t n = recv(c.fd, buf, want, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n <= 0) {
            if (!c.admitted)
                log("refused a process at " + c.peer +
                    ": it closed the connection without presenting a job "
                    "secret" +
                    (c.in.empty() ? "" : " (" + std::to_string(c.in.size()) + " bytes of a hello)"));
            close(c.fd);
            c.fd = -1;
            return;
        }
        c.in.append(buf, static_cast<std::size_t>(n));
        if (!c.admitted) {
            const auto shown = std::min(c.in.size(), kMagic.size());
            if (c.in.compare(0, shown, kMagic, 0, shown) != 0)
                return refuse(c,
                              "it does not speak the rendezvous protocol (garbage instead of a rank's hello)",
                              Admission::WrongSecret, false);
            if (c.in.size() == kClientHelloBytes) admit(c);
        }
    }
    if (c.admitted && !c.closing) serve(c);
}

void RendezvousServer::State::serve(Connection& c) {
    while (c.in.size() >= 4) {
        const std::uint32_t size = readU32(c.in.data());
        if (size > kMaxFrameBytes) {
            c.closing = true;
            return;
        }
        if (c.in.size() < 4 + std::size_t(size)) return;
        const std::string frame = c.in.substr(4, size);
        c.in.erase(0, 4 + std::size_t(size));
        try {
            const auto answer = store.answer(frame);
            putU32(c.out, static_cast<std::uint32_t>(answer.size()));
            c.out += answer;
        } catch (const std::exception&) {
            c.closing =
                true;  // a rank of this job that breaks the protocol loses its connection, not the job
            return;
        }
    }
}

void RendezvousServer::State::flush(Connection& c) {
    while (!c.out.empty()) {
        const ssize_t n = send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n <= 0) {
            close(c.fd);
            c.fd = -1;
            c.out.clear();
            return;
        }
        c.out.erase(0, static_cast<std::size_t>(n));
    }
}

}  // namespace wb
