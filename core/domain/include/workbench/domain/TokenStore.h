// A corpus tokenized once: each document's token ids followed by <eos>, one document after another in the
// source's order (so, for running text, the language model's stream as it is), where each document starts,
// each document's class, and the vocabulary it was encoded with. Kept on disk in the corpus cache and read
// from there as training needs it (ids with pread, so that they stay in the page cache and out of the
// process's resident memory; document starts and classes memory-mapped): a corpus larger than memory trains,
// and a second run on the same corpus and vocabulary settings starts without tokenizing again.
//
//   CACHE/token-stores/KEY.json    what the store holds and what it was made from: the source (absolute
//                                  path, size, modification time, checksum), its format, the vocabulary
//                                  settings and the vocabulary, the classes, the counts and the id width
//   CACHE/token-stores/KEY.ids     the ids, int16 little-endian (vocabularies up to 32,767) or int32
//   CACHE/token-stores/KEY.docs    int64: where each document starts in the ids, documents + 1 of them
//   CACHE/token-stores/KEY.labels  int32: each document's class (labelled corpora only)
//
// KEY names the source and the vocabulary settings. A store is whole once its .json exists: the files are
// written under temporary names and renamed, the .json last, so a tokenization killed or cancelled halfway
// leaves no store (its temporary files are removed by the next tokenization). A source whose size or
// modification time changed is tokenized again.
//
// Plain text is read in two streaming passes (count, then encode), each on as many threads as the machine
// has cores, over parts split at paragraph breaks; nothing holds the whole file. Other formats are loaded
// (loadCorpus, with its memory guard) and their documents encoded the same way.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "workbench/domain/Config.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/Vocabulary.h"

namespace wb {

// What a store was made from and how long it took; shown in logs and kept in run.json.
struct TokenStoreInfo {
    std::string path;  // the .json; "" for a store held in memory
    std::string source;
    std::uint64_t sourceBytes = 0;
    std::int64_t sourceModifiedNs = 0;
    std::string checksum;  // "fnv1a64w:HEX": FNV-1a over the source's 8-byte words, parts combined in order
    bool reused = false;   // opened, not tokenized now
    double seconds = 0;    // to tokenize (or open)
};

// Progress of a tokenization: bytes of the source read over both passes, of 2 × its size. Return false to
// cancel: the tokenization throws Cancelled and leaves no store.
using TokenizeProgress = std::function<bool(std::uint64_t done, std::uint64_t total)>;

struct Cancelled : std::runtime_error {
    Cancelled() : std::runtime_error("cancelled") {}
};

class TokenStore {
public:
    ~TokenStore();
    TokenStore(const TokenStore&) = delete;
    TokenStore& operator=(const TokenStore&) = delete;

    // The store of a corpus file for a config's data settings (format, tokens, vocabulary size, minimum
    // count): opened when one is in cacheDir for the source as it is now, else tokenized into it. An empty
    // cacheDir tokenizes into memory. Throws InputError on a bad corpus (as loadCorpus does).
    static std::shared_ptr<const TokenStore> forCorpusFile(const std::string& path, const DataConfig& data,
                                                           const std::string& cacheDir,
                                                           const TokenizeProgress& progress = {});
    // The store of a config's corpus (a path, or a prepared corpus's name) in the corpus cache: what a run,
    // the finders and `tokenize` read.
    static std::shared_ptr<const TokenStore> forConfiguredCorpus(const DataConfig& data,
                                                                 const TokenizeProgress& progress = {});
    // A corpus already in memory, encoded into memory (an app's loaded corpus, a test's).
    static std::shared_ptr<const TokenStore> fromCorpus(const Corpus& corpus, const DataConfig& data);
    // The same with a vocabulary given (a resumed run's), instead of one built from the corpus.
    static std::shared_ptr<const TokenStore> fromCorpus(const Corpus& corpus, const Vocabulary& vocabulary);

    const Vocabulary& vocabulary() const { return m_vocabulary; }
    const std::vector<std::string>& classes() const { return m_classes; }
    CorpusFormat format() const { return m_format; }
    const TokenStoreInfo& info() const { return m_info; }

    std::int64_t documentCount() const { return m_documents; }
    std::int64_t tokenCount() const { return m_tokens; }  // every id, the <eos> after each document included
    std::int64_t documentBegin(std::int64_t doc) const { return m_docs[doc]; }
    std::int64_t documentEnd(std::int64_t doc) const { return m_docs[doc + 1]; }  // one past its <eos>
    int label(std::int64_t doc) const { return m_labels ? m_labels[doc] : -1; }
    bool labelled() const { return m_labels != nullptr; }
    int idBytes() const { return m_idBytes; }  // 2 (int16) or 4 (int32)

    // ids[begin, begin + count) as int64, into out.
    void copy(std::int64_t begin, std::int64_t count, std::int64_t* out) const;
    // Bytes the store keeps in this process's memory (0 for a store on disk: its ids are read as needed, its
    // document starts and classes mapped).
    std::uint64_t residentBytes() const;

private:
    TokenStore();  // out of line: Mapping is complete only in TokenStore.cpp, and the builder makes stores
    // The store at STEM.json for this key and the source as it is now (its size and modification time);
    // nullptr when there is none, it is damaged, or the source changed.
    static std::shared_ptr<TokenStore> open(const std::string& stem, const std::string& key,
                                            std::uint64_t sourceBytes, std::int64_t sourceModifiedNs);
    struct Mapping;
    friend class TokenStoreBuilder;

    Vocabulary m_vocabulary;
    std::vector<std::string> m_classes;
    CorpusFormat m_format = CorpusFormat::Text;
    TokenStoreInfo m_info;
    std::int64_t m_documents = 0, m_tokens = 0;
    int m_idBytes = 2;
    int m_idsFd = -1;  // a store on disk: its .ids, read with pread
    const std::int16_t* m_ids16 = nullptr;
    const std::int32_t* m_ids32 = nullptr;
    const std::int64_t* m_docs = nullptr;
    const std::int32_t* m_labels = nullptr;
    // Either the mapped files or the vectors behind the pointers above.
    std::vector<std::unique_ptr<Mapping>> m_mappings;
    std::vector<std::int16_t> m_own16;
    std::vector<std::int32_t> m_own32, m_ownLabels;
    std::vector<std::int64_t> m_ownDocs;
};

// The folder of a cache root's stores.
std::string tokenStoreDir(const std::string& cacheRoot);

}  // namespace wb
