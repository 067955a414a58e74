// Shared test helpers: temporary folders that clean up after themselves, and synthetic corpora the tests
// write themselves (no network, no committed data).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace wbtest {

// A fresh empty folder under the system temp dir, removed (recursively) on destruction.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return m_path; }
    std::string str() const { return m_path.string(); }
    std::string file(const std::string& name) const { return (m_path / name).string(); }

private:
    std::filesystem::path m_path;
    int m_owner;  // the process that made it: a forked child (e2e/CliRunner.cpp) exits without removing it
};

void writeText(const std::filesystem::path& path, const std::string& bytes);
std::string readText(const std::filesystem::path& path);
// What `sh -c command` prints on its standard output ("" when it cannot start).
std::string commandOutput(const std::string& command);
// A file of this source tree, by its path from the root ("tests/fixtures/run-formats"): SourceTree.cpp is
// the one test source compiled with the tree's absolute path, so that the others compile alike in every
// clone and the compiler cache shares them.
std::string sourcePath(const std::string& relative);

// A plain-text corpus with a strong repeating pattern ("abcabc…" lines): an LM can learn it quickly.
std::string patternText(std::size_t lines, std::size_t lineLength = 24);
// About `bytes` of paragraphs of made-up words over a few scripts (a byte-order mark first, some lines ending
// CRLF, code points past U+FFFF, blank lines with spaces between paragraphs), lines of 1 to maxWords words:
// plain text that exercises every corner of a text reader.
std::string mixedScriptText(std::size_t bytes, unsigned seed = 3, int maxWords = 12);
// A TSV of two classes separable by vocabulary ("good" words vs "bad" words), n rows.
std::string separableTsv(std::size_t rows, unsigned seed = 1);
// chinese-poetry shaped JSON with n seven-character quatrains over a small set of characters.
std::string quatrainJson(std::size_t poems, unsigned seed = 1);
// tones.json and rhymes.json for quatrainJson()'s characters, as datasets/prepare.py writes them beside a
// Tang corpus: four of the sixteen characters oblique (so most generated lines break a rule somewhere).
void writeVerseTables(const std::filesystem::path& folder);

// Lists all entries under a folder (relative paths, sorted); for "nothing left behind" assertions.
std::vector<std::string> listTree(const std::filesystem::path& root);

// The message of the wb::InputError f throws, or "(no error)" when it throws none.
std::string inputErrorOf(const std::function<void()>& f);

}  // namespace wbtest
