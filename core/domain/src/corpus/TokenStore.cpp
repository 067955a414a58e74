// A token store as it is read (see TokenStore.h): opened from the cache, its ids read with pread as batches
// need them, its document starts and classes memory-mapped; or held in memory. Tokenizing is
// TokenStoreBuilder's, the cache's files TokenStoreCache.cpp's.
#include "workbench/domain/TokenStore.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "io/JsonDocument.h"
#include "io/PosixFile.h"
#include "workbench/domain/RunFolder.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace wb {

struct TokenStore::Mapping {
    void* address = nullptr;
    std::size_t length = 0;
    ~Mapping() {
        if (address) munmap(address, length);
    }
};

TokenStore::TokenStore() = default;

TokenStore::~TokenStore() {
    if (m_idsFd >= 0) ::close(m_idsFd);
}

void TokenStore::copy(std::int64_t begin, std::int64_t count, std::int64_t* out) const {
    if (begin < 0 || count < 0 || begin + count > m_tokens)
        throw std::out_of_range("token store: ids " + std::to_string(begin) + " + " + std::to_string(count) +
                                " outside its " + std::to_string(m_tokens));
    if (m_idsFd < 0) {
        if (m_idBytes == 2)
            std::copy(m_ids16 + begin, m_ids16 + begin + count, out);
        else
            std::copy(m_ids32 + begin, m_ids32 + begin + count, out);
        return;
    }
    // Read into the end of `out` (ids are narrower than int64), then widen from the front: each wide value
    // lands at or before the narrow bytes it came from is read, so nothing is overwritten before it is used.
    const auto bytes = static_cast<std::size_t>(count) * static_cast<std::size_t>(m_idBytes);
    char* raw = reinterpret_cast<char*>(out + count) - bytes;
    if (const int error = detail::readFully(m_idsFd, raw, bytes, static_cast<off_t>(begin * m_idBytes)))
        throw std::runtime_error(
            m_info.path + ": cannot read the token store's ids: " +
            (error == detail::kEndOfFile ? "the file is shorter than it says" : std::strerror(error)));
    for (std::int64_t i = 0; i < count; ++i) {
        if (m_idBytes == 2) {
            std::int16_t v;
            std::memcpy(&v, raw + i * 2, 2);
            out[i] = v;
        } else {
            std::int32_t v;
            std::memcpy(&v, raw + i * 4, 4);
            out[i] = v;
        }
    }
}

std::uint64_t TokenStore::residentBytes() const {
    return m_own16.size() * 2 + m_own32.size() * 4 + m_ownLabels.size() * 4 + m_ownDocs.size() * 8;
}

std::string tokenStoreDir(const std::string& cacheRoot) {
    return (fs::path(cacheRoot) / "token-stores").string();
}

std::shared_ptr<TokenStore> TokenStore::open(const std::string& stem, const std::string& key,
                                             std::uint64_t sourceBytes, std::int64_t sourceModifiedNs) {
    std::error_code ec;
    if (!fs::exists(stem + ".json", ec)) return nullptr;
    const auto start = std::chrono::steady_clock::now();
    try {
        const json j = json::parse(readFile(stem + ".json"));
        // A damaged cache is tokenized again; its numbers are checked, as get<int>() on 1e300 is undefined.
        const auto count = [](const json& parent, const char* field) {
            const auto n = detail::jsonInteger(parent.at(field), 0, std::numeric_limits<std::int64_t>::max());
            if (!n) throw std::runtime_error("damaged");
            return *n;
        };
        if (j.value("format", "") != "lstm-workbench token store" || count(j, "version") != 1 ||
            j.at("key").get<std::string>() != key)
            return nullptr;
        const auto& source = j.at("source");
        if (static_cast<std::uint64_t>(count(source, "bytes")) != sourceBytes ||
            count(source, "modified_ns") != sourceModifiedNs)
            return nullptr;  // the source changed: tokenized again
        std::shared_ptr<TokenStore> store(new TokenStore());
        store->m_vocabulary = Vocabulary::fromJson(j.at("vocabulary").dump(), stem + ".json");
        store->m_classes = j.at("classes").get<std::vector<std::string>>();
        store->m_format = corpusFormatFromString(j.at("corpus_format").get<std::string>());
        store->m_documents = count(j, "documents");
        store->m_tokens = count(j, "tokens");
        store->m_idBytes = static_cast<int>(std::min<std::int64_t>(count(j, "id_bytes"), 8));
        const bool labelled = j.at("labelled").get<bool>();
        auto map = [&](const char* ext, std::uint64_t expected) -> const void* {
            if (expected == 0) return nullptr;
            const detail::FileDescriptor fd(::open((stem + ext).c_str(), O_RDONLY | O_CLOEXEC));
            struct stat st {};
            if (fd.get() < 0 || fstat(fd.get(), &st) != 0 ||
                static_cast<std::uint64_t>(st.st_size) != expected)
                throw std::runtime_error("damaged");
            void* address = mmap(nullptr, expected, PROT_READ, MAP_SHARED, fd.get(), 0);
            if (address == MAP_FAILED) throw std::runtime_error("cannot map");
            auto mapping = std::make_unique<Mapping>();
            mapping->address = address;
            mapping->length = expected;
            store->m_mappings.push_back(std::move(mapping));
            return address;
        };
        const auto docs = static_cast<std::uint64_t>(store->m_documents);
        if (store->m_idBytes != 2 && store->m_idBytes != 4) return nullptr;
        // The ids are read with pread, not mapped: this kernel maps the page cache's large folios whole, so
        // random windows over a mapping soon count the whole store in the process's resident memory; read,
        // they stay in the page cache, which the kernel reclaims as it needs.
        store->m_idsFd = ::open((stem + ".ids").c_str(), O_RDONLY | O_CLOEXEC);
        struct stat idsStat {};
        if (store->m_idsFd < 0 || fstat(store->m_idsFd, &idsStat) != 0 ||
            static_cast<std::uint64_t>(idsStat.st_size) !=
                static_cast<std::uint64_t>(store->m_tokens) * static_cast<std::uint64_t>(store->m_idBytes))
            return nullptr;
        store->m_docs = static_cast<const std::int64_t*>(map(".docs", (docs + 1) * 8));
        if (labelled) store->m_labels = static_cast<const std::int32_t*>(map(".labels", docs * 4));
        store->m_info.path = stem + ".json";
        store->m_info.source = source.at("path").get<std::string>();
        store->m_info.sourceBytes = sourceBytes;
        store->m_info.sourceModifiedNs = sourceModifiedNs;
        store->m_info.checksum = source.at("checksum").get<std::string>();
        store->m_info.reused = true;
        store->m_info.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (store->m_docs[0] != 0 || store->m_docs[docs] != store->m_tokens) return nullptr;
        return store;
    } catch (const std::exception&) {
        return nullptr;  // a damaged or foreign store is tokenized again
    }
}

}  // namespace wb
