// Corpus overviews (see CorpusOverview.h).
#include "workbench/domain/CorpusOverview.h"

#include <sys/stat.h>

#include <filesystem>

#include "corpus/DocumentParts.h"
#include "corpus/StatsAccumulator.h"
#include "workbench/domain/Errors.h"

namespace wb {

namespace {

std::uint64_t sourceBytes(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) {
        const auto size = std::filesystem::file_size(path, ec);
        return ec ? 0 : size;
    }
    std::uint64_t total = 0;
    for (std::filesystem::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec)) total += it->file_size(ec);
    return total;
}

// Plain text, one pass over its parts on every core: each part's statistics and first documents, merged.
CorpusOverview readTextParts(const std::string& path, std::size_t previewCount, std::size_t previewChars,
                             const TokenizeProgress& progress) {
    CorpusOverview o;
    o.path = path;
    o.format = CorpusFormat::Text;
    o.bytes = sourceBytes(path);
    const auto parts = textFileParts(path, threadsFor(o.bytes));
    std::vector<StatsAccumulator> stats(parts->count());
    std::vector<Corpus> firsts(parts->count());  // each part's first documents, for the preview
    // Enough of a document to cut it at previewChars characters (4 bytes each at most).
    const std::size_t previewBytes = 4 * previewChars + 4;
    PartRunner runner(progress, parts->totalBytes());
    try {
        runner.run(parts->count(), [&](std::size_t p) {
            bool opened = false;   // a document's first pieces came, not its last
            bool filling = false;  // this document is one of the preview's
            parts->visitPieces(
                p,
                [&](std::string_view piece, bool ends) {
                    stats[p].addPiece(piece, ends);
                    auto& docs = firsts[p].documents;
                    if (!opened) {
                        filling = docs.size() < previewCount;
                        if (filling) docs.emplace_back();
                    }
                    if (filling && docs.back().text.size() < previewBytes)
                        docs.back().text.append(piece.substr(0, previewBytes - docs.back().text.size()));
                    opened = !ends;
                },
                [&](std::size_t n) {
                    runner.add(n);
                    if (runner.cancelled()) throw CancelledInPart();
                },
                kOverviewPieceBytes);
        });
    } catch (const CancelledInPart&) {
        throw Cancelled();
    }
    Corpus first;
    for (std::size_t p = 1; p < stats.size(); ++p) stats[0].merge(stats[p]);
    for (auto& f : firsts)
        for (auto& d : f.documents)
            if (first.documents.size() < previewCount) first.documents.push_back(std::move(d));
    o.stats = stats.empty() ? CorpusStats{} : stats[0].stats();
    if (o.stats.documents == 0) throw InputError(path, 0, "no text (the file holds only whitespace)");
    o.preview = previewDocuments(first, previewCount, previewChars);
    return o;
}

CorpusOverview readTextOverview(const std::string& path, std::size_t previewCount, std::size_t previewChars,
                                const TokenizeProgress& progress) {
    // The parts' word tables (hundreds of MB for a few GB of text) go back to the system once they are
    // gone, whether the read ended or failed.
    const struct Release {
        ~Release() { releaseFreedMemory(); }
    } release;
    return readTextParts(path, previewCount, previewChars, progress);
}

}  // namespace

CorpusOverview readCorpusOverview(const std::string& path, CorpusFormat format, std::size_t previewCount,
                                  std::size_t previewChars, const TokenizeProgress& progress) {
    if (format == CorpusFormat::Auto) format = detectCorpusFormat(path);
    checkCorpusPath(path, format);
    if (format == CorpusFormat::Text) return readTextOverview(path, previewCount, previewChars, progress);
    auto corpus = std::make_shared<const Corpus>(loadCorpus(path, format));
    CorpusOverview o;
    o.path = path;
    o.format = corpus->format;
    o.bytes = sourceBytes(path);
    o.stats = computeStats(*corpus);
    o.preview = previewDocuments(*corpus, previewCount, previewChars);
    o.classes = corpus->classes;
    o.corpus = std::move(corpus);
    return o;
}

}  // namespace wb
