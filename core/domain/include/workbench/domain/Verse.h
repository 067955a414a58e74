// Does a Chinese poem scan and rhyme? Checks a quatrain (五绝, 七绝) or a regulated verse (五律, 七律)
// against the rules of Tang regulated verse, with the tone and rhyme tables that datasets/prepare.py writes
// beside a Tang corpus (tones.json, rhymes.json; docs/verse.md says where they come from and how well they
// work). Plain C++, no LibTorch: part of workbench_domain.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace wb {

struct Corpus;

// Unknown: the table has no reading of the character. Either: its readings are genuinely split (看, 过, 长:
// two readings in common use); neither Unknown nor Either ever counts against a poem.
enum class Tone { Unknown, Level, Oblique, Either };

// tones.json: per character, how often the Tang poems read it level (平), oblique (仄) or either (○).
class ToneTable {
public:
    struct Counts {
        std::int64_t level = 0, oblique = 0, either = 0;
    };
    // A character has a tone (its dominant reading) when at least this share of its level and oblique
    // marks agree; otherwise it is Either. The ○ marks say the package left the place open, nothing about
    // the character, so they are not counted. Why four fifths (docs/verse.md, "Which reading is a
    // character's"): the marks are noisy (三 and 深, read one way in the rhyme books, get 16 to 24 % of
    // opposite marks), so no share separates one-reading characters from two-reading ones cleanly; between
    // 0.7 and 0.9 the real quatrains' pass rate moves by under 5 points while the ambiguous share at judged
    // positions goes from 2 % to 7 %; 0.8 is the rule an independent reader applied (issue #34), so that
    // the checker and that reader agree on every character either calls decided.
    static constexpr double kDominantShare = 0.8;

    // Throw InputError naming the file (and the line of a JSON syntax error) when it is not a tone table.
    static ToneTable load(const std::filesystem::path& path);
    static ToneTable parse(const std::string& text, const std::string& sourceName);

    // The counts of the corpus's own script first (simplified unless preferTraditional), else the other's;
    // Unknown when neither has it.
    Tone tone(char32_t character) const;
    const Counts* counts(char32_t character) const;
    // How decided a character is: the share of its level and oblique marks that its commoner reading has
    // (0.5 to 1), or 0 when it has none.
    double dominantShare(char32_t character) const;
    std::size_t size() const { return m_traditional.size() + m_simplified.size(); }
    // For a corpus in traditional characters: characters written alike in both scripts are then read with
    // the traditional counts (those of the same character in traditional texts).
    void preferTraditional(bool traditional) { m_preferTraditional = traditional; }
    bool prefersTraditional() const { return m_preferTraditional; }
    // Whether a text is in traditional characters: more of its characters are in the traditional counts
    // only than in the simplified counts only.
    bool looksTraditional(std::u32string_view text) const;

private:
    std::unordered_map<char32_t, Counts> m_traditional, m_simplified;
    bool m_preferTraditional = false;
};

// rhymes.json: groups of characters that rhyme with each other in Tang verse (level rhymes only).
class RhymeTable {
public:
    static RhymeTable load(const std::filesystem::path& path);
    static RhymeTable parse(const std::string& text, const std::string& sourceName);

    // The groups a character belongs to (a character with two readings can be in two); empty when unknown.
    const std::vector<int>& groupsOf(char32_t character) const;
    // False when either character is in no group: unknown is never "does not rhyme".
    bool rhymes(char32_t a, char32_t b) const;
    const std::string& groupName(int group) const { return m_names.at(static_cast<std::size_t>(group)); }
    std::size_t groupCount() const { return m_names.size(); }

private:
    std::unordered_map<char32_t, std::vector<int>> m_groups;
    std::vector<std::string> m_names;
};

enum class VerseForm { Unknown, Quatrain5, Quatrain7, Regulated5, Regulated7 };
// "五绝", "七绝", "五律", "七律", or "unknown form".
const char* verseFormName(VerseForm form);

enum class VerseRule {
    Form,         // 4 or 8 lines of 5 or 7 Chinese characters, "，" after odd lines, "。" after even ones
    Alternation,  // 二四六分明: positions 2, 4 (and 6) of a line alternate level and oblique
    Opposition,   // 对: the two lines of a couplet have opposite tones at positions 2, 4 (and 6)
    Adhesion,   // 粘: a couplet's first line has the tone of the previous couplet's last line at position 2
    LoneLevel,  // 孤平: a line whose last five go 平平仄仄平 does not turn both its 1st and 3rd oblique
    LevelTail,      // 三平尾: a line does not end on three level tones
    RhymeTone,      // even lines end on a level tone
    Rhyme,          // even lines (and line 1 when it ends level) end in characters of one rhyme group
    RepeatedRhyme,  // no rhyme character used twice
    Novelty,        // no line copied from the known lines (the training corpus)
};
inline constexpr int kVerseRuleCount = 10;
// "form", "alternation", "opposition", "adhesion", "lone-level", "level-tail", "rhyme-tone", "rhyme",
// "repeated-rhyme", "novelty".
const char* verseRuleName(VerseRule rule);

struct VerseViolation {
    int line = 0;       // 0-based
    int position = -1;  // 0-based character of the line (punctuation not counted); -1: the whole line/poem
    VerseRule rule = VerseRule::Form;
    std::string character;    // UTF-8, empty when position is -1
    std::string explanation;  // one short English sentence
};

struct VerseRuleResult {
    VerseRule rule = VerseRule::Form;
    int checks = 0;      // what could be judged (unknown and either tones are not judged)
    int violations = 0;  // of those checks
    bool passed() const { return violations == 0; }
};

struct VerseReport {
    VerseForm form = VerseForm::Unknown;
    std::vector<std::string> lines;          // UTF-8, without punctuation
    std::vector<VerseRuleResult> rules;      // one per VerseRule, in its order
    std::vector<VerseViolation> violations;  // by line, then position
    bool passed = false;                     // a known form and no violation
    double score = 0;                        // share of all checks passed, 0..1

    const VerseRuleResult& result(VerseRule rule) const { return rules.at(static_cast<std::size_t>(rule)); }
};

class VerseChecker {
public:
    VerseChecker(ToneTable tones, RhymeTable rhymes);
    // Lines of the training corpus (UTF-8, without punctuation, as verseLines() gives them): a poem line
    // equal to one of them breaks Novelty. Without any, Novelty is not judged.
    void setKnownLines(std::unordered_set<std::string> lines) { m_knownLines = std::move(lines); }
    bool isKnownLine(const std::string& line) const { return m_knownLines.count(line) > 0; }

    // text: the poem in UTF-8, lines ended by punctuation and/or newlines. Throws InputError on bad UTF-8.
    VerseReport check(std::string_view text) const;

    const ToneTable& tones() const { return m_tones; }
    void preferTraditional(bool traditional) { m_tones.preferTraditional(traditional); }
    // Where the tables came from (their folder), for messages; "" when made in memory.
    const std::string& tablesSource() const { return m_tablesSource; }
    void setTablesSource(std::string folder) { m_tablesSource = std::move(folder); }
    const RhymeTable& rhymes() const { return m_rhymes; }

private:
    ToneTable m_tones;
    RhymeTable m_rhymes;
    std::unordered_set<std::string> m_knownLines;
    std::string m_tablesSource;
};

// The lines of a poem or of a corpus document, as the checker splits them: at Chinese or Latin sentence
// punctuation and at line breaks, whitespace dropped, punctuation not kept.
std::vector<std::string> verseLines(std::string_view text);

// Where each character of a poem's text sits for the checker: for the i-th code point of `text`, its line
// and position as in VerseViolation, or {-1, -1} for punctuation, blanks and line breaks. The app uses it to
// mark the characters a rule names.
struct VerseSpot {
    int line = -1, position = -1;
};
std::vector<VerseSpot> verseSpots(std::string_view text);

// The checker of a corpus, given as a run's config names it (a path, or a prepared corpus's name): the tone
// and rhyme tables datasets/prepare.py wrote beside it (a Tang corpus), else, for any corpus of Chinese
// poems (poems JSON), the corpus cache's shared tables (sharedVerseTablesDir(), written whenever a Tang
// corpus is prepared), read in the corpus's script (simplified or traditional, detected); every line of its
// documents are the known lines. nullopt when there are no tables for it; InputError when they are there
// but unreadable. `loaded`: the corpus when the caller has it in memory already (a training run), so it is
// not read again for its lines.
std::optional<VerseChecker> verseCheckerForCorpus(const std::string& corpusPathOrName,
                                                  const Corpus* loaded = nullptr);
// <corpus cache>/verse-tables: tones.json and rhymes.json for every Chinese poem corpus.
std::filesystem::path sharedVerseTablesDir();

// Where the generated poem's rules stand, in one line: "七绝 · passes every rule" or
// "七绝 · 86 % of checks · breaks 对 ×2, rhyme". Names the rules in Chinese where verse has a name for them.
std::string verseSummary(const VerseReport& report);  // "五绝 · 75 % of checks · breaks 对 (…) ×2"
// A rule's name as a reader of verse knows it: "二四六分明", "对", "粘", "孤平", "三平尾", "平收", "押韵",
// "重韵", "novelty".
const char* verseRuleLabel(VerseRule rule);
// What the rule asks, in plain English, for a reader who does not know the term: "characters 2, 4 and 6
// alternate in tone" for 二四六分明; "" for the rules whose label is English already.
const char* verseRuleMeaning(VerseRule rule);

}  // namespace wb
