// SHA-256 and HMAC-SHA256 from OpenSSL's libcrypto (its one-shot calls); random bytes from the kernel.
#include "distributed/JobSecret.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include "workbench/domain/Errors.h"

namespace wb::rendezvous {

Digest sha256(const std::string& message) {
    Digest d{};
    SHA256(reinterpret_cast<const unsigned char*>(message.data()), message.size(), d.data());
    return d;
}

Digest hmacSha256(const std::string& key, const std::string& message) {
    Digest d{};
    unsigned int length = 0;
    if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
              reinterpret_cast<const unsigned char*>(message.data()), message.size(), d.data(), &length) ||
        length != d.size())
        throw TrainingError("OpenSSL could not compute the job secret's HMAC");
    return d;
}

std::string randomBytes(std::size_t n) {
    std::string out(n, '\0');
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = getrandom(out.data() + got, n - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) throw TrainingError(std::string("cannot draw random bytes: ") + std::strerror(errno));
        got += static_cast<std::size_t>(r);
    }
    return out;
}

std::string hex(const std::string& bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) {
        out.push_back(digits[c >> 4]);
        out.push_back(digits[c & 15]);
    }
    return out;
}

}  // namespace wb::rendezvous
