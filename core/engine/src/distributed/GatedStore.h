// A rank's connection to rank 0's rendezvous server (RendezvousServer), as a c10d::Store: what Gloo's
// rendezvous and DistributedContext read and write. It proves it holds the job secret and asks for its rank
// before anything else, and checks that the server holds the secret too. One request at a time (a mutex), so
// threads may share one, though the heartbeat keeps its own.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "distributed/C10d.h"

namespace wb {

// Rank 0 did not answer within the timeout: nothing listens there, or the network does not reach it.
struct StoreUnreachable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class GatedStore : public c10d::Store {
public:
    struct Identity {
        std::string host;  // rank 0's address, as MASTER_ADDR gives it
        int port = 0;
        std::string secret;
        int rank = 0;
    };
    // Connects, retrying until the timeout, and is admitted. Throws StoreUnreachable, InputError when rank 0
    // refuses this process (wrong secret, its rank taken) and TrainingError when the other end is not rank 0
    // of this job.
    GatedStore(Identity identity, std::chrono::milliseconds timeout);
    ~GatedStore() override;

    using c10d::Store::set;
    void set(const std::string& key, const std::vector<uint8_t>& value) override;
    std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                    const std::vector<uint8_t>& desired) override;
    std::vector<uint8_t> get(const std::string& key) override;  // waits for the key up to the timeout
    int64_t add(const std::string& key, int64_t value) override;
    bool deleteKey(const std::string& key) override;
    bool check(const std::vector<std::string>& keys) override;
    int64_t getNumKeys() override;
    void wait(const std::vector<std::string>& keys) override;
    void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override;
    // Another connection as the same process and rank (c10d copies a store this way where it needs one per
    // thread). Declared without `override`: the base has it only from some 2.x on (TorchCompat.h).
    c10::intrusive_ptr<c10d::Store> clone();

    // The address this connection leaves from: the interface of this machine that reaches rank 0.
    const std::string& localAddress() const { return m_localAddress; }

private:
    void connectAndPresent();
    void present(const std::string& where);
    void sendAll(const std::string& bytes);
    std::string request(const std::string& payload);  // one frame out, its answer back
    std::string readExactly(std::size_t n);
    std::optional<std::string> tryGet(const std::string& key);

    Identity m_identity;
    std::string m_localAddress;
    int m_fd = -1;
    std::mutex m_mutex;
};

// This process's token: random, drawn once, presented on each of its connections, so that rank 0 knows a
// second connection for a rank is the same process (the heartbeat) and not another one asking for it.
const std::string& processToken();

}  // namespace wb
