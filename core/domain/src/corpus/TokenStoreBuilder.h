// The token store's encoder (see workbench/domain/TokenStore.h): document parts read in two passes on a
// thread each, the first counting every token and each document's length and class, the second writing each
// part's ids at the offset the counts give it, into a file or into memory.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "corpus/DocumentParts.h"
#include "workbench/domain/Config.h"
#include "workbench/domain/TokenStore.h"
#include "workbench/domain/Vocabulary.h"

namespace wb {

// Code points below this are counted and looked up in a flat table; the rare ones above, in a map.
inline constexpr char32_t kTableCodePoints = 0x30000;

// The vocabulary size a config's data settings ask for; 0 for no limit.
std::size_t vocabularyLimit(const DataConfig& data);

// v as 16 lower-case hex digits (checksums, the names of stores in the cache).
std::string hex16(std::uint64_t v);

// A store's file written at offset, whole, and flushed to disk. Both throw std::runtime_error "cannot write
// the token store: reason" (a failed write costs the cache its store, never the run: see forCorpusFile).
void writeStoreBytes(int fd, const char* data, std::size_t n, off_t offset);
void syncStoreFile(int fd);

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

    void count(std::string_view text, int label);
};

// Tokenizes document parts into a store held in memory, or (idsFile) with its ids written to a file.
class TokenStoreBuilder {
public:
    TokenStoreBuilder(const DocumentParts& parts, const TokenizeProgress& progress)
        : m_parts(parts), m_runner(progress, 2 * parts.totalBytes()) {}

    // The vocabulary is given (a resumed run's) or built from the counts with data's settings. Throws
    // Cancelled when the progress callback cancels.
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

}  // namespace wb
