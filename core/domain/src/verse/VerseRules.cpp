// The verse checker's rules (workbench/domain/Verse.h): the form, the tonal rules (二四六分明, 对, 粘), the
// tail (孤平, 三平尾), the rhymes (押韵, 重韵) and novelty, each judged only where the tables know the
// characters.
#include <algorithm>
#include <map>

#include "verse/PoemLines.h"
#include "workbench/domain/Utf8.h"
#include "workbench/domain/Verse.h"

namespace wb {

using detail::PoemLine;
using detail::quoted;
using detail::splitLines;

VerseChecker::VerseChecker(ToneTable tones, RhymeTable rhymes)
    : m_tones(std::move(tones)), m_rhymes(std::move(rhymes)) {}

namespace {

bool decided(Tone t) { return t == Tone::Level || t == Tone::Oblique; }

const char* toneWord(Tone t) { return t == Tone::Level ? "level" : "oblique"; }

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

std::string nth(int zeroBased) { return std::to_string(zeroBased + 1); }

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

}  // namespace wb
