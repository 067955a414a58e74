// Decoding one code point at a time, for the tokenizers (Vocabulary.cpp, TokenStoreBuilder.cpp).
#pragma once

#include <cstddef>
#include <string_view>

namespace wb::detail {

// Lenient decode of one code point of (already validated) UTF-8: corpus text was validated on load, and a
// tokenizer must not throw on user-typed text, so malformed bytes decode as themselves one at a time.
inline char32_t nextCodePoint(std::string_view s, std::size_t& i, std::size_t& len) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    len = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : (b0 >> 3) == 0x1E ? 4 : 1;
    if (i + len > s.size()) len = 1;
    char32_t cp = len == 1 ? b0 : len == 2 ? (b0 & 0x1F) : len == 3 ? (b0 & 0x0F) : (b0 & 0x07);
    for (std::size_t k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xC0) != 0x80) {
            len = 1;
            cp = b0;
            break;
        }
        cp = (cp << 6) | (b & 0x3F);
    }
    const std::size_t start = i;
    i = start + len;
    return cp;
}

}  // namespace wb::detail
