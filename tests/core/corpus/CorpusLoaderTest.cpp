// Corpus loaders on good and bad input: each bad file must be refused with the file, the line and what was
// expected, and good files in every format must give the documents, labels and classes the user meant.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/TestSupport.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/Errors.h"

namespace fs = std::filesystem;

namespace {

using wbtest::TempDir;
using wbtest::writeText;

// Loads and expects an InputError whose what() contains every fragment.
wb::InputError loadError(const std::string& path, wb::CorpusFormat format = wb::CorpusFormat::Auto) {
    try {
        wb::loadCorpus(path, format);
    } catch (const wb::InputError& e) {
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
        return e;
    }
    ADD_FAILURE() << "expected an InputError loading " << path;
    return wb::InputError("none");
}

#define EXPECT_CONTAINS(haystack, needle) \
    EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "in: " << (haystack)

TEST(CorpusFormat, DetectsByExtensionAndFolder) {
    TempDir dir;
    for (const char* name : {"a.json", "a.tsv", "a.CSV", "a.txt", "noext"}) writeText(dir.file(name), "x");
    EXPECT_EQ(wb::detectCorpusFormat(dir.file("a.json")), wb::CorpusFormat::Poems);
    EXPECT_EQ(wb::detectCorpusFormat(dir.file("a.tsv")), wb::CorpusFormat::Tsv);
    EXPECT_EQ(wb::detectCorpusFormat(dir.file("a.CSV")), wb::CorpusFormat::Csv);
    EXPECT_EQ(wb::detectCorpusFormat(dir.file("a.txt")), wb::CorpusFormat::Text);
    EXPECT_EQ(wb::detectCorpusFormat(dir.file("noext")), wb::CorpusFormat::Text);
    EXPECT_EQ(wb::detectCorpusFormat(dir.str()), wb::CorpusFormat::Folder);
    EXPECT_THROW(wb::detectCorpusFormat(dir.file("missing.txt")), wb::InputError);
}

TEST(CorpusFormat, Strings) {
    for (auto f : {wb::CorpusFormat::Auto, wb::CorpusFormat::Text, wb::CorpusFormat::Poems,
                   wb::CorpusFormat::Tsv, wb::CorpusFormat::Csv, wb::CorpusFormat::Folder})
        EXPECT_EQ(wb::corpusFormatFromString(wb::toString(f)), f);
    EXPECT_EQ(wb::toString(wb::CorpusFormat::Poems), "poems");
    EXPECT_CONTAINS(std::string([] {
                        try {
                            wb::corpusFormatFromString("xml");
                        } catch (const wb::InputError& e) {
                            return std::string(e.what());
                        }
                        return std::string();
                    }()),
                    "expected auto, text, poems, tsv, csv or folder");
}

TEST(CorpusCommon, MissingEmptyBinaryAndInvalidUtf8) {
    TempDir dir;
    auto e = loadError(dir.file("missing.txt"));
    EXPECT_CONTAINS(e.what(), "missing.txt: no such file");
    writeText(dir.file("empty.txt"), "");
    e = loadError(dir.file("empty.txt"));
    EXPECT_CONTAINS(e.what(), "empty.txt: file is empty");
    writeText(dir.file("bin.txt"), std::string("line one\nline two\nab\0cd", 23));
    e = loadError(dir.file("bin.txt"));
    EXPECT_EQ(e.line(), 3);
    EXPECT_CONTAINS(e.what(), "bin.txt:3: binary data: NUL byte");
    writeText(dir.file("bad.tsv"), "label\ttext\npos\tfine\nneg\tbad \xFF byte\n");
    e = loadError(dir.file("bad.tsv"));
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.byteOffset(), 28);
    EXPECT_CONTAINS(e.what(), "bad.tsv:3: invalid UTF-8 (byte 0xFF at offset 28)");
    writeText(dir.file("ws.txt"), " \n\n\t\n");
    EXPECT_CONTAINS(loadError(dir.file("ws.txt")).what(), "only whitespace");
}

TEST(CorpusText, ParagraphsSeparatedByBlankLines) {
    TempDir dir;
    writeText(dir.file("t.txt"),
              "\xEF\xBB\xBF\n\nfirst line\r\nsecond line  \r\n\r\n \t\r\nthird\rpara\n\n\nlast  \n");
    const auto c = wb::loadCorpus(dir.file("t.txt"));
    EXPECT_EQ(c.format, wb::CorpusFormat::Text);
    EXPECT_EQ(c.source, dir.file("t.txt"));
    ASSERT_EQ(c.documents.size(), 3u);
    EXPECT_EQ(c.documents[0].text, "first line\nsecond line");
    EXPECT_EQ(c.documents[1].text, "third\npara");
    EXPECT_EQ(c.documents[2].text, "last");
    EXPECT_FALSE(c.labelled());
    EXPECT_TRUE(c.documents[0].label.empty());
}

TEST(CorpusText, FolderGivenAsTextIsRefused) {
    TempDir dir;
    EXPECT_CONTAINS(loadError(dir.str(), wb::CorpusFormat::Text).what(), "is a folder");
}

TEST(CorpusPoems, LoadsChinesePoetryJson) {
    TempDir dir;
    writeText(
        dir.file("tang.json"),
        R"([{"title": "靜夜思", "author": "李白", "paragraphs": ["床前明月光，疑是地上霜。", "舉頭望明月，低頭思故鄉。"]},)"
        "\r\n"
        R"( {"paragraphs": ["春眠不覺曉，處處聞啼鳥。"], "extra": 1}])");
    const auto c = wb::loadCorpus(dir.file("tang.json"));
    EXPECT_EQ(c.format, wb::CorpusFormat::Poems);
    ASSERT_EQ(c.documents.size(), 2u);
    EXPECT_EQ(c.documents[0].text, "床前明月光，疑是地上霜。\n舉頭望明月，低頭思故鄉。");
    EXPECT_EQ(c.documents[0].title, "靜夜思");
    EXPECT_EQ(c.documents[0].author, "李白");
    EXPECT_EQ(c.documents[1].title, "");
    EXPECT_FALSE(c.labelled());
}

TEST(CorpusPoems, WrongShapeTruncatedAndEmpty) {
    TempDir dir;
    writeText(dir.file("obj.json"), R"({"paragraphs": ["a"]})");
    EXPECT_CONTAINS(loadError(dir.file("obj.json")).what(), "expected a JSON array of poems");
    writeText(dir.file("shape.json"), R"([{"paragraphs": ["a"]}, {"paragraphs": "a"}])");
    EXPECT_CONTAINS(loadError(dir.file("shape.json")).what(),
                    "shape.json: element 1: expected an object with a \"paragraphs\" array of strings");
    writeText(dir.file("num.json"), R"([{"paragraphs": ["a", 2]}])");
    EXPECT_CONTAINS(loadError(dir.file("num.json")).what(), "element 0: expected an object");
    writeText(dir.file("str.json"), R"([{"paragraphs": ["a"]}, "poem"])");
    EXPECT_CONTAINS(loadError(dir.file("str.json")).what(), "element 1: expected an object");
    writeText(dir.file("title.json"), R"([{"paragraphs": ["a"], "title": 3}])");
    EXPECT_CONTAINS(loadError(dir.file("title.json")).what(), "element 0: title: expected a string");
    writeText(dir.file("none.json"), "[]");
    EXPECT_CONTAINS(loadError(dir.file("none.json")).what(), "no poems");
    // Cut off in the middle of the third line.
    writeText(dir.file("cut.json"), "[\n  {\"paragraphs\": [\"a\"]},\n  {\"paragraphs\": [\"b");
    const auto e = loadError(dir.file("cut.json"));
    EXPECT_EQ(e.line(), 3);
    EXPECT_CONTAINS(e.what(), "cut.json:3: invalid JSON");
}

TEST(CorpusTsv, HeaderlessTwoColumnsAndHeaderInAnyOrder) {
    TempDir dir;
    writeText(dir.file("a.tsv"), "pos\tgood film\n\nneg\tbad film\r\npos\t  great  \n");
    auto c = wb::loadCorpus(dir.file("a.tsv"));
    ASSERT_EQ(c.documents.size(), 3u);
    EXPECT_EQ(c.documents[0].label, "pos");
    EXPECT_EQ(c.documents[2].text, "great");
    EXPECT_EQ(c.classes, (std::vector<std::string>{"neg", "pos"}));
    EXPECT_EQ(c.classIndex("pos"), 1);
    EXPECT_EQ(c.classIndex("meh"), -1);

    writeText(dir.file("b.tsv"), "id\tTEXT\tLabel\n1\tnice\tyes\n2\tnasty\tno\n");
    c = wb::loadCorpus(dir.file("b.tsv"));
    ASSERT_EQ(c.documents.size(), 2u);
    EXPECT_EQ(c.documents[0].label, "yes");
    EXPECT_EQ(c.documents[0].text, "nice");
    EXPECT_EQ(c.classes, (std::vector<std::string>{"no", "yes"}));

    writeText(dir.file("sep.tsv"), wbtest::separableTsv(40));
    c = wb::loadCorpus(dir.file("sep.tsv"));
    EXPECT_EQ(c.documents.size(), 40u);
    EXPECT_EQ(c.format, wb::CorpusFormat::Tsv);
}

TEST(CorpusTsv, RowErrorsNameTheLine) {
    TempDir dir;
    writeText(dir.file("missing.tsv"), "label\ttext\npos\tok\n\nneg only-one-column\n");
    auto e = loadError(dir.file("missing.tsv"));
    EXPECT_EQ(e.line(), 4);
    EXPECT_CONTAINS(e.what(), "missing.tsv:4: expected 2 columns (label, text), found 1");
    writeText(dir.file("three.tsv"), "pos\tok\nneg\tno\textra\n");
    EXPECT_CONTAINS(loadError(dir.file("three.tsv")).what(),
                    "three.tsv:2: expected 2 columns (label, text), found 3");
    writeText(dir.file("hdr.tsv"), "text\tlabel\tid\nok\tpos\n");
    EXPECT_CONTAINS(loadError(dir.file("hdr.tsv")).what(),
                    "hdr.tsv:2: expected 3 columns (text, label, id), found 2");
    writeText(dir.file("nolabel.tsv"), "pos\tok\n \tno label\n");
    EXPECT_CONTAINS(loadError(dir.file("nolabel.tsv")).what(), "nolabel.tsv:2: empty label");
    writeText(dir.file("notext.tsv"), "pos\tok\nneg\t  \n");
    EXPECT_CONTAINS(loadError(dir.file("notext.tsv")).what(), "notext.tsv:2: empty text");
    writeText(dir.file("one.tsv"), "label\ttext\npos\ta\npos\tb\n");
    e = loadError(dir.file("one.tsv"));
    EXPECT_EQ(e.line(), 0);
    EXPECT_CONTAINS(e.what(), "one.tsv: only one class ('pos'): a classifier needs at least two");
    writeText(dir.file("header-only.tsv"), "label\ttext\n");
    EXPECT_CONTAINS(loadError(dir.file("header-only.tsv")).what(), "no rows after the header");
}

TEST(CorpusCsv, QuotedFieldsWithCommasQuotesAndNewlines) {
    TempDir dir;
    writeText(dir.file("q.csv"),
              "text,label\r\n"
              "\"Hello, world\",pos\r\n"
              "\"She said \"\"no\"\"\nthen left\",neg\r\n"
              "plain,pos\r\n");
    const auto c = wb::loadCorpus(dir.file("q.csv"));
    EXPECT_EQ(c.format, wb::CorpusFormat::Csv);
    ASSERT_EQ(c.documents.size(), 3u);
    EXPECT_EQ(c.documents[0].text, "Hello, world");
    EXPECT_EQ(c.documents[1].text, "She said \"no\"\nthen left");
    EXPECT_EQ(c.documents[1].label, "neg");
    EXPECT_EQ(c.documents[2].text, "plain");
}

TEST(CorpusCsv, LinesCountedAcrossEmbeddedNewlinesAndUnterminatedQuote) {
    TempDir dir;
    writeText(dir.file("l.csv"), "pos,\"two\nlines\"\nneg,\"three\n\nlines\"\npos\n");
    auto e = loadError(dir.file("l.csv"));
    EXPECT_EQ(e.line(), 6);
    EXPECT_CONTAINS(e.what(), "l.csv:6: expected 2 columns (label, text), found 1");
    writeText(dir.file("u.csv"), "pos,fine\nneg,\"never closed\nmore text\n");
    e = loadError(dir.file("u.csv"));
    EXPECT_EQ(e.line(), 2);
    EXPECT_CONTAINS(e.what(), "u.csv:2: unterminated quoted field");
    writeText(dir.file("after.csv"), "pos,\"quoted\"tail\nneg,x\n");
    EXPECT_CONTAINS(loadError(dir.file("after.csv")).what(),
                    "after.csv:1: unexpected character 't' after a closing quote");
}

TEST(CorpusFolder, OneSubFolderPerClass) {
    TempDir dir;
    writeText(dir.file("pos/b.txt"), "a lovely film\r\n");
    writeText(dir.file("pos/a.txt"), "superb");
    writeText(dir.file("neg/1.txt"), "dull\n\n");
    writeText(dir.file("neg/.hidden"), "skip me");
    writeText(dir.file(".git/x.txt"), "not a class");
    writeText(dir.file("README"), "a file at the top is not a document");
    const auto c = wb::loadCorpus(dir.str());
    EXPECT_EQ(c.format, wb::CorpusFormat::Folder);
    EXPECT_EQ(c.classes, (std::vector<std::string>{"neg", "pos"}));
    ASSERT_EQ(c.documents.size(), 3u);
    EXPECT_EQ(c.documents[0].label, "neg");
    EXPECT_EQ(c.documents[0].text, "dull");
    EXPECT_EQ(c.documents[1].title, "a.txt");
    EXPECT_EQ(c.documents[2].text, "a lovely film");
}

TEST(CorpusFolder, ErrorsNameTheFolderOrFile) {
    TempDir dir;
    EXPECT_CONTAINS(loadError(dir.file("nope"), wb::CorpusFormat::Folder).what(), "no such file or folder");
    writeText(dir.file("flat/a.txt"), "x");
    EXPECT_CONTAINS(loadError(dir.file("flat")).what(),
                    "no class sub-folders (expected one folder per class, e.g. neg/ and pos/)");
    writeText(dir.file("single/pos/a.txt"), "x");
    EXPECT_CONTAINS(loadError(dir.file("single")).what(), "only one class ('pos')");
    writeText(dir.file("emptyclass/pos/a.txt"), "x");
    fs::create_directories(dir.path() / "emptyclass/neg/sub");
    EXPECT_CONTAINS(loadError(dir.file("emptyclass")).what(), "class folder 'neg' has no files");
    writeText(dir.file("badfile/pos/a.txt"), "x");
    writeText(dir.file("badfile/neg/b.txt"), "");
    const auto e = loadError(dir.file("badfile"));
    EXPECT_EQ(e.file(), dir.file("badfile/neg/b.txt"));
    EXPECT_CONTAINS(e.what(), "b.txt: file is empty");
    writeText(dir.file("file.txt"), "x");
    EXPECT_CONTAINS(loadError(dir.file("file.txt"), wb::CorpusFormat::Folder).what(), "expected a folder");
}

TEST(CorpusFolder, SymlinkLoopIsNotFollowed) {
    TempDir dir;
    writeText(dir.file("c/pos/a.txt"), "good");
    writeText(dir.file("c/neg/b.txt"), "bad");
    fs::create_directory_symlink("..", dir.path() / "c/pos/loop");
    fs::create_directory_symlink(dir.path() / "c", dir.path() / "c/self");
    const auto c = wb::loadCorpus(dir.file("c"));
    EXPECT_EQ(c.documents.size(), 2u);
    EXPECT_EQ(c.classes, (std::vector<std::string>{"neg", "pos"}));
}

TEST(CorpusStats, CountsCharactersWordsAndClasses) {
    wb::Corpus c;
    c.documents = {{"春風 春", "pos", "", ""}, {"Hi, hi!", "neg", "", ""}, {"ab", "pos", "", ""}};
    c.classes = {"neg", "pos"};
    const auto s = wb::computeStats(c);
    EXPECT_EQ(s.documents, 3);
    EXPECT_EQ(s.characters, 4 + 7 + 2);
    EXPECT_EQ(s.distinctCharacters, 10);  // 春 風 ' ' H i , h ! a b
    EXPECT_EQ(s.words, 3 + 4 + 1);        // 春 風 春 | hi , hi ! | ab
    EXPECT_EQ(s.distinctWords, 6);
    EXPECT_EQ(s.minDocumentChars, 2);
    EXPECT_EQ(s.maxDocumentChars, 7);
    EXPECT_DOUBLE_EQ(s.meanDocumentChars, 13.0 / 3);
    EXPECT_EQ(s.classCounts, (std::map<std::string, std::int64_t>{{"neg", 1}, {"pos", 2}}));
    EXPECT_TRUE(wb::computeStats(wb::Corpus{}).classCounts.empty());
}

TEST(CorpusPreview, CutsAtCodePoints) {
    wb::Corpus c;
    c.documents = {{"床前明月光", "", "", ""}, {"abc", "", "", ""}, {"xyz", "", "", ""}};
    const auto p = wb::previewDocuments(c, 2, 3);
    ASSERT_EQ(p.size(), 2u);
    EXPECT_EQ(p[0].text, "床前明…");
    EXPECT_EQ(p[1].text, "abc");
    EXPECT_EQ(wb::previewDocuments(c, 10, 100).size(), 3u);
}

// The full Tang corpus is ~57,000 poems: a synthetic one of the same size loads whole and counts right. How
// fast it loads is a benchmark's business, not a test's (a loaded CI machine makes any bound flaky).
TEST(CorpusPerformance, FiftySevenThousandPoems) {
    TempDir dir;
    writeText(dir.file("tang.json"), wbtest::quatrainJson(57000));
    const auto c = wb::loadCorpus(dir.file("tang.json"));
    const auto stats = wb::computeStats(c);
    EXPECT_EQ(c.documents.size(), 57000u);
    EXPECT_EQ(stats.characters, 57000 * 33);
}

}  // namespace
