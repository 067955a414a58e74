// A source's documents in parts that threads read independently (a corpus file read in blocks, or a corpus
// in memory), and the runner that visits every part on its own thread with progress and cancellation. Shared
// by the token store's two passes and the corpus overview's one.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "workbench/domain/Corpus.h"
#include "workbench/domain/TokenStore.h"

namespace wb {

inline constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
// FNV-1a over 8-byte words (then the tail's bytes): the sources' checksum, fast enough to take while reading.
std::uint64_t fnvWords(std::uint64_t h, const char* data, std::size_t n);

// The documents of a source, in parts that threads visit independently; visiting a part calls `document`
// for each of its documents in order (text, class index or -1) and `bytes` as the source is read.
class DocumentParts {
public:
    using Visit = std::function<void(std::string_view text, int label)>;
    // A piece of a document; endsDocument on its last piece (which may be empty).
    using VisitPiece = std::function<void(std::string_view piece, bool endsDocument)>;
    virtual ~DocumentParts() = default;
    virtual std::size_t count() const = 0;
    virtual void visit(std::size_t part, const Visit& document, const std::function<void(std::size_t)>& bytes,
                       std::uint64_t* checksum) const = 0;
    // The part's documents in pieces of at most 2 × maxPiece bytes, cut after a line or, in a longer line,
    // before a blank (a word is cut only when a line holds maxPiece bytes without one): what a reader that
    // needs no whole document (statistics, a preview) visits, so that its memory stays bounded when the
    // source is one paragraph of 300 MB. The pieces of a document joined are the text visit() gives.
    virtual void visitPieces(std::size_t part, const VisitPiece& piece,
                             const std::function<void(std::size_t)>& bytes, std::size_t maxPiece) const {
        visit(
            part, [&](std::string_view text, int) { piece(text, true); }, bytes, nullptr);
    }
    virtual std::uint64_t totalBytes() const = 0;
};

// The piece size the overview reads plain text in: statistics and the preview hold no more of a document.
inline constexpr std::size_t kOverviewPieceBytes = 4u << 20;

// A plain-text file read in blocks: paragraphs separated by blank lines, as loadCorpus reads them (CR and
// CRLF line ends read as LF, a leading byte-order mark dropped, NUL bytes and invalid UTF-8 refused), in
// about `parts` parts split where a blank line begins. Throws InputError when it cannot be read or is empty.
std::unique_ptr<DocumentParts> textFileParts(const std::string& path, std::size_t parts);
// A corpus in memory: its documents cut into `parts` runs of about equal bytes.
std::unique_ptr<DocumentParts> corpusParts(const Corpus& corpus, std::size_t parts);

// Hands the memory the parts' threads allocated and freed back to the system. glibc keeps a thread's freed
// pages in its arena otherwise: an app that read a 2 GB corpus's word tables would hold them to the end.
void releaseFreedMemory();

// Threads for reading a source of this many bytes: one below 4 MiB, else the cores (at most 8).
std::size_t threadsFor(std::uint64_t bytes);

// Runs fn(part) for every part on its own thread; the calling thread reports progress meanwhile and stops
// them all when the callback says cancel. The first exception is rethrown.
class PartRunner {
public:
    PartRunner(TokenizeProgress progress, std::uint64_t total)
        : m_progress(std::move(progress)), m_total(total) {}
    void add(std::size_t n) { m_done += n; }
    bool cancelled() const { return m_cancel; }
    void run(std::size_t parts, const std::function<void(std::size_t)>& fn) {
        std::vector<std::thread> threads;
        std::exception_ptr error;
        std::mutex mutex;
        std::condition_variable finished;
        std::size_t running = parts;
        for (std::size_t p = 0; p < parts; ++p)
            threads.emplace_back([&, p] {
                try {
                    fn(p);
                } catch (...) {
                    std::lock_guard<std::mutex> lock(mutex);
                    if (!error) error = std::current_exception();
                    m_cancel = true;
                }
                std::lock_guard<std::mutex> lock(mutex);
                --running;
                finished.notify_all();
            });
        {
            std::unique_lock<std::mutex> lock(mutex);
            while (running > 0) {
                finished.wait_for(lock, std::chrono::milliseconds(100));
                if (m_progress && !m_cancel) {
                    lock.unlock();
                    const bool go = m_progress(std::min<std::uint64_t>(m_done, m_total), m_total);
                    lock.lock();
                    if (!go) m_cancel = true;
                }
            }
        }
        for (auto& t : threads) t.join();
        if (error) std::rethrow_exception(error);
        if (m_cancel) throw Cancelled();
    }

private:
    TokenizeProgress m_progress;
    std::uint64_t m_total;
    std::atomic<std::uint64_t> m_done{0};
    std::atomic<bool> m_cancel{false};
};

struct CancelledInPart : std::exception {};

}  // namespace wb
