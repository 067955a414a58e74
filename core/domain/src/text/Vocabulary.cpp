// Character and word vocabularies. Word tokenisation is deliberately simple and language-aware only where
// it must be: Chinese has no spaces, so each CJK ideograph is a token of its own.
#include "workbench/domain/Vocabulary.h"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "io/JsonDocument.h"
#include "text/CodePoints.h"
#include "text/WordTokenizer.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Utf8.h"

namespace wb {
namespace {

const char* const kSpecials[Vocabulary::kNumSpecial] = {"<pad>", "<unk>", "<bos>", "<eos>"};

using detail::nextCodePoint;

bool isSpace(char32_t c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == 0x85 ||
           c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200B) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

// Ideographs and kana: written without spaces, so one token per character.
bool isCjk(char32_t c) {
    return (c >= 0x3040 && c <= 0x30FF) || isHanCharacter(c);  // hiragana, katakana, Chinese characters
}

// Punctuation and symbols outside ASCII that should split words: general punctuation, CJK punctuation,
// full-width forms, Latin-1 punctuation and symbols.
bool isNonAsciiPunctuation(char32_t c) {
    return (c >= 0xA1 && c <= 0xBF) || c == 0xD7 || c == 0xF7 || (c >= 0x2010 && c <= 0x206F) ||
           (c >= 0x2190 && c <= 0x2BFF) || (c >= 0x3000 && c <= 0x303F) || (c >= 0xFE30 && c <= 0xFE4F) ||
           (c >= 0xFF00 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) ||
           (c >= 0xFF5B && c <= 0xFF65);
}

bool isApostrophe(char32_t c) { return c == '\'' || c == 0x2019; }

// Letters and digits that continue a word: ASCII alphanumerics and non-ASCII letters (é, ß, ж…).
bool isWordChar(char32_t c) {
    if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    return !isSpace(c) && !isCjk(c) && !isNonAsciiPunctuation(c) && !isApostrophe(c);
}

}  // namespace

const char* Vocabulary::specialToken(std::int64_t id) { return kSpecials[id]; }

std::string toString(TokenLevel level) { return level == TokenLevel::Word ? "word" : "char"; }

TokenLevel tokenLevelFromString(const std::string& s) {
    if (s == "char") return TokenLevel::Char;
    if (s == "word") return TokenLevel::Word;
    throw InputError("unknown token level '" + s + "' (expected char or word)");
}

namespace detail {

void forEachWordToken(std::string_view text, const std::function<void(std::string_view)>& visit) {
    std::string word;  // reused: lower-casing needs a copy, but not a new one per token
    std::size_t i = 0, len = 0;
    auto flush = [&] {
        if (!word.empty()) visit(word);
        word.clear();
    };
    while (i < text.size()) {
        const std::size_t start = i;
        const char32_t c = nextCodePoint(text, i, len);
        if (isWordChar(c)) {
            if (c >= 'A' && c <= 'Z')
                word.push_back(static_cast<char>(c - 'A' + 'a'));
            else
                word.append(text.data() + start, len);
        } else if (isApostrophe(c) && !word.empty() && i < text.size()) {
            // Inside a word ("don't") only when a word character follows.
            std::size_t j = i, len2 = 0;
            if (isWordChar(nextCodePoint(text, j, len2))) {
                word.append(text.data() + start, len);
            } else {
                flush();
                visit(text.substr(start, len));
            }
        } else {
            flush();
            if (!isSpace(c)) visit(text.substr(start, len));
        }
    }
    flush();
}

}  // namespace detail

std::vector<std::string> tokenizeWords(std::string_view text) {
    std::vector<std::string> out;
    detail::forEachWordToken(text, [&](std::string_view t) { out.emplace_back(t); });
    return out;
}

std::vector<std::string> tokenizeChars(std::string_view text) {
    std::vector<std::string> out;
    out.reserve(text.size());
    std::size_t i = 0, len = 0;
    while (i < text.size()) {
        const std::size_t start = i;
        nextCodePoint(text, i, len);
        out.emplace_back(text.substr(start, len));
    }
    return out;
}

Vocabulary::Vocabulary() {
    for (const char* s : kSpecials) add(s);
}

void Vocabulary::add(const std::string& token) {
    m_index.emplace(token, static_cast<std::int64_t>(m_tokens.size()));
    m_tokens.push_back(token);
}

Vocabulary Vocabulary::build(const std::vector<std::string>& documents, TokenLevel level, std::size_t maxSize,
                             std::size_t minCount) {
    std::vector<std::pair<std::string, std::size_t>> counted;
    if (level == TokenLevel::Char) {
        // Count code points, not strings: no allocation per character on large corpora.
        std::unordered_map<char32_t, std::size_t> counts;
        for (const auto& doc : documents) {
            std::size_t i = 0, len = 0;
            while (i < doc.size()) ++counts[nextCodePoint(doc, i, len)];
        }
        counted.reserve(counts.size());
        for (const auto& [cp, n] : counts) counted.emplace_back(encodeUtf8(cp), n);
    } else {
        std::unordered_map<std::string, std::size_t> counts;
        std::string key;
        for (const auto& doc : documents)
            detail::forEachWordToken(doc, [&](std::string_view w) {
                key.assign(w);
                ++counts[key];
            });
        counted.reserve(counts.size());
        for (auto& [w, n] : counts) counted.emplace_back(w, n);
    }
    return fromCounts(std::move(counted), level, maxSize, minCount);
}

Vocabulary Vocabulary::fromCounts(std::vector<std::pair<std::string, std::size_t>> counted, TokenLevel level,
                                  std::size_t maxSize, std::size_t minCount) {
    Vocabulary vocab;
    vocab.m_level = level;
    // A corpus token spelled like a special ("<unk>" in text) would collide with it; it maps to the special.
    counted.erase(
        std::remove_if(counted.begin(), counted.end(),
                       [&](const auto& e) { return e.second < minCount || vocab.contains(e.first); }),
        counted.end());
    std::sort(counted.begin(), counted.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    std::size_t keep = counted.size();
    if (maxSize > 0) keep = std::min(keep, maxSize > kNumSpecial ? maxSize - kNumSpecial : 0);
    vocab.m_tokens.reserve(kNumSpecial + keep);
    for (std::size_t k = 0; k < keep; ++k) vocab.add(counted[k].first);
    return vocab;
}

const std::string& Vocabulary::token(std::int64_t id) const {
    if (id < 0 || id >= static_cast<std::int64_t>(m_tokens.size()))
        throw std::out_of_range("token id " + std::to_string(id) + " outside the vocabulary of " +
                                std::to_string(m_tokens.size()));
    return m_tokens[static_cast<std::size_t>(id)];
}

std::int64_t Vocabulary::id(std::string_view token) const {
    const auto it = m_index.find(std::string(token));
    return it == m_index.end() ? kUnk : it->second;
}

bool Vocabulary::contains(std::string_view token) const { return m_index.count(std::string(token)) > 0; }

std::vector<std::string> Vocabulary::tokenize(std::string_view text) const {
    return m_level == TokenLevel::Char ? tokenizeChars(text) : tokenizeWords(text);
}

std::vector<std::int64_t> Vocabulary::encode(std::string_view text) const {
    std::vector<std::int64_t> ids;
    if (m_level == TokenLevel::Char) {
        ids.reserve(text.size());
        std::string cp;
        std::size_t i = 0, len = 0;
        while (i < text.size()) {
            const std::size_t start = i;
            nextCodePoint(text, i, len);
            cp.assign(text.data() + start, len);  // fits the small-string buffer: no allocation
            const auto it = m_index.find(cp);
            ids.push_back(it == m_index.end() ? kUnk : it->second);
        }
    } else {
        for (const auto& w : tokenizeWords(text)) ids.push_back(id(w));
    }
    return ids;
}

std::string Vocabulary::decode(const std::vector<std::int64_t>& ids) const {
    std::string out;
    for (std::int64_t id : ids) {
        if (id >= 0 && id < kNumSpecial) continue;
        const std::string& t = token(id);
        if (m_level == TokenLevel::Word && !out.empty()) out += ' ';
        out += t;
    }
    return out;
}

std::string Vocabulary::toJson() const {
    nlohmann::json j;
    j["level"] = toString(m_level);
    j["tokens"] = m_tokens;
    return j.dump(1) + "\n";
}

Vocabulary Vocabulary::fromJson(const std::string& json, const std::string& sourceName) {
    const nlohmann::json j = detail::parseJsonDocument(json, sourceName);
    auto fail = [&](const std::string& why) { throw InputError(sourceName, 0, why); };
    if (!j.is_object()) fail("expected a JSON object with \"level\" and \"tokens\"");
    if (!j.contains("level") || !j["level"].is_string()) fail("level: expected \"char\" or \"word\"");
    const std::string levelName = j["level"].get<std::string>();
    if (levelName != "char" && levelName != "word")
        fail("level: expected \"char\" or \"word\", found \"" + levelName + "\"");
    if (!j.contains("tokens") || !j["tokens"].is_array()) fail("tokens: expected an array of strings");
    const auto& tokens = j["tokens"];
    if (tokens.size() < kNumSpecial) fail("tokens: expected at least the 4 special tokens");
    Vocabulary v;  // holds the specials already
    v.m_level = tokenLevelFromString(levelName);
    for (std::size_t k = 0; k < tokens.size(); ++k) {
        if (!tokens[k].is_string())
            fail("tokens[" + std::to_string(k) + "]: expected a string, found " +
                 detail::jsonTypeName(tokens[k]));
        const std::string t = tokens[k].get<std::string>();
        if (k < kNumSpecial) {
            if (t != kSpecials[k])
                fail("tokens[" + std::to_string(k) + "]: expected \"" + kSpecials[k] + "\", found \"" + t +
                     "\"");
            continue;
        }
        if (!isValidUtf8(t)) fail("tokens[" + std::to_string(k) + "]: invalid UTF-8");
        if (v.contains(t)) fail("tokens[" + std::to_string(k) + "]: duplicate token \"" + t + "\"");
        v.add(t);
    }
    return v;
}

}  // namespace wb
