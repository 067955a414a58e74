// The verse checker (workbench/Verse.h): reading tones.json and rhymes.json, splitting a poem into lines,
// and judging it rule by rule. Every rule judges only what the tables know: a character of unknown or
// either tone, or in no rhyme group, is never held against a poem, since the tables come from one corpus
// and a missing entry says nothing about the poem.
#include "workbench/Verse.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/JsonDocument.h"
#include "workbench/Corpus.h"
#include "workbench/CorpusCatalog.h"
#include "workbench/Errors.h"
#include "workbench/Utf8.h"

namespace wb {

namespace {

std::string readFile(const std::filesystem::path& path, const char* what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path.string(), 0, std::string("cannot read the ") + what);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

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

bool decided(Tone t) { return t == Tone::Level || t == Tone::Oblique; }

const char* toneWord(Tone t) { return t == Tone::Level ? "level" : "oblique"; }

// What ends a line; a comma ends a line of verse as much as a full stop does.
bool isLineMark(char32_t c) {
    return std::u32string_view(U"，。？！；：、,.?!;:").find(c) != std::u32string_view::npos;
}

bool isBlank(char32_t c) { return c == U' ' || c == U'\t' || c == U'\r' || c == U'\u3000'; }

struct PoemLine {
    std::u32string chars;
    char32_t mark = 0;  // the punctuation that ended it, 0 for a line break or the end of the text
};

std::vector<PoemLine> splitLines(std::string_view text) {
    const std::u32string chars = decodeUtf8(text, "poem");
    std::vector<PoemLine> lines;
    PoemLine current;
    for (const char32_t c : chars) {
        if (isLineMark(c)) {
            if (!current.chars.empty()) {
                current.mark = c;
                lines.push_back(std::move(current));
                current = {};
            } else if (!lines.empty() && lines.back().mark == 0) {
                lines.back().mark = c;  // "…间\n，" : the mark belongs to the line before
            }
        } else if (c == U'\n') {
            if (!current.chars.empty()) {
                lines.push_back(std::move(current));
                current = {};
            }
        } else if (!isBlank(c)) {
            current.chars.push_back(c);
        }
    }
    if (!current.chars.empty()) lines.push_back(std::move(current));
    return lines;
}

// Collects checks and violations rule by rule.
class Judge {
public:
    explicit Judge(VerseReport& report) : m_report(report) {
        for (int i = 0; i < kVerseRuleCount; ++i) m_report.rules.push_back({static_cast<VerseRule>(i), 0, 0});
    }
    void pass(VerseRule rule) { ++m_report.rules[static_cast<std::size_t>(rule)].checks; }
    void fail(VerseRule rule, int line, int position, char32_t c, std::string explanation) {
        auto& r = m_report.rules[static_cast<std::size_t>(rule)];
        ++r.checks;
        ++r.violations;
        m_report.violations.push_back(
            {line, position, rule, position >= 0 ? encodeUtf8(c) : std::string(), std::move(explanation)});
    }
    void judge(bool ok, VerseRule rule, int line, int position, char32_t c, std::string explanation) {
        ok ? pass(rule) : fail(rule, line, position, c, std::move(explanation));
    }

private:
    VerseReport& m_report;
};

std::string quoted(char32_t c) { return "'" + encodeUtf8(c) + "'"; }
std::string nth(int zeroBased) { return std::to_string(zeroBased + 1); }

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// Tables

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
    return parse(readFile(path, "tone table"), path.string());
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
    return parse(readFile(path, "rhyme table"), path.string());
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

// ---------------------------------------------------------------------------------------------------------
// Names

const char* verseFormName(VerseForm form) {
    switch (form) {
        case VerseForm::Quatrain5:
            return "五绝";
        case VerseForm::Quatrain7:
            return "七绝";
        case VerseForm::Regulated5:
            return "五律";
        case VerseForm::Regulated7:
            return "七律";
        case VerseForm::Unknown:
            break;
    }
    return "unknown form";
}

const char* verseRuleName(VerseRule rule) {
    switch (rule) {
        case VerseRule::Form:
            return "form";
        case VerseRule::Alternation:
            return "alternation";
        case VerseRule::Opposition:
            return "opposition";
        case VerseRule::Adhesion:
            return "adhesion";
        case VerseRule::LoneLevel:
            return "lone-level";
        case VerseRule::LevelTail:
            return "level-tail";
        case VerseRule::RhymeTone:
            return "rhyme-tone";
        case VerseRule::Rhyme:
            return "rhyme";
        case VerseRule::RepeatedRhyme:
            return "repeated-rhyme";
        case VerseRule::Novelty:
            return "novelty";
    }
    return "?";
}

std::vector<VerseSpot> verseSpots(std::string_view text) {
    // splitLines's walk, keeping where each character went.
    const std::u32string chars = decodeUtf8(text, "poem");
    std::vector<VerseSpot> spots(chars.size());
    int line = 0, position = 0;
    for (std::size_t i = 0; i < chars.size(); ++i) {
        const char32_t c = chars[i];
        if (isLineMark(c) || c == U'\n') {
            if (position > 0) ++line, position = 0;
        } else if (!isBlank(c)) {
            spots[i] = {line, position++};
        }
    }
    return spots;
}

std::vector<std::string> verseLines(std::string_view text) {
    std::vector<std::string> out;
    for (const auto& line : splitLines(text)) out.push_back(encodeUtf8(line.chars));
    return out;
}

// ---------------------------------------------------------------------------------------------------------
// The checker

VerseChecker::VerseChecker(ToneTable tones, RhymeTable rhymes)
    : m_tones(std::move(tones)), m_rhymes(std::move(rhymes)) {}

namespace {

// Form: 4 or 8 lines of one length, Chinese characters only, '，' after a couplet's first line and '。' (or
// '？', '！') after its second. Returns the length the poem means: that of most of its lines (7 on a tie),
// so that one line too long is reported as that line and not as all the others; 0 when none has 5 or 7.
int checkForm(const std::vector<PoemLine>& lines, Judge& judge, VerseReport& report) {
    const int count = static_cast<int>(lines.size());
    judge.judge(count == 4 || count == 8, VerseRule::Form, 0, -1, 0,
                "the poem has " + std::to_string(count) + " lines; a quatrain has 4, a regulated verse 8");
    const auto with = [&](std::size_t n) {
        return std::count_if(lines.begin(), lines.end(),
                             [&](const PoemLine& l) { return l.chars.size() == n; });
    };
    const int length = with(7) > 0 && with(7) >= with(5) ? 7 : with(5) > 0 ? 5 : 0;
    bool shaped = (count == 4 || count == 8) && length > 0;
    for (int i = 0; i < count; ++i) {
        const PoemLine& line = lines[static_cast<std::size_t>(i)];
        const int n = static_cast<int>(line.chars.size());
        shaped = shaped && n == length;
        judge.judge(n == length, VerseRule::Form, i, -1, 0,
                    "line " + nth(i) + " has " + std::to_string(n) + " characters; the poem's lines have " +
                        (length ? std::to_string(length) : std::string("5 or 7")));
        for (int p = 0; p < n; ++p) {
            const char32_t c = line.chars[static_cast<std::size_t>(p)];
            if (!isHanCharacter(c)) {
                shaped = false;
                judge.fail(VerseRule::Form, i, p, c, quoted(c) + " is not a Chinese character");
            }
        }
        const bool even = i % 2 == 1;  // lines 2, 4, 6, 8 end a couplet
        const bool markOk =
            even ? (line.mark == U'。' || line.mark == U'？' || line.mark == U'！') : line.mark == U'，';
        judge.judge(markOk, VerseRule::Form, i, -1, 0,
                    "line " + nth(i) +
                        (even ? " ends a couplet: it should end with '。'"
                              : " opens a couplet: it should end with '，'"));
    }
    if (shaped) {
        report.form = count == 4 ? (length == 5 ? VerseForm::Quatrain5 : VerseForm::Quatrain7)
                                 : (length == 5 ? VerseForm::Regulated5 : VerseForm::Regulated7);
    }
    return length;
}

// The tonal rules, on positions 2, 4 (and 6) of the lines that have the poem's length: alternation within a
// line (二四六分明), opposition within a couplet (对), adhesion between couplets (粘).
void checkTones(const std::vector<PoemLine>& lines, int length, const ToneTable& tones, Judge& judge) {
    const int count = static_cast<int>(lines.size());
    std::vector<int> keys = {1, 3};
    if (length == 7) keys.push_back(5);
    const auto usable = [&](int i) {
        return length > 0 && static_cast<int>(lines[static_cast<std::size_t>(i)].chars.size()) == length;
    };
    const auto at = [&](int i, int p) {
        return lines[static_cast<std::size_t>(i)].chars[static_cast<std::size_t>(p)];
    };
    const auto toneAt = [&](int i, int p) { return tones.tone(at(i, p)); };

    for (int i = 0; i < count; ++i) {  // 二四六分明
        if (!usable(i)) continue;
        for (std::size_t k = 1; k < keys.size(); ++k) {
            const Tone a = toneAt(i, keys[k - 1]), b = toneAt(i, keys[k]);
            if (!decided(a) || !decided(b)) continue;
            judge.judge(a != b, VerseRule::Alternation, i, keys[k], at(i, keys[k]),
                        "position " + nth(keys[k]) + " is " + toneWord(b) + " like position " +
                            nth(keys[k - 1]) + "; positions 2, 4 and 6 alternate (二四六分明)");
        }
    }
    for (int i = 0; i + 1 < count; i += 2) {  // 对
        if (!usable(i) || !usable(i + 1)) continue;
        for (const int p : keys) {
            const Tone a = toneAt(i, p), b = toneAt(i + 1, p);
            if (!decided(a) || !decided(b)) continue;
            judge.judge(a != b, VerseRule::Opposition, i + 1, p, at(i + 1, p),
                        "position " + nth(p) + " is " + toneWord(b) + " like position " + nth(p) +
                            " of line " + nth(i) + "; the lines of a couplet are opposite (对)");
        }
    }
    for (int i = 2; i < count; i += 2) {  // 粘
        if (!usable(i) || !usable(i - 1)) continue;
        const Tone a = toneAt(i - 1, 1), b = toneAt(i, 1);
        if (!decided(a) || !decided(b)) continue;
        judge.judge(a == b, VerseRule::Adhesion, i, 1, at(i, 1),
                    std::string("position 2 should be ") + toneWord(a) + " like position 2 of line " +
                        nth(i - 1) + " (粘)");
    }
}

// 孤平 and 三平尾, on the last five characters of every line that ends on a level tone (a 5-character line
// whole, a 7-character line from position 3: the two first characters of a 7-character line do not change
// either rule, as the textbooks count them).
// - 孤平: in a tail of the shape 平平仄仄平 (its 2nd level, its 4th oblique), the 1st may be oblique only
// when
//   the 3rd turns level to make up for it (仄平平仄平, 拗救); with both oblique, the 2nd is the line's only
//   level tone besides the rhyme.
// - 三平尾: the last three characters are not all level.
void checkTail(const std::vector<PoemLine>& lines, const ToneTable& tones, Judge& judge) {
    for (int i = 0; i < static_cast<int>(lines.size()); ++i) {
        const auto& chars = lines[static_cast<std::size_t>(i)].chars;
        const int n = static_cast<int>(chars.size());
        if ((n != 5 && n != 7) || tones.tone(chars.back()) != Tone::Level) continue;
        const int s = n - 5;  // the tail's first position
        const auto toneAt = [&](int k) { return tones.tone(chars[static_cast<std::size_t>(s + k)]); };
        if (toneAt(1) == Tone::Level && toneAt(3) == Tone::Oblique && decided(toneAt(0))) {
            const bool lone = toneAt(0) == Tone::Oblique && toneAt(2) == Tone::Oblique;
            if (toneAt(0) == Tone::Level || decided(toneAt(2))) {
                judge.judge(!lone, VerseRule::LoneLevel, i, s + 2, chars[static_cast<std::size_t>(s + 2)],
                            "positions " + nth(s) + " and " + nth(s + 2) +
                                " are both oblique, leaving one level tone before the rhyme (孤平); make "
                                "position " +
                                nth(s + 2) + " level");
            }
        }
        if (toneAt(3) == Tone::Level && decided(toneAt(2))) {
            judge.judge(
                toneAt(2) != Tone::Level, VerseRule::LevelTail, i, s + 2,
                chars[static_cast<std::size_t>(s + 2)],
                "the line ends on three level tones (三平尾); position " + nth(s + 2) + " should be oblique");
        }
    }
}

// The lines that rhyme: the even ones (whose last character must be level) and line 1 when it ends level.
std::vector<int> rhymeLinesOf(const std::vector<PoemLine>& lines, const ToneTable& tones, Judge& judge) {
    std::vector<int> rhymeLines;
    for (int i = 0; i < static_cast<int>(lines.size()); ++i) {
        const auto& chars = lines[static_cast<std::size_t>(i)].chars;
        if (chars.empty()) continue;
        const char32_t last = chars.back();
        const bool even = i % 2 == 1;
        if (even) {
            const Tone t = tones.tone(last);
            if (decided(t)) {
                judge.judge(t == Tone::Level, VerseRule::RhymeTone, i, static_cast<int>(chars.size()) - 1,
                            last, quoted(last) + " is oblique; an even line ends on a level tone, its rhyme");
            }
            rhymeLines.push_back(i);
        } else if (i == 0 && tones.tone(last) == Tone::Level) {
            rhymeLines.push_back(i);
        }
    }
    return rhymeLines;
}

// One rhyme group for every rhyme (押韵), and no rhyme character twice (重韵).
void checkRhymes(const std::vector<PoemLine>& lines, const std::vector<int>& rhymeLines,
                 const RhymeTable& rhymes, Judge& judge) {
    const auto lastOf = [&](int i) { return lines[static_cast<std::size_t>(i)].chars.back(); };
    const auto lastPos = [&](int i) {
        return static_cast<int>(lines[static_cast<std::size_t>(i)].chars.size()) - 1;
    };
    // The group most rhyme characters share (on a tie, the first even line's) is the poem's rhyme.
    std::map<int, int> votes;
    int known = 0;
    for (const int i : rhymeLines) {
        const auto& groups = rhymes.groupsOf(lastOf(i));
        known += groups.empty() ? 0 : 1;
        for (const int g : groups) ++votes[g];
    }
    if (known >= 2) {
        int best = -1, bestVotes = 0;
        for (const int i : rhymeLines) {  // two known rhymes include an even line's: best is found
            if (i == 0) continue;
            for (const int g : rhymes.groupsOf(lastOf(i))) {
                if (votes[g] > bestVotes) best = g, bestVotes = votes[g];
            }
        }
        char32_t example = 0;
        for (const int i : rhymeLines) {
            const auto& groups = rhymes.groupsOf(lastOf(i));
            if (std::find(groups.begin(), groups.end(), best) != groups.end()) {
                example = lastOf(i);
                break;
            }
        }
        for (const int i : rhymeLines) {
            const auto& groups = rhymes.groupsOf(lastOf(i));
            if (groups.empty()) continue;
            judge.judge(std::find(groups.begin(), groups.end(), best) != groups.end(), VerseRule::Rhyme, i,
                        lastPos(i), lastOf(i),
                        quoted(lastOf(i)) + " does not rhyme with " + quoted(example) + " (rhyme group " +
                            rhymes.groupName(best) + ")");
        }
    }
    for (std::size_t a = 0; a < rhymeLines.size(); ++a) {  // 重韵
        const int i = rhymeLines[a];
        bool repeated = false;
        int first = 0;
        for (std::size_t b = 0; b < a && !repeated; ++b) {
            if (lastOf(rhymeLines[b]) == lastOf(i)) repeated = true, first = rhymeLines[b];
        }
        if (a > 0) {
            judge.judge(!repeated, VerseRule::RepeatedRhyme, i, lastPos(i), lastOf(i),
                        quoted(lastOf(i)) + " already rhymes line " + nth(first) + "; a rhyme is used once");
        }
    }
}

}  // namespace

VerseReport VerseChecker::check(std::string_view text) const {
    const std::vector<PoemLine> lines = splitLines(text);
    VerseReport report;
    Judge judge(report);
    for (const auto& line : lines) report.lines.push_back(encodeUtf8(line.chars));

    const int length = checkForm(lines, judge, report);
    checkTones(lines, length, m_tones, judge);
    checkTail(lines, m_tones, judge);
    checkRhymes(lines, rhymeLinesOf(lines, m_tones, judge), m_rhymes, judge);
    if (!m_knownLines.empty()) {
        for (int i = 0; i < static_cast<int>(lines.size()); ++i) {
            judge.judge(m_knownLines.count(report.lines[static_cast<std::size_t>(i)]) == 0,
                        VerseRule::Novelty, i, -1, 0, "line " + nth(i) + " is copied from the corpus");
        }
    }

    std::stable_sort(report.violations.begin(), report.violations.end(),
                     [](const VerseViolation& a, const VerseViolation& b) {
                         return a.line != b.line ? a.line < b.line : a.position < b.position;
                     });
    int checks = 0, failed = 0;
    for (const auto& r : report.rules) checks += r.checks, failed += r.violations;
    report.score = checks > 0 ? static_cast<double>(checks - failed) / checks : 0.0;
    report.passed = report.form != VerseForm::Unknown && failed == 0;
    return report;
}

namespace {

// The text of a corpus's first 200 documents: enough to tell its language and script.
std::u32string opening(const Corpus& corpus) {
    std::u32string text;
    for (std::size_t d = 0; d < corpus.documents.size() && d < 200; ++d)
        text += decodeUtf8(corpus.documents[d].text, corpus.source);
    return text;
}

// Mostly Chinese characters, punctuation and blanks aside.
bool isChinese(std::u32string_view text) {
    std::int64_t han = 0, other = 0;
    for (const char32_t c : text) {
        if (isHanCharacter(c))
            ++han;
        else if (!isLineMark(c) && !isBlank(c) && c != U'\n')
            ++other;
    }
    return han > 0 && han >= 4 * other;
}

}  // namespace

std::filesystem::path sharedVerseTablesDir() {
    return std::filesystem::path(corporaCacheDir()) / "verse-tables";
}

std::optional<VerseChecker> verseCheckerForCorpus(const std::string& corpusPathOrName, const Corpus* loaded) {
    std::string path;
    try {
        path = resolveCorpusPath(corpusPathOrName);
    } catch (const InputError&) {
        return std::nullopt;  // a corpus this machine does not have: nothing to check against
    }
    std::error_code ec;
    const std::filesystem::path folder = std::filesystem::is_directory(path, ec)
                                             ? std::filesystem::path(path)
                                             : std::filesystem::path(path).parent_path();
    const auto hasTables = [&](const std::filesystem::path& dir) {
        return std::filesystem::is_regular_file(dir / "tones.json", ec) &&
               std::filesystem::is_regular_file(dir / "rhymes.json", ec);
    };
    // Its own tables (a prepared Tang corpus's), else the cache's shared ones for any Chinese poem corpus.
    const bool own = hasTables(folder);
    const std::filesystem::path shared = sharedVerseTablesDir();
    if (!own && (detectCorpusFormat(path) != CorpusFormat::Poems || !hasTables(shared))) return std::nullopt;
    const Corpus read = loaded ? Corpus{} : loadCorpus(path);
    const Corpus& corpus = loaded ? *loaded : read;
    const std::u32string sample = opening(corpus);
    if (!own && (corpus.format != CorpusFormat::Poems || !isChinese(sample))) return std::nullopt;
    const std::filesystem::path dir = own ? folder : shared;
    VerseChecker checker(ToneTable::load(dir / "tones.json"), RhymeTable::load(dir / "rhymes.json"));
    checker.preferTraditional(checker.tones().looksTraditional(sample));
    checker.setTablesSource(dir.string());
    std::unordered_set<std::string> known;
    for (const auto& document : corpus.documents)
        for (auto& line : verseLines(document.text)) known.insert(std::move(line));
    checker.setKnownLines(std::move(known));
    return checker;
}

const char* verseRuleLabel(VerseRule rule) {
    switch (rule) {
        case VerseRule::Form:
            return "form";
        case VerseRule::Alternation:
            return "二四六分明";
        case VerseRule::Opposition:
            return "对";
        case VerseRule::Adhesion:
            return "粘";
        case VerseRule::LoneLevel:
            return "孤平";
        case VerseRule::LevelTail:
            return "三平尾";
        case VerseRule::RhymeTone:
            return "平收";
        case VerseRule::Rhyme:
            return "押韵";
        case VerseRule::RepeatedRhyme:
            return "重韵";
        case VerseRule::Novelty:
            return "novelty";
    }
    return "?";
}

std::string verseSummary(const VerseReport& report) {
    std::string out = verseFormName(report.form);
    if (report.form == VerseForm::Unknown) return out;
    if (report.passed) return out + " · passes every rule";
    char share[32];
    std::snprintf(share, sizeof share, " · %.0f %% of checks · breaks ", 100 * report.score);
    out += share;
    bool first = true;
    for (const auto& rule : report.rules) {
        if (rule.passed()) continue;
        out += first ? "" : ", ";
        out += verseRuleLabel(rule.rule);
        if (rule.violations > 1) out += " ×" + std::to_string(rule.violations);
        first = false;
    }
    return out;
}

}  // namespace wb
