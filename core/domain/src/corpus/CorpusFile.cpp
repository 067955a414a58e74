// The checks every corpus file goes through before a format parser sees it, done in a few linear passes
// over the bytes (no per-character allocation: the Tang corpus is 15 MB).
#include "corpus/CorpusFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "io/JsonDocument.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Utf8.h"

namespace fs = std::filesystem;

namespace wb::detail {

std::string readCorpusText(const std::string& path) {
    std::error_code ec;
    const auto st = fs::status(path, ec);
    if (ec || !fs::exists(st)) throw InputError(path, 0, "no such file");
    if (fs::is_directory(st)) throw InputError(path, 0, "is a folder, expected a file");
    if (!fs::is_regular_file(st)) throw InputError(path, 0, "not a regular file");
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!f) throw InputError(path, 0, std::string("cannot read: ") + std::strerror(errno));
    std::string bytes;
    const auto size = fs::file_size(path, ec);
    if (!ec) bytes.reserve(static_cast<std::size_t>(size));
    char buf[1 << 16];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) bytes.append(buf, n);
    if (std::ferror(f.get())) throw InputError(path, 0, std::string("cannot read: ") + std::strerror(errno));
    return normaliseCorpusBytes(std::move(bytes), path);
}

std::string normaliseCorpusBytes(std::string bytes, const std::string& sourceName) {
    if (bytes.empty()) throw InputError(sourceName, 0, "file is empty");
    if (const void* nul = std::memchr(bytes.data(), '\0', bytes.size())) {
        const auto offset = static_cast<std::size_t>(static_cast<const char*>(nul) - bytes.data());
        throw InputError(
            sourceName, lineOfOffset(bytes, offset),
            "binary data: NUL byte at offset " + std::to_string(offset) + " (expected UTF-8 text)",
            static_cast<std::int64_t>(offset));
    }
    // The fast check first; decodeUtf8 only runs to explain the error with line and offset.
    if (!isValidUtf8(bytes)) decodeUtf8(bytes, sourceName);
    if (bytes.size() >= 3 && bytes.compare(0, 3, "\xEF\xBB\xBF") == 0) bytes.erase(0, 3);
    if (std::memchr(bytes.data(), '\r', bytes.size())) {
        std::size_t w = 0;
        for (std::size_t r = 0; r < bytes.size(); ++r) {
            if (bytes[r] == '\r') {
                bytes[w++] = '\n';
                if (r + 1 < bytes.size() && bytes[r + 1] == '\n') ++r;
            } else {
                bytes[w++] = bytes[r];
            }
        }
        bytes.resize(w);
    }
    if (bytes.empty()) throw InputError(sourceName, 0, "file is empty");
    return bytes;
}

}  // namespace wb::detail
