// Corpora: what a user drops on the window. Loaders for plain text, chinese-poetry JSON, labelled TSV/CSV
// and one folder per class, with format detection and statistics. All text is validated UTF-8.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace wb {

enum class CorpusFormat { Auto, Text, Poems, Tsv, Csv, Folder };
std::string toString(CorpusFormat format);
CorpusFormat corpusFormatFromString(const std::string& s);  // throws InputError

struct Document {
    std::string text;    // UTF-8; for poems the paragraphs joined with '\n'
    std::string label;   // class name for labelled corpora, empty otherwise
    std::string title;   // poems: title; folder: file name; others empty
    std::string author;  // poems only
};

struct Corpus {
    std::string source;  // path as given
    CorpusFormat format = CorpusFormat::Text;
    std::vector<Document> documents;
    // Sorted class names (labelled corpora); empty for unlabelled text.
    std::vector<std::string> classes;

    bool labelled() const { return !classes.empty(); }
    // Index of a label in classes, -1 if absent.
    int classIndex(const std::string& label) const;
};

struct CorpusStats {
    std::int64_t documents = 0;
    std::int64_t characters = 0;  // code points over all documents
    std::int64_t distinctCharacters = 0;
    std::int64_t words = 0;  // tokenizeWords() tokens
    std::int64_t distinctWords = 0;
    std::int64_t minDocumentChars = 0, maxDocumentChars = 0;
    double meanDocumentChars = 0;
    std::map<std::string, std::int64_t> classCounts;  // empty for unlabelled corpora
};

// Looks at a path and decides: directory -> Folder; .json -> Poems; .tsv -> Tsv; .csv -> Csv; otherwise
// Text. Throws InputError when the path does not exist.
CorpusFormat detectCorpusFormat(const std::string& path);

// Loads a corpus. Throws InputError (file, line, what was expected) on bad input: missing path, empty
// corpus, binary data, invalid UTF-8, JSON of the wrong shape, rows with a missing column, a labelled
// corpus with fewer than two classes, a folder without class sub-folders, a dangling symbolic link or a
// special file (FIFO, device) among a class's files. A corpus whose estimated in-memory size exceeds the
// available memory (MemAvailable, or the WORKBENCH_MEMORY_LIMIT_BYTES environment variable when set) is
// refused before anything is read: "corpus.txt: needs about 38.2 GiB to load, 21.5 GiB available".
Corpus loadCorpus(const std::string& path, CorpusFormat format = CorpusFormat::Auto);
// The checks loadCorpus makes of a path before it reads a byte (missing, a dangling symbolic link, a folder
// where a file is expected or the other way round, a FIFO or device): throws InputError as it does.
void checkCorpusPath(const std::string& path, CorpusFormat format);

CorpusStats computeStats(const Corpus& corpus);

// Up to n documents for a preview; each text cut to maxChars code points ("…" appended when cut).
std::vector<Document> previewDocuments(const Corpus& corpus, std::size_t n, std::size_t maxChars);

}  // namespace wb
