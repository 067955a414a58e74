// Rank 0's rendezvous server: the job's key-value store (what c10d's TCPStore held), behind the job secret.
// It listens on one address (never every interface unless told so), admits a connection only after it proved
// it knows the secret and asked for a rank no other process holds, and serves the store's requests to
// admitted ranks only. Whatever else connects (a port scan, garbage, a wrong secret, a rank taken, a
// connection that says nothing) is closed with one line through `log` and costs the job nothing: one thread
// polls every socket without blocking, and reads at most a hello's bytes from a stranger.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace wb {

class RendezvousServer {
public:
    using Log = std::function<void(const std::string&)>;
    // Listens on every address `bindAddress` resolves to (a name such as "localhost" may give two), on
    // `port` (0: a free one). Throws TrainingError naming the address: a port in use, an address that is
    // not this machine's.
    RendezvousServer(const std::string& bindAddress, int port, const std::string& secret, int worldSize,
                     Log log);
    ~RendezvousServer();  // stops the thread; every connection closes
    RendezvousServer(const RendezvousServer&) = delete;
    RendezvousServer& operator=(const RendezvousServer&) = delete;

    int port() const;
    bool loopbackOnly() const;  // whether every address it listens on is a loopback one

private:
    struct State;
    std::unique_ptr<State> m;
};

// Whether an address is a wildcard (every interface): "0.0.0.0", "::", "*".
bool isWildcardAddress(const std::string& address);

}  // namespace wb
