// Token vocabularies: characters (Unicode code points) or words (top-N by frequency, minimum count).
// Ids 0..3 are always <pad>, <unk>, <bos>, <eos>.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace wb {

enum class TokenLevel { Char, Word };
std::string toString(TokenLevel level);
TokenLevel tokenLevelFromString(const std::string& s);  // "char" | "word"; throws InputError

// Splits text into word tokens: lower-cased ASCII words and numbers, each punctuation mark on its own,
// each CJK character on its own (Chinese has no spaces). Whitespace separates and is dropped.
std::vector<std::string> tokenizeWords(std::string_view utf8);
// Splits text into one UTF-8 string per code point.
std::vector<std::string> tokenizeChars(std::string_view utf8);

class Vocabulary {
public:
    static constexpr std::int64_t kPad = 0, kUnk = 1, kBos = 2, kEos = 3;
    static constexpr std::int64_t kNumSpecial = 4;
    static const char* specialToken(std::int64_t id);  // "<pad>", "<unk>", "<bos>", "<eos>"; id < kNumSpecial

    Vocabulary();  // specials only

    // Builds from documents. maxSize counts all tokens including specials (0 = unlimited); tokens seen
    // fewer than minCount times are dropped. Ties in frequency are broken by token string, so the
    // result is deterministic whatever the document order.
    static Vocabulary build(const std::vector<std::string>& documents, TokenLevel level,
                            std::size_t maxSize = 0, std::size_t minCount = 1);
    // The same from tokens already counted (a corpus tokenized in parts: workbench/domain/TokenStore.h): each
    // token's spelling and count, in any order.
    static Vocabulary fromCounts(std::vector<std::pair<std::string, std::size_t>> counted, TokenLevel level,
                                 std::size_t maxSize = 0, std::size_t minCount = 1);

    TokenLevel level() const { return m_level; }
    std::size_t size() const { return m_tokens.size(); }
    const std::string& token(std::int64_t id) const;
    std::int64_t id(std::string_view token) const;  // kUnk when absent
    bool contains(std::string_view token) const;

    std::vector<std::string> tokenize(std::string_view text) const;  // by level
    std::vector<std::int64_t> encode(std::string_view text) const;
    // Joins tokens: chars are concatenated, words joined by spaces. Specials are skipped.
    std::string decode(const std::vector<std::int64_t>& ids) const;

    std::string toJson() const;
    static Vocabulary fromJson(const std::string& json, const std::string& sourceName);

    const std::vector<std::string>& tokens() const { return m_tokens; }
    bool operator==(const Vocabulary& other) const {
        return m_level == other.m_level && m_tokens == other.m_tokens;
    }

private:
    void add(const std::string& token);
    TokenLevel m_level = TokenLevel::Char;
    std::vector<std::string> m_tokens;
    std::unordered_map<std::string, std::int64_t> m_index;
};

}  // namespace wb
