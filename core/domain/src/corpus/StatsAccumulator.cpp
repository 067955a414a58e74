// Corpus statistics, one document at a time (see StatsAccumulator.h).
#include "corpus/StatsAccumulator.h"

#include <algorithm>

#include "text/WordTokenizer.h"

namespace wb {

StatsAccumulator::StatsAccumulator() : m_seenChar(0x110000, false) {}

void StatsAccumulator::seeWord(std::string_view word) {
    if (m_words.find(word) == m_words.end()) m_words.insert(m_wordArena.emplace_back(word));
}

void StatsAccumulator::add(std::string_view text) { addPiece(text, true); }

void StatsAccumulator::addPiece(std::string_view text, bool endsDocument) {
    std::int64_t n = 0;
    for (std::size_t i = 0; i < text.size();) {
        // Decode inline: text was validated on load, so the lead byte gives the length.
        const auto b0 = static_cast<unsigned char>(text[i]);
        const std::size_t len = b0 < 0x80 ? 1 : b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : 4;
        char32_t cp = len == 1 ? b0 : len == 2 ? (b0 & 0x1F) : len == 3 ? (b0 & 0x0F) : (b0 & 0x07);
        for (std::size_t k = 1; k < len && i + k < text.size(); ++k)
            cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
        if (cp < 0x110000 && !m_seenChar[cp]) {
            m_seenChar[cp] = true;
            ++m_distinctChars;
        }
        i += len;
        ++n;
    }
    auto& s = m_stats;
    s.characters += n;
    detail::forEachWordToken(text, [&](std::string_view w) {
        ++s.words;
        seeWord(w);
    });
    m_documentChars += n;
    if (!endsDocument) return;
    s.minDocumentChars = s.documents == 0 ? m_documentChars : std::min(s.minDocumentChars, m_documentChars);
    s.maxDocumentChars = std::max(s.maxDocumentChars, m_documentChars);
    ++s.documents;
    m_documentChars = 0;
}

void StatsAccumulator::countClass(const std::string& label) { ++m_stats.classCounts[label]; }

void StatsAccumulator::merge(const StatsAccumulator& other) {
    const auto& o = other.m_stats;
    if (o.documents == 0) return;
    auto& s = m_stats;
    s.minDocumentChars =
        s.documents == 0 ? o.minDocumentChars : std::min(s.minDocumentChars, o.minDocumentChars);
    s.maxDocumentChars = std::max(s.maxDocumentChars, o.maxDocumentChars);
    s.documents += o.documents;
    s.characters += o.characters;
    s.words += o.words;
    for (const auto& [label, n] : o.classCounts) s.classCounts[label] += n;
    for (std::size_t cp = 0; cp < m_seenChar.size(); ++cp)
        if (other.m_seenChar[cp] && !m_seenChar[cp]) {
            m_seenChar[cp] = true;
            ++m_distinctChars;
        }
    for (const auto w : other.m_words) seeWord(w);
}

CorpusStats StatsAccumulator::stats() const {
    CorpusStats s = m_stats;
    s.distinctCharacters = m_distinctChars;
    s.distinctWords = static_cast<std::int64_t>(m_words.size());
    s.meanDocumentChars = s.documents > 0 ? static_cast<double>(s.characters) / s.documents : 0.0;
    return s;
}

}  // namespace wb
