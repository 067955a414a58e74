// The token store's two-pass encoder (see TokenStoreBuilder.h): count, choose the vocabulary, encode each
// part at its offset, gather the documents; and the stores of corpora already in memory.
#include "corpus/TokenStoreBuilder.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "io/PosixFile.h"
#include "text/CodePoints.h"
#include "text/WordTokenizer.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Utf8.h"

namespace wb {

std::size_t vocabularyLimit(const DataConfig& data) {
    if (data.vocabSize > 0) return static_cast<std::size_t>(data.vocabSize);
    return data.tokens == TokenLevel::Word ? 15000 : 0;
}

std::string hex16(std::uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

void PartCount::count(std::string_view text, int label) {
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

void writeStoreBytes(int fd, const char* data, std::size_t n, off_t offset) {
    if (const int error = detail::writeFully(fd, data, n, offset); error != 0)
        throw std::runtime_error(std::string("cannot write the token store: ") + std::strerror(error));
}

void syncStoreFile(int fd) {
    if (fsync(fd) != 0)
        throw std::runtime_error(std::string("cannot write the token store: ") + std::strerror(errno));
}

namespace {

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

struct FileChanged : std::exception {};

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
            writeStoreBytes(m_fd, reinterpret_cast<const char*>(narrow.data()), narrow.size() * 2,
                            static_cast<off_t>(at * 2));
        } else {
            writeStoreBytes(m_fd, reinterpret_cast<const char*>(ids.data()), ids.size() * 4,
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

}  // namespace

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
    const detail::FileDescriptor fd(idsFile.empty() ? -1 : detail::openForWriting(idsFile));
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
    if (fd.get() >= 0) syncStoreFile(fd.get());
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
    store.m_info.checksum = "fnv1a64w:" + hex16(checksum);
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
