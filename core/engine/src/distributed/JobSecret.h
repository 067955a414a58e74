// The job secret's arithmetic: SHA-256 and HMAC-SHA256 (RFC 2104; OpenSSL's libcrypto computes both), so that
// a rank proves it knows the secret without sending it (a listener on the network sees proofs bound to one
// connection's nonce, never the secret), and fresh random bytes from the kernel.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace wb::rendezvous {

using Digest = std::array<std::uint8_t, 32>;

Digest sha256(const std::string& message);
Digest hmacSha256(const std::string& key, const std::string& message);
std::string randomBytes(std::size_t n);  // getrandom(2); throws TrainingError when the kernel has none
std::string hex(const std::string& bytes);

}  // namespace wb::rendezvous
