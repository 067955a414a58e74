// The tables the verse checker judges with (workbench/domain/Verse.h): tones.json, per character how often it
// is read level or oblique, and rhymes.json, the rhyme groups; read with messages that name the file, and
// looked up in the corpus's own script first.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "io/JsonDocument.h"
#include "verse/PoemLines.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/Utf8.h"
#include "workbench/domain/Verse.h"

namespace wb {

using detail::quoted;

namespace {

// The document's object, with the "format" the preparer writes, so that a file of another kind (a
// manifest, a vocabulary) is named for what it is not.
nlohmann::json parseTable(const std::string& text, const std::string& sourceName, const char* format) {
    nlohmann::json j = detail::parseJsonDocument(text, sourceName);
    if (!j.is_object()) {
        throw InputError(
            sourceName, 0,
            std::string("expected a JSON object (") + format + "), found " + detail::jsonTypeName(j));
    }
    const auto it = j.find("format");
    if (it == j.end() || !it->is_string() || it->get<std::string>() != format) {
        throw InputError(sourceName, 0,
                         std::string("not a ") + format + " file (its \"format\" is not \"" + format +
                             "\"); prepare the corpus again");
    }
    return j;
}

// A table key must be one character.
char32_t singleCharacter(const std::string& key, const std::string& sourceName, const std::string& where) {
    const std::u32string chars = decodeUtf8(key, sourceName);
    if (chars.size() != 1) {
        throw InputError(sourceName, 0, where + ": \"" + key + "\" is not a single character");
    }
    return chars[0];
}

void readCounts(const nlohmann::json& j, const char* key, const std::string& sourceName,
                std::unordered_map<char32_t, ToneTable::Counts>& out) {
    if (!j.is_object()) {
        throw InputError(sourceName, 0,
                         std::string("\"") + key + "\": expected an object of characters, found " +
                             detail::jsonTypeName(j));
    }
    for (const auto& [name, value] : j.items()) {
        const std::string where = std::string(key) + ": \"" + name + "\"";
        const char32_t c = singleCharacter(name, sourceName, key);
        if (!value.is_array() || value.size() != 3 ||
            !std::all_of(value.begin(), value.end(), [](const nlohmann::json& n) {
                return n.is_number_integer() && n.get<std::int64_t>() >= 0;
            })) {
            throw InputError(sourceName, 0,
                             where + ": expected [level, oblique, either] counts (three whole numbers >= 0)");
        }
        out[c] = {value[0].get<std::int64_t>(), value[1].get<std::int64_t>(), value[2].get<std::int64_t>()};
    }
}

Tone decide(const ToneTable::Counts& c) {
    if (c.level + c.oblique + c.either <= 0) return Tone::Unknown;
    const double n = static_cast<double>(c.level + c.oblique);
    if (n > 0 && c.level >= ToneTable::kDominantShare * n) return Tone::Level;
    if (n > 0 && c.oblique >= ToneTable::kDominantShare * n) return Tone::Oblique;
    return Tone::Either;
}

}  // namespace

ToneTable ToneTable::parse(const std::string& text, const std::string& sourceName) {
    const nlohmann::json j = parseTable(text, sourceName, "lstm-workbench tones");
    ToneTable table;
    const auto traditional = j.find("traditional");
    if (traditional == j.end()) throw InputError(sourceName, 0, "missing \"traditional\" (the tone counts)");
    readCounts(*traditional, "traditional", sourceName, table.m_traditional);
    if (const auto simplified = j.find("simplified"); simplified != j.end()) {
        readCounts(*simplified, "simplified", sourceName, table.m_simplified);
    }
    return table;
}

ToneTable ToneTable::load(const std::filesystem::path& path) {
    return parse(readFile(path.string(), "tone table"), path.string());
}

const ToneTable::Counts* ToneTable::counts(char32_t character) const {
    const auto& first = m_preferTraditional ? m_traditional : m_simplified;
    const auto& second = m_preferTraditional ? m_simplified : m_traditional;
    if (const auto it = first.find(character); it != first.end()) return &it->second;
    if (const auto it = second.find(character); it != second.end()) return &it->second;
    return nullptr;
}

double ToneTable::dominantShare(char32_t character) const {
    const Counts* c = counts(character);
    if (!c || c->level + c->oblique <= 0) return 0;
    return static_cast<double>(std::max(c->level, c->oblique)) / static_cast<double>(c->level + c->oblique);
}

bool ToneTable::looksTraditional(std::u32string_view text) const {
    std::int64_t traditionalOnly = 0, simplifiedOnly = 0;
    for (const char32_t c : text) {
        const bool t = m_traditional.count(c) > 0, s = m_simplified.count(c) > 0;
        traditionalOnly += t && !s;
        simplifiedOnly += s && !t;
    }
    return traditionalOnly > simplifiedOnly;
}

Tone ToneTable::tone(char32_t character) const {
    const Counts* c = counts(character);
    return c ? decide(*c) : Tone::Unknown;
}

RhymeTable RhymeTable::parse(const std::string& text, const std::string& sourceName) {
    const nlohmann::json j = parseTable(text, sourceName, "lstm-workbench rhymes");
    const auto groups = j.find("groups");
    if (groups == j.end() || !groups->is_array()) {
        throw InputError(sourceName, 0, "missing \"groups\" (an array of rhyme groups)");
    }
    RhymeTable table;
    for (std::size_t g = 0; g < groups->size(); ++g) {
        const nlohmann::json& group = (*groups)[g];
        const std::string where = "group " + std::to_string(g);
        const auto traditional = group.is_object() ? group.find("traditional") : group.end();
        if (!group.is_object() || traditional == group.end() || !traditional->is_string() ||
            traditional->get<std::string>().empty()) {
            throw InputError(sourceName, 0, where + ": expected an object with a \"traditional\" string");
        }
        std::string chars = traditional->get<std::string>();
        if (const auto simplified = group.find("simplified"); simplified != group.end()) {
            if (!simplified->is_string()) {
                throw InputError(sourceName, 0, where + ": \"simplified\" is not a string");
            }
            chars += simplified->get<std::string>();
        }
        const int index = static_cast<int>(table.m_names.size());
        for (const char32_t c : decodeUtf8(chars, sourceName)) {
            if (!isHanCharacter(c)) {
                throw InputError(sourceName, 0, where + ": " + quoted(c) + " is not a Chinese character");
            }
            auto& of = table.m_groups[c];
            if (std::find(of.begin(), of.end(), index) == of.end()) of.push_back(index);
        }
        // A group is called by its commonest rhyme (the preparer's "name"), else by its first character.
        const auto name = group.find("name");
        const bool named = name != group.end() && name->is_string() && !name->get<std::string>().empty();
        table.m_names.push_back(named
                                    ? name->get<std::string>()
                                    : encodeUtf8(decodeUtf8(traditional->get<std::string>(), sourceName)[0]));
    }
    return table;
}

RhymeTable RhymeTable::load(const std::filesystem::path& path) {
    return parse(readFile(path.string(), "rhyme table"), path.string());
}

const std::vector<int>& RhymeTable::groupsOf(char32_t character) const {
    static const std::vector<int> none;
    const auto it = m_groups.find(character);
    return it == m_groups.end() ? none : it->second;
}

bool RhymeTable::rhymes(char32_t a, char32_t b) const {
    const auto& ga = groupsOf(a);
    const auto& gb = groupsOf(b);
    return std::any_of(ga.begin(), ga.end(),
                       [&](int g) { return std::find(gb.begin(), gb.end(), g) != gb.end(); });
}

}  // namespace wb
