// Corpus overviews (issue #30): a plain-text file read streamed in parts gives the statistics and preview of
// the same file loaded whole; a labelled format comes with its corpus; reading reports progress, cancels,
// and refuses a bad byte with its line as the loader does.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/TestSupport.h"
#include "workbench/domain/CorpusOverview.h"
#include "workbench/domain/Errors.h"

using namespace wb;

namespace {

// Long lines (up to 90 words), so that the preview cuts documents.
std::string paragraphs(std::size_t bytes) { return wbtest::mixedScriptText(bytes, 5, 90); }

void expectSameStats(const CorpusStats& a, const CorpusStats& b) {
    EXPECT_EQ(a.documents, b.documents);
    EXPECT_EQ(a.characters, b.characters);
    EXPECT_EQ(a.distinctCharacters, b.distinctCharacters);
    EXPECT_EQ(a.words, b.words);
    EXPECT_EQ(a.distinctWords, b.distinctWords);
    EXPECT_EQ(a.minDocumentChars, b.minDocumentChars);
    EXPECT_EQ(a.maxDocumentChars, b.maxDocumentChars);
    EXPECT_DOUBLE_EQ(a.meanDocumentChars, b.meanDocumentChars);
    EXPECT_EQ(a.classCounts, b.classCounts);
}

}  // namespace

TEST(CorpusOverview, PlainTextReadInPartsMatchesTheCorpusLoadedWhole) {
    wbtest::TempDir dir;
    const auto path = dir.file("big.txt");
    // Past 4 MiB, so read in a part per core; the last part alone has some words and a character.
    wbtest::writeText(path, paragraphs(12u << 20) + "\nzebra quagga ж\n");
    std::uint64_t lastDone = 0, total = 0;
    const auto o =
        readCorpusOverview(path, CorpusFormat::Auto, 20, 30, [&](std::uint64_t done, std::uint64_t t) {
            lastDone = done;
            total = t;
            return true;
        });
    const Corpus whole = loadCorpus(path, CorpusFormat::Text);
    EXPECT_EQ(o.format, CorpusFormat::Text);
    EXPECT_EQ(o.corpus, nullptr);  // streamed, not held
    EXPECT_FALSE(o.labelled());
    EXPECT_GE(o.bytes, 12u << 20);
    expectSameStats(o.stats, computeStats(whole));
    const auto preview = previewDocuments(whole, 20, 30);
    ASSERT_EQ(o.preview.size(), preview.size());
    for (std::size_t i = 0; i < preview.size(); ++i) EXPECT_EQ(o.preview[i].text, preview[i].text) << i;
    EXPECT_GT(total, 0u);
    EXPECT_LE(lastDone, total);
}

TEST(CorpusOverview, ALabelledCorpusComesWithItsCorpusAndClasses) {
    wbtest::TempDir dir;
    const auto path = dir.file("l.tsv");
    wbtest::writeText(path, "label\ttext\npos\tgood film\nneg\tbad film\npos\tfine one\n");
    const auto o = readCorpusOverview(path, CorpusFormat::Auto, 2, 100);
    EXPECT_EQ(o.format, CorpusFormat::Tsv);
    ASSERT_NE(o.corpus, nullptr);
    EXPECT_EQ(o.classes, (std::vector<std::string>{"neg", "pos"}));
    EXPECT_EQ(o.stats.classCounts.at("pos"), 2);
    EXPECT_EQ(o.preview.size(), 2u);
    expectSameStats(o.stats, computeStats(*o.corpus));
}

TEST(CorpusOverview, CancellingStopsTheReading) {
    wbtest::TempDir dir;
    const auto path = dir.file("big.txt");
    wbtest::writeText(path, paragraphs(20u << 20));
    EXPECT_THROW(readCorpusOverview(path, CorpusFormat::Text, 20, 30,
                                    [](std::uint64_t, std::uint64_t) { return false; }),
                 Cancelled);
}

TEST(CorpusOverview, BadInputIsRefusedAsTheLoaderRefusesIt) {
    wbtest::TempDir dir;
    std::string text = paragraphs(6u << 20);
    text[text.size() - 50] = '\xff';
    wbtest::writeText(dir.file("latin1.txt"), text);
    try {
        readCorpusOverview(dir.file("latin1.txt"), CorpusFormat::Text, 20, 30);
        FAIL() << "a bad byte was read";
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), std::count(text.begin(), text.end() - 50, '\n') + 1) << e.what();
    }
    wbtest::writeText(dir.file("blank.txt"), "  \n\n \r\n");
    EXPECT_THROW(readCorpusOverview(dir.file("blank.txt"), CorpusFormat::Text, 20, 30), InputError);
    EXPECT_THROW(readCorpusOverview(dir.file("missing.txt"), CorpusFormat::Auto, 20, 30), InputError);
}
