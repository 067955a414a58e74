// Token stores (see TokenStore.h): a corpus tokenized in two passes over parts of it on every core, the
// result written beside the corpus cache and memory-mapped.
#include "workbench/TokenStore.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "corpus/CorpusFile.h"
#include "corpus/DocumentParts.h"
#include "io/JsonDocument.h"
#include "text/CodePoints.h"
#include "text/WordTokenizer.h"
#include "workbench/CorpusCatalog.h"
#include "workbench/Errors.h"
#include "workbench/RunFolder.h"
#include "workbench/Utf8.h"

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
    for (std::size_t done = 0; done < bytes;) {
        const ssize_t got = pread(m_idsFd, raw + done, bytes - done,
                                  static_cast<off_t>(begin * m_idBytes + static_cast<std::int64_t>(done)));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0)
            throw std::runtime_error(m_info.path + ": cannot read the token store's ids: " +
                                     (got < 0 ? std::strerror(errno) : "the file is shorter than it says"));
        done += static_cast<std::size_t>(got);
    }
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

namespace {

constexpr char32_t kTableCodePoints = 0x30000;  // code points counted in a flat table; the rest in a map

std::string hex(std::uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

// Pass one over a part: each token's count, each document's length in ids (its <eos> included) and class.
struct PartCount {
    TokenLevel level = TokenLevel::Char;
    std::vector<std::uint64_t> table;                   // code points below kTableCodePoints
    std::unordered_map<char32_t, std::uint64_t> other;  // code points above
    std::unordered_map<std::string, std::uint64_t> words;
    std::vector<std::int64_t> lengths;
    std::vector<std::int32_t> labels;
    std::uint64_t checksum = kFnvOffset;
    std::int64_t ids = 0;

    void count(std::string_view text, int label) {
        std::int64_t n = 0;
        if (level == TokenLevel::Char) {
            if (table.empty()) table.assign(kTableCodePoints, 0);
            std::size_t i = 0, len = 0;
            while (i < text.size()) {
                const char32_t c = detail::nextCodePoint(text, i, len);
                if (c < kTableCodePoints)
                    ++table[c];
                else
                    ++other[c];
                ++n;
            }
        } else {
            std::string key;
            detail::forEachWordToken(text, [&](std::string_view w) {
                key.assign(w);
                ++words[key];
                ++n;
            });
        }
        lengths.push_back(n + 1);
        labels.push_back(label);
        ids += n + 1;
    }
};

// Maps a part's text to final ids (pass two).
class Encoder {
public:
    explicit Encoder(const Vocabulary& vocabulary) : m_vocabulary(vocabulary) {
        if (vocabulary.level() != TokenLevel::Char) return;
        m_table.assign(kTableCodePoints, static_cast<std::int32_t>(Vocabulary::kUnk));
        for (std::size_t id = Vocabulary::kNumSpecial; id < vocabulary.size(); ++id) {
            const auto& token = vocabulary.token(static_cast<std::int64_t>(id));
            std::size_t i = 0, len = 0;
            const char32_t c = detail::nextCodePoint(token, i, len);
            if (c < kTableCodePoints)
                m_table[c] = static_cast<std::int32_t>(id);
            else
                m_other[c] = static_cast<std::int32_t>(id);
        }
    }
    template <typename Out>
    void encode(std::string_view text, Out&& out) const {
        if (m_vocabulary.level() == TokenLevel::Char) {
            std::size_t i = 0, len = 0;
            while (i < text.size()) {
                const char32_t c = detail::nextCodePoint(text, i, len);
                if (c < kTableCodePoints) {
                    out(m_table[c]);
                } else {
                    const auto it = m_other.find(c);
                    out(it == m_other.end() ? static_cast<std::int32_t>(Vocabulary::kUnk) : it->second);
                }
            }
        } else {
            detail::forEachWordToken(
                text, [&](std::string_view w) { out(static_cast<std::int32_t>(m_vocabulary.id(w))); });
        }
        out(static_cast<std::int32_t>(Vocabulary::kEos));
    }

private:
    const Vocabulary& m_vocabulary;
    std::vector<std::int32_t> m_table;
    std::unordered_map<char32_t, std::int32_t> m_other;
};

}  // namespace

namespace {

struct FileChanged : std::exception {};

void writeAll(int fd, const char* data, std::size_t n, off_t offset) {
    while (n > 0) {
        const ssize_t wrote = pwrite(fd, data, n, offset);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0)
            throw std::runtime_error(std::string("cannot write the token store: ") + std::strerror(errno));
        data += wrote;
        n -= static_cast<std::size_t>(wrote);
        offset += wrote;
    }
}

int openForWriting(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
    return fd;
}

class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : m_fd(fd) {}
    ~FileDescriptor() {
        if (m_fd >= 0) ::close(m_fd);
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

template <typename T>
void writeVector(const std::string& path, const std::vector<T>& v) {
    const FileDescriptor fd(openForWriting(path));
    writeAll(fd.get(), reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T), 0);
    if (fsync(fd.get()) != 0)
        throw std::runtime_error(std::string("cannot write the token store: ") + std::strerror(errno));
}

// Where pass two puts the ids: a file written by each part at its own offset, or vectors in memory.
class IdSink {
public:
    IdSink(int idBytes, int fd, std::vector<std::int16_t>* own16, std::vector<std::int32_t>* own32)
        : m_bytes(idBytes), m_fd(fd), m_own16(own16), m_own32(own32) {}

    void write(std::int64_t at, const std::vector<std::int32_t>& ids) const {
        if (m_own32) {
            std::copy(ids.begin(), ids.end(), m_own32->begin() + at);
        } else if (m_own16) {
            std::transform(ids.begin(), ids.end(), m_own16->begin() + at,
                           [](std::int32_t v) { return static_cast<std::int16_t>(v); });
        } else if (m_bytes == 2) {
            std::vector<std::int16_t> narrow(ids.begin(), ids.end());
            writeAll(m_fd, reinterpret_cast<const char*>(narrow.data()), narrow.size() * 2,
                     static_cast<off_t>(at * 2));
        } else {
            writeAll(m_fd, reinterpret_cast<const char*>(ids.data()), ids.size() * 4,
                     static_cast<off_t>(at * 4));
        }
    }

private:
    int m_bytes;
    int m_fd;
    std::vector<std::int16_t>* m_own16;
    std::vector<std::int32_t>* m_own32;
};

// One part's ids, buffered, from its offset on.
class IdWriter {
public:
    IdWriter(const IdSink& sink, std::int64_t offset, std::int64_t limit)
        : m_sink(sink), m_at(offset), m_end(offset + limit) {
        m_buffer.reserve(1 << 20);
    }
    void operator()(std::int32_t id) {
        if (m_at + static_cast<std::int64_t>(m_buffer.size()) >= m_end) throw FileChanged();
        m_buffer.push_back(id);
        if (m_buffer.size() == m_buffer.capacity()) flush();
    }
    void flush() {
        m_sink.write(m_at, m_buffer);
        m_at += static_cast<std::int64_t>(m_buffer.size());
        m_buffer.clear();
    }
    bool complete() const { return m_at == m_end && m_buffer.empty(); }

private:
    const IdSink& m_sink;
    std::int64_t m_at, m_end;
    std::vector<std::int32_t> m_buffer;
};

// The temporary files of one tokenization, removed unless committed.
class PartialFiles {
public:
    explicit PartialFiles(std::string stem) : m_stem(std::move(stem)) {
        m_partial = m_stem + ".partial-" + std::to_string(getpid());
        removeDeadPartials();
    }
    ~PartialFiles() {
        if (m_committed) return;
        std::error_code ec;
        for (const char* ext : kExtensions) fs::remove(m_partial + ext, ec);
    }
    std::string partial(const char* ext) const { return m_partial + ext; }
    // Renames the partial files into place, the .json last: from then on the store exists.
    void commit() {
        std::error_code ec;
        fs::remove(m_stem + ".json", ec);  // an old store is gone before its files are replaced
        for (const char* ext : kExtensions) {
            if (fs::exists(partial(ext), ec))
                fs::rename(partial(ext), m_stem + ext);
            else
                fs::remove(m_stem + ext, ec);
        }
        m_committed = true;
    }

private:
    static constexpr const char* kExtensions[] = {".ids", ".docs", ".labels", ".json"};

    // Partial files of tokenizations whose process is gone (killed, or the machine went down), and the stores
    // of sources that are gone (a test's temporary corpus, a deleted download): nothing else removes them.
    void removeDeadPartials() const {
        std::error_code ec;
        std::vector<fs::path> orphans;
        for (const auto& entry : fs::directory_iterator(fs::path(m_stem).parent_path(), ec)) {
            const auto name = entry.path().filename().string();
            const auto at = name.find(".partial-");
            if (at != std::string::npos) {
                const auto pid = std::atol(name.c_str() + at + 9);
                if (pid > 0 && pid != getpid() && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
                    orphans.push_back(entry.path());
            } else if (entry.path().extension() == ".json" && !sourceExists(entry.path())) {
                for (const char* ext : kExtensions)
                    orphans.push_back(fs::path(entry.path()).replace_extension(ext));
            }
        }
        for (const auto& path : orphans) fs::remove(path, ec);
    }
    static bool sourceExists(const fs::path& json) {
        try {
            std::error_code ec;
            return fs::exists(json::parse(readFile(json.string())).at("source").at("path").get<std::string>(),
                              ec);
        } catch (const std::exception&) {
            return true;  // not ours to judge
        }
    }

    std::string m_stem, m_partial;
    bool m_committed = false;
};

std::size_t vocabularyLimit(const DataConfig& data) {
    if (data.vocabSize > 0) return static_cast<std::size_t>(data.vocabSize);
    return data.tokens == TokenLevel::Word ? 15000 : 0;
}

}  // namespace

// Tokenizes document parts into a store held in memory, or (idsFile) with its ids written to a file.
class TokenStoreBuilder {
public:
    TokenStoreBuilder(const DocumentParts& parts, const TokenizeProgress& progress)
        : m_parts(parts), m_runner(progress, 2 * parts.totalBytes()) {}

    std::shared_ptr<TokenStore> build(const DataConfig* data, const Vocabulary* given,
                                      const std::string& idsFile, const std::string& source);

private:
    void countParts(TokenLevel level);
    Vocabulary vocabularyFromCounts(const DataConfig& data) const;
    void encodeParts(TokenStore& store, const std::string& idsFile);
    void gatherDocuments(TokenStore& store) const;

    const DocumentParts& m_parts;
    PartRunner m_runner;
    std::vector<PartCount> m_counts;
};

void TokenStoreBuilder::countParts(TokenLevel level) {
    m_counts.assign(m_parts.count(), PartCount{});
    for (auto& c : m_counts) c.level = level;
    m_runner.run(m_parts.count(), [&](std::size_t p) {
        auto& c = m_counts[p];
        m_parts.visit(
            p, [&](std::string_view text, int label) { c.count(text, label); },
            [&](std::size_t n) {
                m_runner.add(n);
                if (m_runner.cancelled()) throw CancelledInPart();
            },
            &c.checksum);
    });
}

Vocabulary TokenStoreBuilder::vocabularyFromCounts(const DataConfig& data) const {
    std::vector<std::pair<std::string, std::size_t>> counted;
    if (data.tokens == TokenLevel::Char) {
        std::vector<std::uint64_t> table(kTableCodePoints, 0);
        std::unordered_map<char32_t, std::uint64_t> other;
        for (const auto& c : m_counts) {
            for (std::size_t k = 0; k < c.table.size(); ++k) table[k] += c.table[k];
            for (const auto& [cp, n] : c.other) other[cp] += n;
        }
        for (std::size_t k = 0; k < table.size(); ++k)
            if (table[k]) counted.emplace_back(encodeUtf8(static_cast<char32_t>(k)), table[k]);
        for (const auto& [cp, n] : other) counted.emplace_back(encodeUtf8(cp), n);
    } else {
        std::unordered_map<std::string, std::uint64_t> words;
        for (const auto& c : m_counts)
            for (const auto& [w, n] : c.words) words[w] += n;
        counted.reserve(words.size());
        for (auto& [w, n] : words) counted.emplace_back(w, n);
    }
    return Vocabulary::fromCounts(std::move(counted), data.tokens, vocabularyLimit(data),
                                  static_cast<std::size_t>(data.minCount));
}

void TokenStoreBuilder::encodeParts(TokenStore& store, const std::string& idsFile) {
    std::vector<std::int64_t> partStart(m_counts.size() + 1, 0);
    for (std::size_t p = 0; p < m_counts.size(); ++p) partStart[p + 1] = partStart[p] + m_counts[p].ids;
    store.m_tokens = partStart.back();
    store.m_idBytes = store.m_vocabulary.size() <= 32767 ? 2 : 4;
    const auto tokens = static_cast<std::size_t>(store.m_tokens);
    if (idsFile.empty() && store.m_idBytes == 2) store.m_own16.resize(tokens);
    if (idsFile.empty() && store.m_idBytes == 4) store.m_own32.resize(tokens);
    const FileDescriptor fd(idsFile.empty() ? -1 : openForWriting(idsFile));
    const IdSink sink(store.m_idBytes, fd.get(),
                      idsFile.empty() && store.m_idBytes == 2 ? &store.m_own16 : nullptr,
                      idsFile.empty() && store.m_idBytes == 4 ? &store.m_own32 : nullptr);
    const Encoder encoder(store.m_vocabulary);
    try {
        m_runner.run(m_parts.count(), [&](std::size_t p) {
            IdWriter writer(sink, partStart[p], m_counts[p].ids);
            m_parts.visit(
                p, [&](std::string_view text, int) { encoder.encode(text, writer); },
                [&](std::size_t bytes) {
                    m_runner.add(bytes);
                    if (m_runner.cancelled()) throw CancelledInPart();
                },
                nullptr);
            writer.flush();
            if (!writer.complete()) throw FileChanged();
        });
    } catch (const FileChanged&) {
        throw InputError(store.m_info.source, 0, "the file changed while it was tokenized: try again");
    }
    if (fd.get() >= 0 && fsync(fd.get()) != 0)
        throw std::runtime_error(std::string("cannot write the token store: ") + std::strerror(errno));
}

void TokenStoreBuilder::gatherDocuments(TokenStore& store) const {
    std::size_t documents = 0;
    for (const auto& c : m_counts) documents += c.lengths.size();
    store.m_ownDocs.reserve(documents + 1);
    store.m_ownDocs.push_back(0);
    bool labelled = false;
    std::uint64_t checksum = kFnvOffset;
    for (const auto& c : m_counts) {
        for (const auto n : c.lengths) store.m_ownDocs.push_back(store.m_ownDocs.back() + n);
        for (const auto l : c.labels) labelled = labelled || l >= 0;
        checksum = (checksum ^ c.checksum) * 0x100000001b3ULL;
    }
    if (labelled) {
        store.m_ownLabels.reserve(documents);
        for (const auto& c : m_counts)
            store.m_ownLabels.insert(store.m_ownLabels.end(), c.labels.begin(), c.labels.end());
    }
    store.m_documents = static_cast<std::int64_t>(documents);
    store.m_info.checksum = "fnv1a64w:" + hex(checksum);
}

std::shared_ptr<TokenStore> TokenStoreBuilder::build(const DataConfig* data, const Vocabulary* given,
                                                     const std::string& idsFile, const std::string& source) {
    const auto start = std::chrono::steady_clock::now();
    std::shared_ptr<TokenStore> store(new TokenStore());
    store->m_info.source = source;
    try {
        countParts(given ? given->level() : data->tokens);
        store->m_vocabulary = given ? *given : vocabularyFromCounts(*data);
        encodeParts(*store, idsFile);
    } catch (const CancelledInPart&) {
        throw Cancelled();
    }
    gatherDocuments(*store);
    store->m_docs = store->m_ownDocs.data();
    store->m_labels = store->m_ownLabels.empty() ? nullptr : store->m_ownLabels.data();
    store->m_ids16 = store->m_own16.empty() ? nullptr : store->m_own16.data();
    store->m_ids32 = store->m_own32.empty() ? nullptr : store->m_own32.data();
    store->m_info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return store;
}

namespace {

std::string settingsKey(const std::string& absolute, CorpusFormat format, const DataConfig& data) {
    return absolute + "\n" + toString(format) + "\n" + toString(data.tokens) + "\n" +
           std::to_string(vocabularyLimit(data)) + "\n" + std::to_string(data.minCount);
}

std::string stemFor(const std::string& dir, const std::string& absolute, const std::string& key) {
    std::string base = fs::path(absolute).filename().string();
    for (auto& c : base)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
    if (base.size() > 40) base.resize(40);
    return (fs::path(dir) / (base + "-" + hex(fnvWords(kFnvOffset, key.data(), key.size())))).string();
}

struct SourceStamp {
    std::uint64_t bytes = 0;
    std::int64_t modifiedNs = 0;
};

// A file's size and modification time; a folder's (one sub-folder per class) are its files' total and the
// latest of its files' and folders' times, so that an edited, added or removed file is a change.
SourceStamp stampOf(const std::string& path, CorpusFormat format) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw InputError(path, 0, "no such file");
    auto nanoseconds = [](const struct stat& s) {
        return static_cast<std::int64_t>(s.st_mtim.tv_sec) * 1000000000 +
               static_cast<std::int64_t>(s.st_mtim.tv_nsec);
    };
    SourceStamp stamp{static_cast<std::uint64_t>(st.st_size), nanoseconds(st)};
    if (format != CorpusFormat::Folder) return stamp;
    stamp.bytes = 0;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
        struct stat entry {};
        if (::stat(it->path().c_str(), &entry) != 0) continue;
        if (S_ISREG(entry.st_mode)) stamp.bytes += static_cast<std::uint64_t>(entry.st_size);
        stamp.modifiedNs = std::max(stamp.modifiedNs, nanoseconds(entry));
    }
    return stamp;
}

}  // namespace

std::shared_ptr<TokenStore> TokenStore::open(const std::string& stem, const std::string& key,
                                             std::uint64_t sourceBytes, std::int64_t sourceModifiedNs) {
    std::error_code ec;
    if (!fs::exists(stem + ".json", ec)) return nullptr;
    const auto start = std::chrono::steady_clock::now();
    try {
        const json j = json::parse(readFile(stem + ".json"));
        if (j.value("format", "") != "lstm-workbench token store" || j.value("version", 0) != 1 ||
            j.at("key").get<std::string>() != key)
            return nullptr;
        const auto& source = j.at("source");
        if (source.at("bytes").get<std::uint64_t>() != sourceBytes ||
            source.at("modified_ns").get<std::int64_t>() != sourceModifiedNs)
            return nullptr;  // the source changed: tokenized again
        std::shared_ptr<TokenStore> store(new TokenStore());
        store->m_vocabulary = Vocabulary::fromJson(j.at("vocabulary").dump(), stem + ".json");
        store->m_classes = j.at("classes").get<std::vector<std::string>>();
        store->m_format = corpusFormatFromString(j.at("corpus_format").get<std::string>());
        store->m_documents = j.at("documents").get<std::int64_t>();
        store->m_tokens = j.at("tokens").get<std::int64_t>();
        store->m_idBytes = j.at("id_bytes").get<int>();
        const bool labelled = j.at("labelled").get<bool>();
        auto map = [&](const char* ext, std::uint64_t expected) -> const void* {
            if (expected == 0) return nullptr;
            const FileDescriptor fd(::open((stem + ext).c_str(), O_RDONLY | O_CLOEXEC));
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

// The store's .json (a partial file like the others, not writeFileAtomic, whose failpoints test run folders:
// the store's commit is the rename of its .json).
namespace {
void writeMetadata(const std::string& file, const std::string& key, const std::string& absolute,
                   const SourceStamp& stamp, CorpusFormat format, const DataConfig& data,
                   const TokenStore& built, const std::vector<std::string>& classes) {
    const json meta = {
        {"format", "lstm-workbench token store"},
        {"version", 1},
        {"key", key},
        {"source",
         {{"path", absolute},
          {"bytes", stamp.bytes},
          {"modified_ns", stamp.modifiedNs},
          {"checksum", built.info().checksum}}},
        {"corpus_format", toString(format)},
        {"tokens_level", toString(data.tokens)},
        {"vocab_size", vocabularyLimit(data)},
        {"min_count", data.minCount},
        {"vocabulary", json::parse(built.vocabulary().toJson())},
        {"classes", classes},
        {"documents", built.documentCount()},
        {"tokens", built.tokenCount()},
        {"id_bytes", built.idBytes()},
        {"labelled", built.labelled()},
        {"tokenize_seconds", built.info().seconds},
    };
    const auto text = meta.dump(1);
    const FileDescriptor fd(openForWriting(file));
    writeAll(fd.get(), text.data(), text.size(), 0);
    if (fsync(fd.get()) != 0)
        throw std::runtime_error(std::string("cannot write the token store: ") + std::strerror(errno));
}
}  // namespace

std::shared_ptr<const TokenStore> TokenStore::forCorpusFile(const std::string& path, const DataConfig& data,
                                                            const std::string& cacheDir,
                                                            const TokenizeProgress& progress) {
    // What the passes allocated and freed (counts, a corpus loaded whole) goes back to the system at the end.
    const struct Release {
        ~Release() { releaseFreedMemory(); }
    } release;
    const auto format = data.format == CorpusFormat::Auto ? detectCorpusFormat(path) : data.format;
    std::error_code ec;
    const auto absolute = fs::absolute(path, ec).lexically_normal().string();
    const auto key = settingsKey(absolute, format, data);
    const std::string stem = cacheDir.empty() ? std::string() : stemFor(cacheDir, absolute, key);
    checkCorpusPath(path, format);
    const auto stamp = stampOf(path, format);
    if (!stem.empty())
        if (auto store = open(stem, key, stamp.bytes, stamp.modifiedNs)) return store;
    // Plain text streams; the other formats are read whole first (their loader guards the memory).
    std::optional<Corpus> loaded;
    std::unique_ptr<DocumentParts> parts;
    if (format == CorpusFormat::Text) {
        parts = textFileParts(path, threadsFor(stamp.bytes));
    } else {
        loaded = loadCorpus(path, format);
        parts = corpusParts(*loaded, threadsFor(stamp.bytes));
    }
    auto inMemory = [&] {
        auto store = TokenStoreBuilder(*parts, progress).build(&data, nullptr, "", path);
        store->m_format = format;
        if (loaded) store->m_classes = loaded->classes;
        if (store->m_documents == 0) throw InputError(path, 0, "no text (the file holds only whitespace)");
        return store;
    };
    if (stem.empty()) return inMemory();
    std::shared_ptr<TokenStore> store, built;
    try {
        fs::create_directories(cacheDir, ec);
        PartialFiles files(stem);
        built = TokenStoreBuilder(*parts, progress).build(&data, nullptr, files.partial(".ids"), path);
        if (built->m_documents == 0) throw InputError(path, 0, "no text (the file holds only whitespace)");
        writeVector(files.partial(".docs"), built->m_ownDocs);
        if (!built->m_ownLabels.empty()) writeVector(files.partial(".labels"), built->m_ownLabels);
        writeMetadata(files.partial(".json"), key, absolute, stamp, format, data, *built,
                      loaded ? loaded->classes : std::vector<std::string>{});
        files.commit();
        store = open(stem, key, stamp.bytes, stamp.modifiedNs);
        if (!store)
            throw std::runtime_error("the token store just written to " + stem + ".json cannot be read back");
    } catch (const InputError&) {
        throw;
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception&) {
        // A cache that cannot be written (read-only, full) costs the next run its tokenization, not this one.
        return inMemory();
    }
    store->m_info.reused = false;
    store->m_info.seconds = built->m_info.seconds;
    return store;
}

std::shared_ptr<const TokenStore> TokenStore::forConfiguredCorpus(const DataConfig& data,
                                                                  const TokenizeProgress& progress) {
    return forCorpusFile(resolveCorpusPath(data.corpus), data, tokenStoreDir(corporaCacheDir()), progress);
}

std::shared_ptr<const TokenStore> TokenStore::fromCorpus(const Corpus& corpus, const DataConfig& data) {
    if (corpus.documents.empty()) throw InputError(corpus.source, 0, "the corpus has no documents");
    const auto parts = corpusParts(corpus, threadsFor(0));
    auto store = TokenStoreBuilder(*parts, {}).build(&data, nullptr, "", corpus.source);
    store->m_format = corpus.format;
    store->m_classes = corpus.classes;
    return store;
}

std::shared_ptr<const TokenStore> TokenStore::fromCorpus(const Corpus& corpus, const Vocabulary& vocabulary) {
    if (corpus.documents.empty()) throw InputError(corpus.source, 0, "the corpus has no documents");
    const auto parts = corpusParts(corpus, threadsFor(0));
    auto store = TokenStoreBuilder(*parts, {}).build(nullptr, &vocabulary, "", corpus.source);
    store->m_format = corpus.format;
    store->m_classes = corpus.classes;
    return store;
}

}  // namespace wb
