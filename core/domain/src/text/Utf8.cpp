// Strict UTF-8 decoding (RFC 3629): overlong forms, surrogates, code points above U+10FFFF, truncated
// sequences and stray continuation bytes are all errors, reported with line and byte offset so a user can
// find the bad byte in an editor.
#include "workbench/domain/Utf8.h"

#include <cstdio>

#include "workbench/domain/Errors.h"

namespace wb {
namespace {

struct DecodeResult {
    bool ok = true;
    std::size_t badOffset = 0;  // offset of the lead byte of the invalid sequence
    unsigned char badByte = 0;  // the first byte that made it invalid
    const char* why = "";
};

// Decodes one sequence starting at bytes[i]; on success stores the code point and advances i.
inline bool decodeOne(std::string_view bytes, std::size_t& i, char32_t& cp, DecodeResult& err) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    const std::size_t n = bytes.size();
    const unsigned char b0 = p[i];
    if (b0 < 0x80) {
        cp = b0;
        ++i;
        return true;
    }
    int len;
    char32_t min;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        len = 2, min = 0x80, cp = b0 & 0x1F;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        len = 3, min = 0x800, cp = b0 & 0x0F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        len = 4, min = 0x10000, cp = b0 & 0x07;
    } else {
        err = {false, i, b0,
               (b0 >= 0x80 && b0 <= 0xBF)   ? "stray continuation byte"
               : (b0 == 0xC0 || b0 == 0xC1) ? "overlong encoding"
                                            : "invalid lead byte"};
        return false;
    }
    for (int k = 1; k < len; ++k) {
        if (i + k >= n) {
            err = {false, i, b0, "truncated sequence"};
            return false;
        }
        const unsigned char b = p[i + k];
        if ((b & 0xC0) != 0x80) {
            err = {false, i, b0, "truncated sequence"};
            return false;
        }
        cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < min) {
        err = {false, i, b0, "overlong encoding"};
        return false;
    }
    if (cp >= 0xD800 && cp <= 0xDFFF) {
        err = {false, i, b0, "surrogate code point"};
        return false;
    }
    if (cp > 0x10FFFF) {
        err = {false, i, b0, "code point above U+10FFFF"};
        return false;
    }
    i += len;
    return true;
}

std::size_t bomLength(std::string_view bytes) {
    return bytes.size() >= 3 && static_cast<unsigned char>(bytes[0]) == 0xEF &&
                   static_cast<unsigned char>(bytes[1]) == 0xBB &&
                   static_cast<unsigned char>(bytes[2]) == 0xBF
               ? 3
               : 0;
}

}  // namespace

std::u32string decodeUtf8(std::string_view bytes, const std::string& sourceName) {
    std::u32string out;
    out.reserve(bytes.size());
    std::size_t i = bomLength(bytes);
    DecodeResult err;
    char32_t cp = 0;
    while (i < bytes.size()) {
        if (!decodeOne(bytes, i, cp, err)) {
            // Lines are counted only on the error path, so the fast path stays a tight loop.
            std::int64_t line = 1;
            for (std::size_t k = 0; k < err.badOffset; ++k)
                if (bytes[k] == '\n') ++line;
            char buf[96];
            std::snprintf(buf, sizeof buf, "invalid UTF-8 (byte 0x%02X at offset %zu): %s", err.badByte,
                          err.badOffset, err.why);
            throw InputError(sourceName, line, buf, static_cast<std::int64_t>(err.badOffset));
        }
        out.push_back(cp);
    }
    out.shrink_to_fit();
    return out;
}

bool isValidUtf8(std::string_view bytes) {
    std::size_t i = 0;
    DecodeResult err;
    char32_t cp = 0;
    while (i < bytes.size()) {
        // ASCII fast path: most corpora are mostly ASCII or mostly 3-byte CJK.
        if (static_cast<unsigned char>(bytes[i]) < 0x80) {
            ++i;
            continue;
        }
        if (!decodeOne(bytes, i, cp, err)) return false;
    }
    return true;
}

void appendUtf8(std::string& out, char32_t cp) {
    // Unencodable values become U+FFFD rather than producing invalid UTF-8.
    if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) cp = 0xFFFD;
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

std::string encodeUtf8(std::u32string_view codePoints) {
    std::string out;
    out.reserve(codePoints.size());
    for (char32_t cp : codePoints) appendUtf8(out, cp);
    return out;
}

std::string encodeUtf8(char32_t codePoint) {
    std::string out;
    appendUtf8(out, codePoint);
    return out;
}

std::size_t countCodePoints(std::string_view utf8) {
    std::size_t n = 0;
    for (char c : utf8)
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
    return n;
}

}  // namespace wb
