// Token stores (issue #30): a corpus file tokenized into the cache holds exactly the ids the in-memory path
// gives (plain text in parts on two threads, CRLF, a byte-order mark, characters past the flat table, words,
// labelled rows); it is reused while the source is unchanged and made again when it changes; a tokenization
// cancelled or killed halfway leaves no store; bad bytes far into a file are refused with their line.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "support/TestSupport.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/TokenStore.h"

namespace fs = std::filesystem;
using namespace wb;

namespace {

std::vector<std::int64_t> allIds(const TokenStore& s) {
    std::vector<std::int64_t> ids(static_cast<std::size_t>(s.tokenCount()));
    s.copy(0, s.tokenCount(), ids.data());
    return ids;
}

std::vector<std::int64_t> documentStarts(const TokenStore& s) {
    std::vector<std::int64_t> starts;
    for (std::int64_t d = 0; d <= s.documentCount(); ++d)
        starts.push_back(d < s.documentCount() ? s.documentBegin(d) : s.documentEnd(d - 1));
    return starts;
}

void expectSameStore(const TokenStore& a, const TokenStore& b) {
    EXPECT_TRUE(a.vocabulary() == b.vocabulary());
    ASSERT_EQ(a.documentCount(), b.documentCount());
    ASSERT_EQ(a.tokenCount(), b.tokenCount());
    EXPECT_EQ(documentStarts(a), documentStarts(b));
    EXPECT_EQ(allIds(a), allIds(b));
    for (std::int64_t d = 0; d < a.documentCount(); ++d) ASSERT_EQ(a.label(d), b.label(d)) << d;
    EXPECT_EQ(a.classes(), b.classes());
}

DataConfig data(TokenLevel tokens, std::int64_t vocabSize = 0) {
    auto d = defaultConfig(Task::LanguageModel).data;
    d.format = CorpusFormat::Auto;  // the default experiment's corpus is a poems JSON
    d.tokens = tokens;
    d.vocabSize = vocabSize;
    d.minCount = 1;
    return d;
}

std::vector<std::string> filesIn(const fs::path& dir) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace

TEST(TokenStore, TextInPartsHoldsTheIdsOfTheInMemoryPath) {
    wbtest::TempDir dir;
    const auto path = dir.file("mixed.txt");
    wbtest::writeText(path,
                      wbtest::mixedScriptText(6 << 20));  // over 4 MiB: tokenized in parts on every core
    const auto cache = tokenStoreDir(dir.file("cache"));
    for (const auto& settings :
         {data(TokenLevel::Char), data(TokenLevel::Char, 12), data(TokenLevel::Word)}) {
        const auto store = TokenStore::forCorpusFile(path, settings, cache);
        EXPECT_FALSE(store->info().reused);
        EXPECT_EQ(store->info().source, fs::absolute(path).lexically_normal().string());
        EXPECT_EQ(store->info().checksum.rfind("fnv1a64w:", 0), 0u);
        EXPECT_EQ(store->residentBytes(), 0u) << "a store on disk is read from it, not held";
        const auto memory = TokenStore::fromCorpus(loadCorpus(path), settings);
        expectSameStore(*store, *memory);
        EXPECT_TRUE(store->vocabulary() == Vocabulary::build(
                                               [&] {
                                                   std::vector<std::string> texts;
                                                   for (const auto& d : loadCorpus(path).documents)
                                                       texts.push_back(d.text);
                                                   return texts;
                                               }(),
                                               settings.tokens,
                                               settings.vocabSize > 0
                                                   ? static_cast<std::size_t>(settings.vocabSize)
                                                   : (settings.tokens == TokenLevel::Word ? 15000 : 0),
                                               1));
    }
    // Three settings, three stores side by side; no partial file left.
    auto names = filesIn(cache);
    EXPECT_EQ(
        std::count_if(names.begin(), names.end(),
                      [](const std::string& n) { return n.size() > 5 && n.substr(n.size() - 5) == ".json"; }),
        3);
    for (const auto& n : names) EXPECT_EQ(n.find(".partial-"), std::string::npos) << n;
}

TEST(TokenStore, LabelledRowsKeepTheirClasses) {
    wbtest::TempDir dir;
    const auto path = dir.file("reviews.tsv");
    wbtest::writeText(path, wbtest::separableTsv(300));
    auto settings = data(TokenLevel::Word);
    settings.format = CorpusFormat::Auto;
    const auto store = TokenStore::forCorpusFile(path, settings, tokenStoreDir(dir.file("cache")));
    EXPECT_EQ(store->format(), CorpusFormat::Tsv);
    ASSERT_EQ(store->classes().size(), 2u);
    expectSameStore(*store, *TokenStore::fromCorpus(loadCorpus(path), settings));
    const auto reopened = TokenStore::forCorpusFile(path, settings, tokenStoreDir(dir.file("cache")));
    EXPECT_TRUE(reopened->info().reused);
    expectSameStore(*store, *reopened);
}

TEST(TokenStore, ReusedWhileTheSourceIsUnchangedMadeAgainWhenItChanges) {
    wbtest::TempDir dir;
    const auto path = dir.file("corpus.txt");
    wbtest::writeText(path, wbtest::patternText(200));
    const auto settings = data(TokenLevel::Char);
    const auto first = TokenStore::forCorpusFile(path, settings, tokenStoreDir(dir.file("cache")));
    const auto second = TokenStore::forCorpusFile(path, settings, tokenStoreDir(dir.file("cache")));
    EXPECT_FALSE(first->info().reused);
    EXPECT_TRUE(second->info().reused);
    expectSameStore(*first, *second);
    wbtest::writeText(path, wbtest::patternText(200) + "\n\nzzz new words\n");
    const auto third = TokenStore::forCorpusFile(path, settings, tokenStoreDir(dir.file("cache")));
    EXPECT_FALSE(third->info().reused);
    EXPECT_EQ(third->documentCount(), first->documentCount() + 1);
    EXPECT_TRUE(third->vocabulary().contains("z"));
    expectSameStore(*third, *TokenStore::fromCorpus(loadCorpus(path), settings));
    // The first store's mapping still reads what it read: the new files replaced the old ones by rename.
    EXPECT_EQ(allIds(*first), allIds(*second));
    // A damaged store (its ids cut short) is made again, not read. (`third` maps the file cut here: it is not
    // read again.)
    for (const auto& n : filesIn(tokenStoreDir(dir.file("cache"))))
        if (n.size() > 4 && n.substr(n.size() - 4) == ".ids")
            fs::resize_file(tokenStoreDir(dir.file("cache")) + "/" + n, 10);
    const auto fourth = TokenStore::forCorpusFile(path, settings, tokenStoreDir(dir.file("cache")));
    EXPECT_FALSE(fourth->info().reused);
    expectSameStore(*fourth, *TokenStore::fromCorpus(loadCorpus(path), settings));
}

TEST(TokenStore, ADescriptionWithNumbersOutOfRangeIsMadeAgain) {
    wbtest::TempDir dir;
    const auto path = dir.file("corpus.txt");
    wbtest::writeText(path, wbtest::patternText(200));
    const auto settings = data(TokenLevel::Char);
    const auto cache = tokenStoreDir(dir.file("cache"));
    const auto first = TokenStore::forCorpusFile(path, settings, cache);
    std::string description;
    for (const auto& n : filesIn(cache))
        if (n.size() > 5 && n.substr(n.size() - 5) == ".json") description = cache + "/" + n;
    ASSERT_FALSE(description.empty());
    const std::string text = wbtest::readText(description);
    // A whole number too large for any integer (undefined behaviour when read with get<int>()), one that
    // wraps to a valid width when narrowed to int, and a negative count.
    for (const auto& [field, bad] :
         {std::pair{"\"id_bytes\": ", "1e300"}, std::pair{"\"id_bytes\": ", "4294967298"},
          std::pair{"\"tokens\": ", "-5"}, std::pair{"\"version\": ", "1.5"}}) {
        const auto at = text.find(field);
        ASSERT_NE(at, std::string::npos) << field;
        const auto end = text.find_first_of(",\n}", at + std::string(field).size());
        wbtest::writeText(description, text.substr(0, at) + field + bad + text.substr(end));
        const auto again = TokenStore::forCorpusFile(path, settings, cache);
        EXPECT_FALSE(again->info().reused) << field << bad;
        expectSameStore(*first, *again);
    }
}

TEST(TokenStore, ACancelledTokenizationLeavesNoStore) {
    wbtest::TempDir dir;
    const auto path = dir.file("big.txt");
    wbtest::writeText(path, wbtest::mixedScriptText(12 << 20));
    const auto cache = tokenStoreDir(dir.file("cache"));
    int calls = 0;
    EXPECT_THROW(TokenStore::forCorpusFile(path, data(TokenLevel::Char), cache,
                                           [&](std::uint64_t done, std::uint64_t total) {
                                               EXPECT_LE(done, total);
                                               return ++calls < 2;
                                           }),
                 Cancelled);
    EXPECT_EQ(filesIn(cache), std::vector<std::string>{});
    // Progress reaches the whole when it is let run.
    std::uint64_t last = 0, whole = 0;
    const auto store = TokenStore::forCorpusFile(path, data(TokenLevel::Char), cache,
                                                 [&](std::uint64_t done, std::uint64_t total) {
                                                     EXPECT_GE(done, last);
                                                     last = done, whole = total;
                                                     return true;
                                                 });
    EXPECT_EQ(whole, 2 * fs::file_size(path));
    EXPECT_GT(store->tokenCount(), 0);
}

TEST(TokenStore, AKilledTokenizationLeavesNoStoreAndTheNextCleansUp) {
    wbtest::TempDir dir;
    const auto path = dir.file("big.txt");
    wbtest::writeText(path, wbtest::mixedScriptText(12 << 20));
    const auto cache = tokenStoreDir(dir.file("cache"));
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        // Killed outright while it writes the ids (pass two): no destructor, no clean-up runs.
        TokenStore::forCorpusFile(path, data(TokenLevel::Char), cache,
                                  [](std::uint64_t done, std::uint64_t total) {
                                      if (done > total / 2) kill(getpid(), SIGKILL);
                                      return true;
                                  });
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
    const auto left = filesIn(cache);
    ASSERT_FALSE(left.empty()) << "the child was killed before it wrote anything";
    for (const auto& n : left)
        EXPECT_NE(n.find(".partial-"), std::string::npos) << "only partial files: " << n;
    const auto store = TokenStore::forCorpusFile(path, data(TokenLevel::Char), cache);
    EXPECT_FALSE(store->info().reused);
    for (const auto& n : filesIn(cache)) EXPECT_EQ(n.find(".partial-"), std::string::npos) << n;
}

TEST(TokenStore, BadBytesFarIntoAFileAreRefusedWithTheirLine) {
    wbtest::TempDir dir;
    std::string text = wbtest::patternText(400000);  // ~10 MB: the bad byte is blocks and a part away
    const auto line =
        std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(text.size() - 100), '\n') + 1;
    auto bad = text;
    bad[text.size() - 100] = '\0';
    wbtest::writeText(dir.file("nul.txt"), bad);
    try {
        TokenStore::forCorpusFile(dir.file("nul.txt"), data(TokenLevel::Char),
                                  tokenStoreDir(dir.file("cache")));
        ADD_FAILURE() << "expected an InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), line) << e.what();
        EXPECT_NE(std::string(e.what()).find("NUL byte at offset " + std::to_string(text.size() - 100)),
                  std::string::npos)
            << e.what();
    }
    bad = text;
    bad[text.size() - 100] = '\xff';
    wbtest::writeText(dir.file("latin1.txt"), bad);
    try {
        TokenStore::forCorpusFile(dir.file("latin1.txt"), data(TokenLevel::Char),
                                  tokenStoreDir(dir.file("cache")));
        ADD_FAILURE() << "expected an InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), line) << e.what();
        EXPECT_EQ(e.byteOffset(), static_cast<std::int64_t>(text.size() - 100)) << e.what();
        EXPECT_NE(std::string(e.what()).find("invalid UTF-8"), std::string::npos) << e.what();
    }
    wbtest::writeText(dir.file("blank.txt"), "  \n\n\t\n");
    EXPECT_THROW(TokenStore::forCorpusFile(dir.file("blank.txt"), data(TokenLevel::Char),
                                           tokenStoreDir(dir.file("cache"))),
                 InputError);
    EXPECT_EQ(filesIn(tokenStoreDir(dir.file("cache"))), std::vector<std::string>{});
}

// A cache that cannot be written (here a file stands where its folder should be: root writes anywhere else)
// costs only the reuse: the corpus is tokenized into memory and trains.
TEST(TokenStore, AnUnwritableCacheTokenizesIntoMemory) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "corpus.txt", wbtest::patternText(300));
    wbtest::writeText(dir.path() / "not-a-folder", "x");
    const auto store = TokenStore::forCorpusFile(dir.file("corpus.txt"), data(TokenLevel::Char),
                                                 dir.file("not-a-folder") + "/token-stores");
    EXPECT_TRUE(store->info().path.empty());
    EXPECT_GT(store->residentBytes(), 0u);
    expectSameStore(*store,
                    *TokenStore::fromCorpus(loadCorpus(dir.file("corpus.txt")), data(TokenLevel::Char)));
}
