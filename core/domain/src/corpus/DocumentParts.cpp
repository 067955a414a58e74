// Document parts (see DocumentParts.h).
#include "corpus/DocumentParts.h"

#include <fcntl.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>

#include "text/Blanks.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Utf8.h"

namespace wb {

std::uint64_t fnvWords(std::uint64_t h, const char* data, std::size_t n) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, data + i, 8);
        h = (h ^ w) * 0x100000001b3ULL;
    }
    for (; i < n; ++i) h = (h ^ static_cast<unsigned char>(data[i])) * 0x100000001b3ULL;
    return h;
}

void releaseFreedMemory() {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

std::size_t threadsFor(std::uint64_t bytes) {
    if (bytes < (4u << 20)) return 1;  // not worth a thread
    return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
}

namespace {

constexpr std::size_t kBlock = 8 << 20;  // bytes read at a time from a text source

bool blankLine(std::string_view line) {
    return std::all_of(line.begin(), line.end(), [](char c) { return detail::isBlank(c) || c == '\r'; });
}

class CorpusParts final : public DocumentParts {
public:
    CorpusParts(const Corpus& corpus, std::size_t parts) : m_corpus(corpus) {
        for (const auto& d : corpus.documents) m_total += d.text.size();
        m_bounds.push_back(0);
        std::uint64_t seen = 0;
        for (std::size_t i = 0; i < corpus.documents.size(); ++i) {
            seen += corpus.documents[i].text.size();
            if (m_bounds.size() < parts && seen * parts >= m_total * m_bounds.size() &&
                i + 1 < corpus.documents.size())
                m_bounds.push_back(i + 1);
        }
        m_bounds.push_back(corpus.documents.size());
    }
    std::size_t count() const override { return m_bounds.size() - 1; }
    std::uint64_t totalBytes() const override { return m_total; }
    void visit(std::size_t part, const Visit& document, const std::function<void(std::size_t)>& bytes,
               std::uint64_t* checksum) const override {
        for (std::size_t i = m_bounds[part]; i < m_bounds[part + 1]; ++i) {
            const auto& d = m_corpus.documents[i];
            if (checksum) *checksum = fnvWords(*checksum, d.text.data(), d.text.size());
            document(d.text, d.label.empty() ? -1 : m_corpus.classIndex(d.label));
            bytes(d.text.size());
        }
    }

private:
    const Corpus& m_corpus;
    std::vector<std::size_t> m_bounds;
    std::uint64_t m_total = 0;
};

// The length of data without a character its end cuts.
std::size_t wholeCharacters(std::string_view data) {
    for (std::size_t k = 0; k < 4 && k < data.size(); ++k) {
        const auto b = static_cast<unsigned char>(data[data.size() - 1 - k]);
        if ((b & 0xC0) == 0x80) continue;  // a continuation byte: look further back for its lead
        const std::size_t need = b < 0x80           ? 1
                                 : (b >> 5) == 0x6  ? 2
                                 : (b >> 4) == 0xE  ? 3
                                 : (b >> 3) == 0x1E ? 4
                                                    : 1;
        return need > k + 1 ? data.size() - 1 - k : data.size();
    }
    return data.size();
}

// Lines into paragraphs (a blank line ends one), handed on in pieces of about maxPiece bytes: a paragraph
// is passed on at a line end once it holds maxPiece bytes, a line of maxPiece bytes before its last blank.
// The pieces joined are the paragraph as one string would hold it: lines joined by LF, the end trimmed.
class Paragraphs {
public:
    Paragraphs(const DocumentParts::VisitPiece& piece, std::size_t maxPiece)
        : m_piece(piece), m_max(maxPiece) {}

    // A whole line (or the rest of one longLine began), its end removed.
    void line(std::string_view text) {
        if (!m_lineOpen && blankLine(text)) {
            finish();
            return;
        }
        text.remove_prefix(passLongLine(text));
        openLine();
        m_text.append(text);
        m_lineOpen = false;
        if (m_text.size() >= m_max) pass();
    }

    // The line so far of a line with no end yet (it spans blocks): what passLongLine takes leaves `carry`.
    void longLine(std::string& carry) {
        // Blanks alone may yet be a blank line: kept until the line shows (a line of megabytes of blanks
        // alone is the one shape held whole).
        if (carry.size() < m_max || (!m_lineOpen && blankLine(carry))) return;
        carry.erase(0, passLongLine(carry));
    }

    void finish() {
        const auto text = detail::trimRight(m_text);
        if (!text.empty() || m_passed) m_piece(text, true);
        m_text.clear();
        m_passed = m_lineOpen = false;
    }

private:
    // Passes a line's text on by maxPiece bytes, cut before its last blank in them (or after their whole
    // characters when they hold none), while maxPiece bytes are left; returns the bytes passed on.
    std::size_t passLongLine(std::string_view text) {
        std::size_t used = 0;
        while (text.size() - used >= m_max) {
            const auto rest = text.substr(used);
            std::size_t cut = rest.find_last_of(" \t\v\f", m_max);
            if (cut == std::string_view::npos || cut == 0) cut = wholeCharacters(rest.substr(0, m_max));
            openLine();
            m_text.append(rest.substr(0, cut));
            used += cut;
            pass();
        }
        return used;
    }

    void openLine() {
        if (m_lineOpen) return;
        if (m_passed || !m_text.empty()) m_text += '\n';
        m_lineOpen = true;
    }
    // Hands on what is held but its trailing blanks, which a later line keeps or the end trims.
    void pass() {
        const auto head = detail::trimRight(m_text);
        if (head.empty()) return;
        m_piece(head, false);
        m_passed = true;
        m_text.erase(0, head.size());
    }

    const DocumentParts::VisitPiece& m_piece;
    const std::size_t m_max;
    std::string m_text;
    bool m_passed = false;    // a piece of this paragraph went on
    bool m_lineOpen = false;  // a line longLine began has not ended
};

class TextFileParts final : public DocumentParts {
public:
    TextFileParts(const std::string& path, std::size_t parts) : m_path(path) {
        m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (m_fd < 0) throw InputError(path, 0, std::string("cannot read: ") + std::strerror(errno));
        struct stat st {};
        fstat(m_fd, &st);
        m_size = static_cast<std::uint64_t>(st.st_size);
        if (m_size == 0) throw InputError(path, 0, "file is empty");
        char bom[3] = {0, 0, 0};
        const std::uint64_t start =
            pread(m_fd, bom, 3, 0) == 3 && std::memcmp(bom, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
        m_bounds.push_back(start);
        for (std::size_t k = 1; k < parts; ++k) {
            const auto at = paragraphBreakAfter(std::max(m_bounds.back(), m_size * k / parts));
            if (at >= m_size) break;
            m_bounds.push_back(at);
        }
        m_bounds.push_back(m_size);
    }
    ~TextFileParts() override { ::close(m_fd); }
    std::size_t count() const override { return m_bounds.size() - 1; }
    std::uint64_t totalBytes() const override { return m_size; }

    void visit(std::size_t part, const Visit& document, const std::function<void(std::size_t)>& bytes,
               std::uint64_t* checksum) const override {
        // Without a cap a piece is a whole document.
        read(
            part, [&](std::string_view text, bool) { document(text, -1); }, bytes, checksum,
            std::numeric_limits<std::size_t>::max());
    }

    void visitPieces(std::size_t part, const VisitPiece& piece, const std::function<void(std::size_t)>& bytes,
                     std::size_t maxPiece) const override {
        read(part, piece, bytes, nullptr, std::max<std::size_t>(maxPiece, 64));
    }

private:
    void read(std::size_t part, const VisitPiece& piece, const std::function<void(std::size_t)>& bytes,
              std::uint64_t* checksum, std::size_t maxPiece) const {
        std::string block(kBlock, '\0'), carry;
        Paragraphs paragraphs(piece, maxPiece);
        bool pendingCr = false;  // a CR ended the last block: an LF opening this one belongs to it
        std::uint64_t at = m_bounds[part];
        const std::uint64_t end = m_bounds[part + 1];
        while (at < end) {
            const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, end - at));
            const ssize_t got = pread(m_fd, block.data(), want, static_cast<off_t>(at));
            if (got <= 0) throw InputError(m_path, 0, "cannot read: the file changed or shrank while read");
            // A block ends after its last line end (or, in a line longer than a block, before a character
            // it would cut), and the next one is read from there: every check sees whole characters.
            std::string_view data(block.data(), static_cast<std::size_t>(got));
            if (at + data.size() < end) {
                const auto nl = data.rfind('\n');
                data = data.substr(0, nl != std::string_view::npos ? nl + 1 : wholeCharacters(data));
            }
            check(data, at);
            if (checksum) *checksum = fnvWords(*checksum, data.data(), data.size());
            std::size_t pos = 0;
            if (pendingCr && !data.empty() && data[0] == '\n') pos = 1;
            pendingCr = false;
            while (pos < data.size()) {
                const auto eol = data.find_first_of("\r\n", pos);
                if (eol == std::string_view::npos) {
                    carry.append(data.substr(pos));
                    paragraphs.longLine(carry);
                    break;
                }
                const auto text = data.substr(pos, eol - pos);
                if (carry.empty()) {
                    paragraphs.line(text);
                } else {
                    carry.append(text);
                    paragraphs.line(carry);
                    carry.clear();
                }
                pos = eol + 1;
                if (data[eol] == '\r') {
                    if (pos < data.size() && data[pos] == '\n')
                        ++pos;
                    else if (pos == data.size())
                        pendingCr = true;
                }
            }
            at += data.size();
            bytes(data.size());
        }
        if (!carry.empty()) paragraphs.line(carry);
        paragraphs.finish();
    }

    // The offset where the first blank line at or after `from` begins (just after a line end), or the size.
    std::uint64_t paragraphBreakAfter(std::uint64_t from) const {
        std::string buf(1 << 16, '\0');
        bool lineStart = false;  // `from` itself is not known to start a line
        std::uint64_t lineBegin = 0;
        bool blankSoFar = false;
        for (std::uint64_t at = from; at < m_size;) {
            const ssize_t got = pread(m_fd, buf.data(), buf.size(), static_cast<off_t>(at));
            if (got <= 0) break;
            for (ssize_t i = 0; i < got; ++i) {
                const char c = buf[static_cast<std::size_t>(i)];
                const std::uint64_t offset = at + static_cast<std::uint64_t>(i);
                if (c == '\n') {
                    if (lineStart && blankSoFar) return lineBegin;
                    lineStart = true;
                    lineBegin = offset + 1;
                    blankSoFar = true;
                } else if (lineStart && !(detail::isBlank(c) || c == '\r')) {
                    blankSoFar = false;
                }
            }
            at += static_cast<std::uint64_t>(got);
        }
        return m_size;
    }

    // NUL bytes and invalid UTF-8 are refused with their offset and line, as loadCorpus refuses them.
    void check(std::string_view data, std::uint64_t offset) const {
        if (const void* nul = std::memchr(data.data(), '\0', data.size())) {
            const auto at = offset + static_cast<std::uint64_t>(static_cast<const char*>(nul) - data.data());
            throw InputError(
                m_path, lineOf(at),
                "binary data: NUL byte at offset " + std::to_string(at) + " (expected UTF-8 text)",
                static_cast<std::int64_t>(at));
        }
        if (isValidUtf8(data)) return;
        try {
            decodeUtf8(data, m_path);
        } catch (const InputError& e) {
            const auto at = offset + static_cast<std::uint64_t>(std::max<std::int64_t>(e.byteOffset(), 0));
            auto reason = e.reason();
            const auto relative = "offset " + std::to_string(e.byteOffset());
            if (const auto k = reason.find(relative); k != std::string::npos)
                reason.replace(k, relative.size(), "offset " + std::to_string(at));
            throw InputError(m_path, lineOf(at), reason, static_cast<std::int64_t>(at));
        }
    }

    std::int64_t lineOf(std::uint64_t offset) const {
        std::int64_t line = 1;
        std::string buf(1 << 16, '\0');
        for (std::uint64_t at = 0; at < offset;) {
            const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), offset - at));
            const ssize_t got = pread(m_fd, buf.data(), want, static_cast<off_t>(at));
            if (got <= 0) break;
            line += std::count(buf.data(), buf.data() + got, '\n');
            at += static_cast<std::uint64_t>(got);
        }
        return line;
    }

    std::string m_path;
    int m_fd = -1;
    std::uint64_t m_size = 0;
    std::vector<std::uint64_t> m_bounds;
};

}  // namespace

std::unique_ptr<DocumentParts> textFileParts(const std::string& path, std::size_t parts) {
    return std::make_unique<TextFileParts>(path, parts);
}

std::unique_ptr<DocumentParts> corpusParts(const Corpus& corpus, std::size_t parts) {
    return std::make_unique<CorpusParts>(corpus, parts);
}

}  // namespace wb
