// Plain text read in pieces (DocumentParts::visitPieces, issue #46): whatever the file's shape — one
// paragraph of many lines, one line with no end, lines of blanks, CRLF, trailing blanks — the pieces of each
// document joined are the document the whole-document reading gives, no piece is much over the cap, and
// the statistics and preview read in pieces equal those of the corpus loaded whole.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "corpus/DocumentParts.h"
#include "corpus/StatsAccumulator.h"
#include "support/TestSupport.h"
#include "workbench/domain/Corpus.h"

namespace {

std::vector<std::string> wholeDocuments(const wb::DocumentParts& parts) {
    std::vector<std::string> out;
    for (std::size_t p = 0; p < parts.count(); ++p)
        parts.visit(
            p, [&](std::string_view text, int) { out.emplace_back(text); }, [](std::size_t) {}, nullptr);
    return out;
}

struct Pieces {
    std::vector<std::string> documents;
    std::size_t largest = 0;
};

Pieces joinedPieces(const wb::DocumentParts& parts, std::size_t maxPiece) {
    Pieces out;
    std::string current;
    for (std::size_t p = 0; p < parts.count(); ++p)
        parts.visitPieces(
            p,
            [&](std::string_view piece, bool ends) {
                out.largest = std::max(out.largest, piece.size());
                current.append(piece);
                if (!ends) return;
                out.documents.push_back(current);
                current.clear();
            },
            [](std::size_t) {}, maxPiece);
    EXPECT_TRUE(current.empty()) << "a document's last piece never came";
    return out;
}

std::string repeat(const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += s;
    return out;
}

}  // namespace

TEST(DocumentPieces, JoinedPiecesAreTheDocumentsWhateverTheShape) {
    const std::vector<std::pair<const char*, std::string>> shapes = {
        {"one paragraph of many lines", repeat("alpha beta gamma delta 白日依山尽\n", 400)},
        {"one line with no end", repeat("alpha beta gamma 黄河入海流 ", 400)},
        {"a line without blanks", repeat("abcdefghij黄河", 300) + "\n\nsecond\n"},
        {"paragraphs, CRLF, trailing blanks", repeat("one two three  \r\nfour five   \r\n\r\n", 60)},
        {"blank lines of blanks between",
         repeat("word word word\n   \t \n", 80) + repeat(" ", 500) + "\nend\n"},
        {"trailing blanks before a blank line", repeat("x y z ", 50) + repeat(" ", 300) + "\n\nlast line"},
    };
    wbtest::TempDir tmp;
    for (const auto& [name, text] : shapes) {
        const auto path = tmp.file("shape.txt");
        wbtest::writeText(path, text);
        const auto parts = wb::textFileParts(path, 1);
        const auto whole = wholeDocuments(*parts);
        for (std::size_t cap : {64u, 100u, 1000u}) {
            const auto pieces = joinedPieces(*parts, cap);
            EXPECT_EQ(pieces.documents, whole) << name << ", pieces of " << cap;
            EXPECT_LE(pieces.largest, 2 * cap) << name << ": a piece over twice the cap";
        }
    }
}

TEST(DocumentPieces, StatisticsInPiecesEqualTheCorpusLoadedWhole) {
    wbtest::TempDir tmp;
    const auto path = tmp.file("corpus.txt");
    wbtest::writeText(path, repeat("床前明月光 the moon before my bed\n", 300) + "\n\n" +
                                repeat("second paragraph, words and 字\n", 40) + "\n\nthird");
    const auto corpus = wb::loadCorpus(path, wb::CorpusFormat::Text);
    const auto expected = wb::computeStats(corpus);
    const auto parts = wb::textFileParts(path, 1);
    wb::StatsAccumulator inPieces;
    parts->visitPieces(
        0, [&](std::string_view piece, bool ends) { inPieces.addPiece(piece, ends); }, [](std::size_t) {},
        64);
    const auto got = inPieces.stats();
    EXPECT_EQ(got.documents, expected.documents);
    EXPECT_EQ(got.characters, expected.characters);
    EXPECT_EQ(got.distinctCharacters, expected.distinctCharacters);
    EXPECT_EQ(got.words, expected.words);
    EXPECT_EQ(got.distinctWords, expected.distinctWords);
    EXPECT_EQ(got.minDocumentChars, expected.minDocumentChars);
    EXPECT_EQ(got.maxDocumentChars, expected.maxDocumentChars);
}
