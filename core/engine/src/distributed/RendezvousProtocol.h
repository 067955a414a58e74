// The rendezvous's wire format, shared by rank 0's server (RendezvousServer) and every rank's client
// (GatedStore). A connection opens with the server's hello (magic + a fresh nonce); the client answers with
// the magic, the rank it asks for, its process token and an HMAC-SHA256 of all three and the nonce under the
// job secret; the server answers with one admission byte and, when it admits, its own proof over the nonce
// and token (so a rank also knows it talks to rank 0 of its own job). Nothing else is read before that
// exchange. Then each request is a frame (u32 length, an op byte, its fields) and gets one frame back.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "distributed/JobSecret.h"

namespace wb::rendezvous {

inline const std::string kMagic = "LWB-RDV1";
constexpr std::size_t kNonceBytes = 16, kTokenBytes = 16, kProofBytes = 32;
constexpr std::size_t kServerHelloBytes = 8 + kNonceBytes;
constexpr std::size_t kClientHelloBytes = 8 + 4 + kTokenBytes + kProofBytes;
constexpr std::uint32_t kMaxFrameBytes = 1u << 30;

enum class Admission : std::uint8_t { Admitted = 0, WrongSecret = 1, RankTaken = 2, RankOutsideJob = 3 };
enum class Op : std::uint8_t {
    Set = 'S',
    TryGet = 'G',
    Add = 'A',
    Check = 'C',
    Delete = 'D',
    NumKeys = 'N',
    CompareSet = 'X'
};

inline void putU32(std::string& out, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline void putI64(std::string& out, std::int64_t v) {
    const auto u = static_cast<std::uint64_t>(v);
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((u >> (8 * i)) & 0xff));
}
inline void putString(std::string& out, const std::string& s) {
    putU32(out, static_cast<std::uint32_t>(s.size()));
    out += s;
}
inline std::uint32_t readU32(const char* p) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t(static_cast<unsigned char>(p[i])) << (8 * i);
    return v;
}

// Reads fields out of one frame; a frame shorter than its fields is a protocol error.
class FrameReader {
public:
    explicit FrameReader(const std::string& frame, std::size_t at = 0) : m_frame(frame), m_at(at) {}
    std::uint8_t byte() { return static_cast<std::uint8_t>(take(1)[0]); }
    std::uint32_t u32() { return readU32(take(4).data()); }
    std::int64_t i64() {
        const auto s = take(8);
        std::uint64_t v = 0;
        for (int i = 0; i < 8; ++i) v |= std::uint64_t(static_cast<unsigned char>(s[i])) << (8 * i);
        return static_cast<std::int64_t>(v);
    }
    std::string string() { return take(u32()); }

private:
    std::string take(std::size_t n) {
        if (m_frame.size() - m_at < n) throw std::runtime_error("a rendezvous frame ends inside a field");
        auto s = m_frame.substr(m_at, n);
        m_at += n;
        return s;
    }
    const std::string& m_frame;
    std::size_t m_at;
};

inline std::string rankBytes(int rank) {
    std::string s;
    putU32(s, static_cast<std::uint32_t>(rank));
    return s;
}
inline std::string digestText(const Digest& d) { return std::string(d.begin(), d.end()); }
inline std::string clientProof(const std::string& secret, const std::string& nonce, int rank,
                               const std::string& token) {
    return digestText(hmacSha256(secret, "rank|" + nonce + rankBytes(rank) + token));
}
inline std::string serverProof(const std::string& secret, const std::string& nonce,
                               const std::string& token) {
    return digestText(hmacSha256(secret, "rank0|" + nonce + token));
}
// Compares proofs in time that does not depend on where they differ.
inline bool sameProof(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return false;
    unsigned char diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

}  // namespace wb::rendezvous
