// UTF-8 decoding by code point with precise errors, and encoding back. Chinese text is the common case.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace wb {

// Decodes UTF-8 into code points. A leading BOM is skipped. Throws InputError naming sourceName, the
// 1-based line and the byte offset of the first invalid, overlong, surrogate or truncated sequence.
std::u32string decodeUtf8(std::string_view bytes, const std::string& sourceName);

// True if bytes are valid UTF-8 (no exception).
bool isValidUtf8(std::string_view bytes);

void appendUtf8(std::string& out, char32_t codePoint);
std::string encodeUtf8(std::u32string_view codePoints);
std::string encodeUtf8(char32_t codePoint);

// A Chinese character: a CJK unified ideograph (extension A, the main block, extensions B and later) or a
// compatibility ideograph. Poem forms, the verse tables and word splitting all mean this.
inline bool isHanCharacter(char32_t c) {
    return (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xF900 && c <= 0xFAFF) ||
           (c >= 0x20000 && c <= 0x3FFFF);
}

// Number of code points in valid UTF-8 (counts lead bytes; for statistics and display).
std::size_t countCodePoints(std::string_view utf8);

}  // namespace wb
