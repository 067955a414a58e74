// What a person looks at before training on a corpus: its statistics, its first documents and its classes.
// Plain text is read streamed, in parts on every core, as its token store reads it: nothing holds the whole
// file, so a corpus larger than memory opens, and the reading reports progress and can be cancelled. The
// other formats are loaded whole (loadCorpus, with its memory guard) and the corpus comes with the overview.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workbench/domain/Corpus.h"
#include "workbench/domain/TokenStore.h"

namespace wb {

struct CorpusOverview {
    std::string path;  // as given
    CorpusFormat format = CorpusFormat::Text;
    std::uint64_t bytes = 0;  // the file's size; a folder's, its files' together
    CorpusStats stats;
    std::vector<Document> preview;  // the first documents, cut as previewDocuments cuts them
    std::vector<std::string> classes;
    std::shared_ptr<const Corpus> corpus;  // the corpus loaded whole; null for plain text, read streamed
    bool labelled() const { return !classes.empty(); }
};

// Reads a corpus's overview with previewCount documents of at most previewChars characters. progress gets
// the bytes read of the file's size (plain text only: a format loaded whole reports nothing); returning
// false cancels, and this throws Cancelled. Throws InputError on a bad corpus, as loadCorpus does, naming
// the offset and line of a bad byte in plain text.
CorpusOverview readCorpusOverview(const std::string& path, CorpusFormat format, std::size_t previewCount,
                                  std::size_t previewChars, const TokenizeProgress& progress = {});

}  // namespace wb
