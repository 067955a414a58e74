// A corpus's statistics (CorpusStats) gathered one document at a time, by one thread per part of the corpus,
// the parts' accumulators merged at the end: computeStats over a corpus in memory and the corpus overview
// over a file streamed in parts count alike.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "workbench/domain/Corpus.h"

namespace wb {

class StatsAccumulator {
public:
    StatsAccumulator();
    void add(std::string_view text);  // one document
    // A piece of a document (DocumentParts::visitPieces): its characters and words count now, the document
    // (its length among the others) when its last piece, endsDocument, comes.
    void addPiece(std::string_view text, bool endsDocument);
    void countClass(const std::string& label);  // its class, for a labelled corpus
    void merge(const StatsAccumulator& other);  // another part's counts (any order: nothing here is ordered)
    CorpusStats stats() const;

private:
    void seeWord(std::string_view word);

    // A bitmap over all code points (139 KB) beats hashing every character; distinct words are views into
    // an arena, so a word already seen costs a hash lookup and no allocation.
    std::vector<bool> m_seenChar;
    std::int64_t m_distinctChars = 0;
    std::unordered_set<std::string_view> m_words;
    std::deque<std::string> m_wordArena;
    CorpusStats m_stats;
    std::int64_t m_documentChars = 0;  // of the document whose pieces are coming
};

}  // namespace wb
