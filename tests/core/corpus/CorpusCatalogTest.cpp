// Tests for the prepared-corpus catalog: where the cache folder is, what counts as prepared, and how a name
// on the command line becomes a corpus path (or a message that says how to prepare it).
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "support/TestSupport.h"
#include "workbench/domain/CorpusCatalog.h"
#include "workbench/domain/Errors.h"

namespace fs = std::filesystem;

namespace {

// Sets (or unsets, with nullopt) an environment variable for one test and restores it afterwards.
class ScopedEnv {
public:
    ScopedEnv(const char* name, std::optional<std::string> value) : m_name(name) {
        if (const char* old = std::getenv(name)) m_old = old;
        if (value)
            setenv(name, value->c_str(), 1);
        else
            unsetenv(name);
    }
    ~ScopedEnv() {
        if (m_old)
            setenv(m_name, m_old->c_str(), 1);
        else
            unsetenv(m_name);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* m_name;
    std::optional<std::string> m_old;
};

std::string manifest(const std::string& name, const std::string& format, const std::string& data,
                     int documents = 3) {
    return R"({"name": ")" + name + R"(", "description": "test corpus", "format": ")" + format +
           R"(", "data": ")" + data + R"(", "source_package": "npm:chinese-poetry", "source_version": "2.0.1",
           "license": "MIT", "documents": )" +
           std::to_string(documents) + R"(, "characters": 96, "checksum": "sha256:00", "simplified": true})";
}

// A corpus folder as datasets/prepare.py leaves it: data first, manifest last.
void writeCorpus(const fs::path& root, const std::string& name, const std::string& format = "poems") {
    const std::string data = name + ".json";
    wbtest::writeText(root / name / data, wbtest::quatrainJson(3));
    wbtest::writeText(root / name / "manifest.json", manifest(name, format, data));
}

class CorpusCatalogTest : public ::testing::Test {
protected:
    wbtest::TempDir cache;
    ScopedEnv data{"LSTM_WORKBENCH_DATA", cache.str()};
};

TEST(CorpusCatalogCacheDir, EnvironmentVariableTakesPrecedenceOverXdg) {
    ScopedEnv data("LSTM_WORKBENCH_DATA", std::string("/tmp/wb-data"));
    ScopedEnv xdg("XDG_CACHE_HOME", std::string("/tmp/xdg"));
    EXPECT_EQ(wb::corporaCacheDir(), "/tmp/wb-data");
}

TEST(CorpusCatalogCacheDir, XdgCacheHomeWhenNoDataVariable) {
    ScopedEnv data("LSTM_WORKBENCH_DATA", std::nullopt);
    ScopedEnv xdg("XDG_CACHE_HOME", std::string("/tmp/xdg"));
    EXPECT_EQ(fs::path(wb::corporaCacheDir()), fs::path("/tmp/xdg/lstm-workbench/corpora"));
}

TEST(CorpusCatalogCacheDir, HomeCacheWhenNeitherIsSet) {
    ScopedEnv data("LSTM_WORKBENCH_DATA", std::string(""));  // empty counts as unset
    ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
    ScopedEnv home("HOME", std::string("/home/someone"));
    EXPECT_EQ(fs::path(wb::corporaCacheDir()), fs::path("/home/someone/.cache/lstm-workbench/corpora"));
}

TEST(CorpusCatalogCacheDir, RelativeXdgCacheHomeIsIgnored) {
    ScopedEnv data("LSTM_WORKBENCH_DATA", std::nullopt);
    ScopedEnv xdg("XDG_CACHE_HOME", std::string("relative/cache"));
    ScopedEnv home("HOME", std::string("/home/someone"));
    EXPECT_EQ(fs::path(wb::corporaCacheDir()), fs::path("/home/someone/.cache/lstm-workbench/corpora"));
}

TEST_F(CorpusCatalogTest, ListsPreparedCorporaSortedByName) {
    writeCorpus(cache.path(), "tang-quatrains-7");
    writeCorpus(cache.path(), "fortunes-text", "text");
    const auto entries = wb::listPreparedCorpora();
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[0].name, "fortunes-text");
    EXPECT_EQ(entries[0].format, wb::CorpusFormat::Text);
    EXPECT_EQ(entries[1].name, "tang-quatrains-7");
    EXPECT_EQ(entries[1].format, wb::CorpusFormat::Poems);
    EXPECT_EQ(entries[1].sourcePackage, "npm:chinese-poetry");
    EXPECT_EQ(entries[1].sourceVersion, "2.0.1");
    EXPECT_EQ(entries[1].license, "MIT");
    EXPECT_EQ(entries[1].documents, 3);
    EXPECT_EQ(entries[1].checksum, "sha256:00");
    EXPECT_EQ(fs::path(entries[1].dir), cache.path() / "tang-quatrains-7");
    EXPECT_EQ(fs::path(entries[1].dataPath), cache.path() / "tang-quatrains-7" / "tang-quatrains-7.json");
    EXPECT_NE(entries[1].manifestJson.find("\"simplified\": true"), std::string::npos);
}

TEST_F(CorpusCatalogTest, EmptyOrMissingCacheListsNothing) {
    EXPECT_TRUE(wb::listPreparedCorpora().empty());
    ScopedEnv missing("LSTM_WORKBENCH_DATA", (cache.path() / "does-not-exist").string());
    EXPECT_TRUE(wb::listPreparedCorpora().empty());
    EXPECT_FALSE(wb::findPreparedCorpus("tang-quatrains-7").has_value());
}

TEST_F(CorpusCatalogTest, FolderWithoutManifestIsNotPrepared) {
    // What a killed preparation could leave: data but no manifest, and the script's hidden temp folders.
    wbtest::writeText(cache.path() / "tang-quatrains-5" / "tang-quatrains-5.json", wbtest::quatrainJson(2));
    writeCorpus(cache.path() / ".tang-poems.tmp-abc", "tang-poems");
    wbtest::writeText(cache.path() / ".downloads" / "chinese-poetry-2.0.1.tgz", "x");
    EXPECT_TRUE(wb::listPreparedCorpora().empty());
    EXPECT_FALSE(wb::findPreparedCorpus("tang-quatrains-5").has_value());
    EXPECT_FALSE(wb::findPreparedCorpus(".tang-poems.tmp-abc").has_value());
}

TEST_F(CorpusCatalogTest, FindsByName) {
    writeCorpus(cache.path(), "tang-quatrains-7");
    const auto entry = wb::findPreparedCorpus("tang-quatrains-7");
    ASSERT_TRUE(entry.has_value());
    EXPECT_EQ(entry->name, "tang-quatrains-7");
    EXPECT_EQ(entry->description, "test corpus");
    EXPECT_FALSE(wb::findPreparedCorpus("tang-quatrains-5").has_value());
}

TEST_F(CorpusCatalogTest, NamesThatLeaveTheCacheAreNotCorpora) {
    writeCorpus(cache.path(), "tang-quatrains-7");
    EXPECT_FALSE(wb::findPreparedCorpus("").has_value());
    EXPECT_FALSE(wb::findPreparedCorpus("..").has_value());
    EXPECT_FALSE(wb::findPreparedCorpus("../" + cache.path().filename().string()).has_value());
    EXPECT_FALSE(wb::findPreparedCorpus("x/../tang-quatrains-7").has_value());
}

TEST_F(CorpusCatalogTest, DamagedManifestIsReportedByFindAndSkippedByList) {
    writeCorpus(cache.path(), "tang-quatrains-7");
    wbtest::writeText(cache.path() / "fortunes" / "manifest.json", "{\"name\": \"fortunes\", ");
    EXPECT_EQ(wb::listPreparedCorpora().size(), 1u);
    try {
        wb::findPreparedCorpus("fortunes");
        FAIL() << "expected InputError";
    } catch (const wb::InputError& e) {
        EXPECT_NE(e.file().find("manifest.json"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos);
    }
}

TEST_F(CorpusCatalogTest, DataOutsideTheCorpusFolderIsRefused) {
    wbtest::writeText(cache.path() / "evil" / "manifest.json", manifest("evil", "text", "../../etc/passwd"));
    wbtest::writeText(cache.path() / "abs" / "manifest.json", manifest("abs", "text", "/etc/passwd"));
    EXPECT_THROW(wb::findPreparedCorpus("evil"), wb::InputError);
    EXPECT_THROW(wb::findPreparedCorpus("abs"), wb::InputError);
    EXPECT_TRUE(wb::listPreparedCorpora().empty());
}

TEST_F(CorpusCatalogTest, UnknownFormatIsReported) {
    wbtest::writeText(cache.path() / "odd" / "odd.txt", "text\n");
    wbtest::writeText(cache.path() / "odd" / "manifest.json", manifest("odd", "parquet", "odd.txt"));
    EXPECT_THROW(wb::findPreparedCorpus("odd"), wb::InputError);
}

TEST_F(CorpusCatalogTest, ResolveReturnsAnExistingPathAsIs) {
    const std::string file = cache.file("my.txt");
    wbtest::writeText(file, "hello\n");
    EXPECT_EQ(wb::resolveCorpusPath(file), file);
    EXPECT_EQ(wb::resolveCorpusPath(cache.str()), cache.str());
}

TEST_F(CorpusCatalogTest, ResolveTurnsANameIntoItsDataPath) {
    writeCorpus(cache.path(), "tang-quatrains-7");
    EXPECT_EQ(fs::path(wb::resolveCorpusPath("tang-quatrains-7")),
              cache.path() / "tang-quatrains-7" / "tang-quatrains-7.json");
}

TEST_F(CorpusCatalogTest, ResolveUnknownNameSaysHowToPrepareIt) {
    try {
        wb::resolveCorpusPath("x");
        FAIL() << "expected InputError";
    } catch (const wb::InputError& e) {
        EXPECT_STREQ(
            e.what(),
            "no corpus file or prepared corpus named 'x' — prepare it with: python3 datasets/prepare.py x");
    }
}

TEST_F(CorpusCatalogTest, ResolveUnpreparedCorpusSaysHowToPrepareIt) {
    wbtest::writeText(cache.path() / "tang-quatrains-5" / "tang-quatrains-5.json", wbtest::quatrainJson(2));
    try {
        wb::resolveCorpusPath("tang-quatrains-5");
        FAIL() << "expected InputError";
    } catch (const wb::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("python3 datasets/prepare.py tang-quatrains-5"),
                  std::string::npos);
    }
}

TEST_F(CorpusCatalogTest, ResolvePreparedCorpusWithoutDataIsAnError) {
    wbtest::writeText(cache.path() / "fortunes" / "manifest.json",
                      manifest("fortunes", "folder", "fortunes"));
    try {
        wb::resolveCorpusPath("fortunes");
        FAIL() << "expected InputError";
    } catch (const wb::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--force fortunes"), std::string::npos);
    }
}

TEST_F(CorpusCatalogTest, ResolveMissingPathIsAnError) {
    EXPECT_THROW(wb::resolveCorpusPath(cache.file("nope/corpus.txt")), wb::InputError);
    EXPECT_THROW(wb::resolveCorpusPath(""), wb::InputError);
}

TEST_F(CorpusCatalogTest, ErrorMessagesAreOneLine) {
    try {
        wb::resolveCorpusPath("tang\nquatrains");
        FAIL() << "expected InputError";
    } catch (const wb::InputError& e) {
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
}

}  // namespace
