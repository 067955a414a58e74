// Corpus loading for every format of Corpus.h, format detection, statistics and previews. Each loader
// explains a bad file by name, line and what it expected, because the user will open it in an editor.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "corpus/CorpusFile.h"
#include "corpus/DelimitedText.h"
#include "corpus/PoemsJson.h"
#include "corpus/StatsAccumulator.h"
#include "io/JsonDocument.h"
#include "text/Blanks.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Format.h"
#include "workbench/domain/MemoryBudget.h"
#include "workbench/domain/Utf8.h"
#include "workbench/domain/Vocabulary.h"

namespace fs = std::filesystem;

namespace wb {
namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string_view trim(std::string_view s) {
    s = detail::trimRight(s);
    while (!s.empty() && detail::isBlank(s.front())) s.remove_prefix(1);
    return s;
}

// Rows from which a label per row, or nearly, says the columns are the other way round.
constexpr std::size_t kRowsToJudgeLabels = 20;

// Classes sorted; fewer than two cannot train a classifier, so the corpus is refused up front. So is one
// whose labels are nearly all different (more classes than half the rows): no classifier learns from one
// example per class, and it is what a file with the text first and the label second looks like.
void collectClasses(Corpus& corpus, const std::string& source) {
    std::set<std::string> classes;
    for (const auto& d : corpus.documents) classes.insert(d.label);
    if (classes.empty()) throw InputError(source, 0, "no labelled rows (expected rows of label and text)");
    if (classes.size() < 2)
        throw InputError(source, 0,
                         "only one class ('" + *classes.begin() + "'): a classifier needs at least two");
    const std::size_t rows = corpus.documents.size();
    if (rows >= kRowsToJudgeLabels && classes.size() * 2 > rows) {
        std::string example = corpus.documents.front().label;
        if (example.size() > 40) example = example.substr(0, 40) + "...";
        throw InputError(source, 0,
                         std::to_string(classes.size()) + " classes among " + std::to_string(rows) +
                             " rows (the first: '" + example +
                             "'): are the columns the other way round? Rows are label, then text");
    }
    corpus.classes.assign(classes.begin(), classes.end());
}

// Paragraphs separated by one or more blank (or whitespace-only) lines.
void loadText(Corpus& corpus, const std::string& path) {
    const std::string text = detail::readCorpusText(path);
    const std::string_view all(text);
    std::size_t pos = 0;
    std::size_t paraStart = std::string::npos, paraEnd = 0;
    auto finish = [&] {
        if (paraStart == std::string::npos) return;
        Document d;
        d.text = std::string(detail::trimRight(all.substr(paraStart, paraEnd - paraStart)));
        corpus.documents.push_back(std::move(d));
        paraStart = std::string::npos;
    };
    while (pos < all.size()) {
        std::size_t eol = all.find('\n', pos);
        if (eol == std::string_view::npos) eol = all.size();
        const std::string_view line = all.substr(pos, eol - pos);
        if (trim(line).empty()) {
            finish();
        } else {
            if (paraStart == std::string::npos) paraStart = pos;
            paraEnd = eol;
        }
        pos = eol + 1;
    }
    finish();
    if (corpus.documents.empty()) throw InputError(path, 0, "no text (the file holds only whitespace)");
}

void loadPoems(Corpus& corpus, const std::string& path) {
    corpus.documents = detail::parsePoemsJson(detail::readCorpusText(path), path);
}

void loadDelimited(Corpus& corpus, const std::string& path, char delimiter) {
    const std::string text = detail::readCorpusText(path);
    auto rows = detail::parseDelimited(text, delimiter, path);
    if (rows.empty()) throw InputError(path, 0, "no rows (expected rows of label and text)");
    // A header names its columns "label" and "text" (any order, extra columns allowed).
    std::size_t labelCol = 0, textCol = 1, columns = 2;
    std::size_t first = 0;
    {
        const auto& header = rows[0].fields;
        std::size_t l = header.size(), t = header.size();
        for (std::size_t c = 0; c < header.size(); ++c) {
            const std::string name = lower(std::string(trim(header[c])));
            if (name == "label" && l == header.size()) l = c;
            if (name == "text" && t == header.size()) t = c;
        }
        if (l < header.size() && t < header.size()) {
            labelCol = l, textCol = t, columns = header.size(), first = 1;
        }
    }
    // Name the columns the way the file does, so the message matches what the user sees in the header.
    std::string expected = "expected " + std::to_string(columns) + " columns (label, text)";
    if (first == 1) {
        std::string names;
        for (const auto& h : rows[0].fields) names += (names.empty() ? "" : ", ") + std::string(trim(h));
        expected = "expected " + std::to_string(columns) + " columns (" + names + ")";
    }
    corpus.documents.reserve(rows.size() - first);
    for (std::size_t r = first; r < rows.size(); ++r) {
        auto& row = rows[r];
        if (row.fields.size() != columns)
            throw InputError(path, row.line, expected + ", found " + std::to_string(row.fields.size()));
        Document d;
        d.label = std::string(trim(row.fields[labelCol]));
        if (d.label.empty()) throw InputError(path, row.line, "empty label");
        const std::string_view t = trim(row.fields[textCol]);
        if (t.empty()) throw InputError(path, row.line, "empty text");
        d.text = std::string(t);
        corpus.documents.push_back(std::move(d));
    }
    if (corpus.documents.empty())
        throw InputError(path, 0, "no rows after the header (expected label and text)");
    collectClasses(corpus, path);
}

// A file name as a document title: file names are bytes, titles are shown as text, so a name that is not
// UTF-8 shows each non-ASCII byte as U+FFFD.
std::string displayName(const std::string& name) {
    if (isValidUtf8(name)) return name;
    std::string out;
    for (const char c : name) out += static_cast<unsigned char>(c) < 0x80 ? std::string(1, c) : "\uFFFD";
    return out;
}

bool hidden(const fs::path& p) {
    const std::string name = p.filename().string();
    return !name.empty() && name[0] == '.';
}

void loadFolder(Corpus& corpus, const std::string& path) {
    std::error_code ec;
    // symlink_status everywhere: a symlinked folder is never entered, so a link loop cannot trap us.
    std::vector<fs::path> classDirs;
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
        if (hidden(it->path())) continue;
        if (fs::is_directory(it->symlink_status(ec))) classDirs.push_back(it->path());
    }
    if (ec) throw InputError(path, 0, "cannot list the folder: " + ec.message());
    if (classDirs.empty())
        throw InputError(path, 0, "no class sub-folders (expected one folder per class, e.g. neg/ and pos/)");
    std::sort(classDirs.begin(), classDirs.end());
    if (classDirs.size() < 2)
        throw InputError(path, 0,
                         "only one class ('" + classDirs[0].filename().string() +
                             "'): a classifier needs at least two (one sub-folder per class)");
    for (const auto& dir : classDirs) {
        const std::string label = dir.filename().string();
        // Labels are text (vocab.json, the GUI, the CLI's output); a folder name is any bytes.
        if (!isValidUtf8(label))
            throw InputError(dir.string(), 0,
                             "the class folder's name is not valid UTF-8 (rename the folder)");
        std::vector<fs::path> files;
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
            if (hidden(it->path())) continue;
            std::error_code fec;
            const auto lst = it->symlink_status(fec);
            if (fec || fs::is_directory(lst)) continue;
            // A symlink to a file is read and one to a folder skipped (never followed: no loops); a file the
            // user meant as a document but that cannot be read is an error, not a silent omission.
            auto st = lst;
            if (fs::is_symlink(lst)) {
                st = fs::status(it->path(), fec);
                if (fs::is_directory(st)) continue;
                if (fec && fec != std::errc::no_such_file_or_directory)
                    throw InputError(it->path().string(), 0,
                                     "cannot follow the symbolic link: " + fec.message());
                if (!fs::exists(st))
                    throw InputError(it->path().string(), 0,
                                     "dangling symbolic link (its target does not exist)");
            }
            if (!fs::is_regular_file(st))
                throw InputError(it->path().string(), 0,
                                 "not a regular file (a FIFO, socket or device; expected a text file)");
            files.push_back(it->path());
        }
        if (ec) throw InputError(dir.string(), 0, "cannot list the folder: " + ec.message());
        if (files.empty()) throw InputError(path, 0, "class folder '" + label + "' has no files");
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            Document d;
            std::string text = detail::readCorpusText(f.string());
            const std::string_view t = trim(text);
            if (t.empty()) throw InputError(f.string(), 0, "no text (the file holds only whitespace)");
            d.text = t.size() == text.size() ? std::move(text) : std::string(t);
            d.label = label;
            d.title = displayName(f.filename().string());
            corpus.documents.push_back(std::move(d));
        }
    }
    collectClasses(corpus, path);
}

// The error for a path that cannot be reached: missing, a dangling symbolic link, or a link loop.
InputError missingPath(const std::string& path, const std::error_code& ec) {
    std::error_code lec;
    if (ec && ec != std::errc::no_such_file_or_directory)
        return InputError(path, 0, "cannot access: " + ec.message());
    if (fs::is_symlink(fs::symlink_status(path, lec)))
        return InputError(path, 0, "dangling symbolic link (its target does not exist)");
    return InputError(path, 0, "no such file or folder");
}

// ---- the memory guard: refuse a corpus that cannot fit before reading a byte of it ----

// Peak resident memory of loading and inspecting a corpus, per byte of file, measured with /usr/bin/time -v
// on loadCorpus + computeStats (docs/reliability.md): 3.3 for 100 MB of text in 600k paragraphs, 3.0 for a
// 100 MB single line, 3.2 for the 16 MB Tang poems JSON, 5.2 for a 97 MB TSV of 800k rows (the parsed rows
// sit next to the documents), 1.9 for the 12 MB spam-assassin folder. Rounded up a little.
double bytesPerFileByte(CorpusFormat format) {
    switch (format) {
        case CorpusFormat::Tsv:
        case CorpusFormat::Csv:
            return 5.5;
        case CorpusFormat::Folder:
            return 2.5;
        default:
            return 3.5;
    }
}
constexpr std::uint64_t kBytesPerFolderFile = 1024;  // a Document, its path and title

// File bytes and file count of a corpus, from sizes only (nothing is opened): the file itself, or the
// regular files of a folder's class sub-folders.
std::pair<std::uint64_t, std::uint64_t> corpusFileBytes(const std::string& path, CorpusFormat format,
                                                        const fs::file_status& st) {
    std::error_code ec;
    if (format != CorpusFormat::Folder) {
        if (!fs::is_regular_file(st)) return {0, 0};
        const auto size = fs::file_size(path, ec);
        return {ec ? 0 : size, 1};
    }
    std::uint64_t bytes = 0, files = 0;
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
        if (hidden(it->path()) || !fs::is_directory(it->symlink_status(ec))) continue;
        std::error_code dec;
        for (fs::directory_iterator f(it->path(), dec); !dec && f != end; f.increment(dec)) {
            std::error_code fec;
            if (hidden(f->path()) || !fs::is_regular_file(fs::status(f->path(), fec))) continue;
            const auto size = fs::file_size(f->path(), fec);
            if (!fec) bytes += size;
            ++files;
        }
    }
    return {bytes, files};
}

void refuseIfTooLarge(const std::string& path, CorpusFormat format, const fs::file_status& st) {
    const std::uint64_t available = availableMemoryBytes();
    if (available == 0) return;
    const auto [bytes, files] = corpusFileBytes(path, format, st);
    const double needed = static_cast<double>(bytes) * bytesPerFileByte(format) +
                          static_cast<double>(files) * static_cast<double>(kBytesPerFolderFile);
    if (needed > static_cast<double>(available))
        throw InputError(path, 0,
                         "needs about " + humanBytes(needed) + " to load, " +
                             humanBytes(static_cast<double>(available)) + " available (" +
                             humanBytes(static_cast<double>(bytes)) + " on disk)");
}

}  // namespace

std::string toString(CorpusFormat format) {
    switch (format) {
        case CorpusFormat::Auto:
            return "auto";
        case CorpusFormat::Text:
            return "text";
        case CorpusFormat::Poems:
            return "poems";
        case CorpusFormat::Tsv:
            return "tsv";
        case CorpusFormat::Csv:
            return "csv";
        case CorpusFormat::Folder:
            return "folder";
    }
    return "auto";
}

CorpusFormat corpusFormatFromString(const std::string& s) {
    for (auto f : {CorpusFormat::Auto, CorpusFormat::Text, CorpusFormat::Poems, CorpusFormat::Tsv,
                   CorpusFormat::Csv, CorpusFormat::Folder})
        if (s == toString(f)) return f;
    throw InputError("unknown corpus format '" + s + "' (expected auto, text, poems, tsv, csv or folder)");
}

int Corpus::classIndex(const std::string& label) const {
    const auto it = std::lower_bound(classes.begin(), classes.end(), label);
    if (it != classes.end() && *it == label) return static_cast<int>(it - classes.begin());
    // classes is documented as sorted, but a caller may have filled it by hand.
    const auto lin = std::find(classes.begin(), classes.end(), label);
    return lin == classes.end() ? -1 : static_cast<int>(lin - classes.begin());
}

CorpusFormat detectCorpusFormat(const std::string& path) {
    std::error_code ec;
    const auto st = fs::status(path, ec);
    if (ec || !fs::exists(st)) throw missingPath(path, ec);
    if (fs::is_directory(st)) return CorpusFormat::Folder;
    const std::string ext = lower(fs::path(path).extension().string());
    if (ext == ".json") return CorpusFormat::Poems;
    if (ext == ".tsv") return CorpusFormat::Tsv;
    if (ext == ".csv") return CorpusFormat::Csv;
    return CorpusFormat::Text;
}

void checkCorpusPath(const std::string& path, CorpusFormat format) {
    std::error_code ec;
    const auto st = fs::status(path, ec);
    if (ec || !fs::exists(st)) throw missingPath(path, ec);
    if (format == CorpusFormat::Folder && !fs::is_directory(st))
        throw InputError(path, 0, "expected a folder with one sub-folder per class, found a file");
    if (format != CorpusFormat::Folder && fs::is_directory(st))
        throw InputError(path, 0, "is a folder; expected a " + toString(format) + " file (or format folder)");
    if (format != CorpusFormat::Folder && !fs::is_regular_file(st))
        throw InputError(path, 0, "not a regular file");
}

Corpus loadCorpus(const std::string& path, CorpusFormat format) {
    Corpus corpus;
    corpus.source = path;
    if (format == CorpusFormat::Auto) format = detectCorpusFormat(path);
    corpus.format = format;
    checkCorpusPath(path, format);
    std::error_code ec;
    refuseIfTooLarge(path, format, fs::status(path, ec));
    switch (format) {
        case CorpusFormat::Text:
            loadText(corpus, path);
            break;
        case CorpusFormat::Poems:
            loadPoems(corpus, path);
            break;
        case CorpusFormat::Tsv:
            loadDelimited(corpus, path, '\t');
            break;
        case CorpusFormat::Csv:
            loadDelimited(corpus, path, ',');
            break;
        case CorpusFormat::Folder:
            loadFolder(corpus, path);
            break;
        case CorpusFormat::Auto:
            break;
    }
    return corpus;
}

CorpusStats computeStats(const Corpus& corpus) {
    StatsAccumulator stats;
    for (const auto& d : corpus.documents) {
        stats.add(d.text);
        if (corpus.labelled()) stats.countClass(d.label);
    }
    return stats.stats();
}

std::vector<Document> previewDocuments(const Corpus& corpus, std::size_t n, std::size_t maxChars) {
    std::vector<Document> out;
    const std::size_t count = std::min(n, corpus.documents.size());
    out.reserve(count);
    for (std::size_t k = 0; k < count; ++k) {
        Document d = corpus.documents[k];
        // Find the byte where code point maxChars starts; cut there.
        std::size_t cps = 0, i = 0;
        for (; i < d.text.size(); ++i) {
            if ((static_cast<unsigned char>(d.text[i]) & 0xC0) != 0x80) {
                if (cps == maxChars) break;
                ++cps;
            }
        }
        if (i < d.text.size()) {
            d.text.resize(i);
            d.text += "\u2026";
        }
        out.push_back(std::move(d));
    }
    return out;
}

}  // namespace wb
