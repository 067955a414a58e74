// Strict meter (workbench/domain/Meter.h). The standard patterns are generated from the rules the checker
// judges, not stored: the tone of position 2 of each line follows from line 1's (对 within a couplet, 粘
// between couplets), positions 4 and 6 alternate with it (二四六分明), even lines end on the rhyme, odd lines
// on an oblique tone except a rhymed first line. The textbook's four patterns of each length come out of it
// (tests/core/verse/MeterTest.cpp writes them down and compares).
#include "workbench/domain/Meter.h"

#include <algorithm>
#include <stdexcept>

#include "workbench/domain/Errors.h"
#include "workbench/domain/Utf8.h"

namespace wb {

std::string toString(MeterPattern pattern) {
    switch (pattern) {
        case MeterPattern::Auto:
            return "auto";
        case MeterPattern::LevelStart:
            return "level-start";
        case MeterPattern::ObliqueStart:
            return "oblique-start";
        case MeterPattern::LevelStartRhymed:
            return "level-start-rhymed";
        case MeterPattern::ObliqueStartRhymed:
            return "oblique-start-rhymed";
    }
    return "auto";
}

MeterPattern meterPatternFromString(const std::string& s) {
    if (s == toString(MeterPattern::Auto)) return MeterPattern::Auto;
    for (const MeterPattern p : kMeterPatterns)
        if (s == toString(p)) return p;
    throw InputError(
        "pattern '" + s +
        "': expected auto, level-start, oblique-start, level-start-rhymed or oblique-start-rhymed");
}

const char* meterPatternLabel(MeterPattern pattern) {
    switch (pattern) {
        case MeterPattern::Auto:
            return "auto";
        case MeterPattern::LevelStart:
            return "平起首句不入韵";
        case MeterPattern::ObliqueStart:
            return "仄起首句不入韵";
        case MeterPattern::LevelStartRhymed:
            return "平起首句入韵";
        case MeterPattern::ObliqueStartRhymed:
            return "仄起首句入韵";
    }
    return "auto";
}

const char* meterPatternGloss(MeterPattern pattern) {
    switch (pattern) {
        case MeterPattern::Auto:
            return "any pattern the seed fits";
        case MeterPattern::LevelStart:
            return "level-tone start, first line unrhymed";
        case MeterPattern::ObliqueStart:
            return "oblique-tone start, first line unrhymed";
        case MeterPattern::LevelStartRhymed:
            return "level-tone start, first line rhymed";
        case MeterPattern::ObliqueStartRhymed:
            return "oblique-tone start, first line rhymed";
    }
    return "any pattern the seed fits";
}

namespace {

bool levelStart(MeterPattern p) {
    return p == MeterPattern::LevelStart || p == MeterPattern::LevelStartRhymed;
}
bool firstLineRhymes(MeterPattern p) {
    return p == MeterPattern::LevelStartRhymed || p == MeterPattern::ObliqueStartRhymed;
}

}  // namespace

MeterSlot meterSlot(MeterPattern pattern, int lineChars, int line, int position) {
    if (pattern == MeterPattern::Auto) throw std::logic_error("meterSlot: choose a pattern first");
    if (position == lineChars - 1) {
        if (line % 2 == 1 || (line == 0 && firstLineRhymes(pattern))) return MeterSlot::Rhyme;
        return MeterSlot::Oblique;
    }
    if (position % 2 == 0) return MeterSlot::Free;  // positions 1, 3, 5 (0-based 0, 2, 4)
    // Position 2's tone: line 1's, then opposite within a couplet and the same across couplets (粘):
    // lines 1..8 have T, !T, !T, T, T, !T, !T, T.
    const bool sameAsFirst = line % 4 == 0 || line % 4 == 3;
    bool level = levelStart(pattern) == sameAsFirst;
    if (position == 3) level = !level;  // 二四六分明: positions 2, 4, 6 alternate
    return level ? MeterSlot::Level : MeterSlot::Oblique;
}

std::string meterLineText(MeterPattern pattern, int lineChars, int line) {
    std::string out;
    for (int p = 0; p < lineChars; ++p) {
        switch (meterSlot(pattern, lineChars, line, p)) {
            case MeterSlot::Free:
                out += "○";
                break;
            case MeterSlot::Level:
            case MeterSlot::Rhyme:
                out += "平";
                break;
            case MeterSlot::Oblique:
                out += "仄";
                break;
        }
    }
    return out;
}

PoemMeter::PoemMeter(const VerseChecker& verse, std::vector<char32_t> tokenChars, int lines, int lineChars)
    : m_verse(verse), m_chars(std::move(tokenChars)), m_lines(lines), m_lineChars(lineChars) {
    if ((lines != 4 && lines != 8) || (lineChars != 5 && lineChars != 7))
        throw std::logic_error("PoemMeter: a poem has 4 or 8 lines of 5 or 7 characters");
    // What each token fits, looked up once: a poem asks it at every position.
    m_groupSize.assign(verse.rhymes().groupCount(), 0);
    for (auto& mask : m_fits) mask.assign(m_chars.size(), 0);
    for (std::size_t t = 0; t < m_chars.size(); ++t) {
        const char32_t c = m_chars[t];
        if (!c) continue;
        for (const MeterSlot slot : {MeterSlot::Free, MeterSlot::Level, MeterSlot::Oblique, MeterSlot::Rhyme})
            m_fits[static_cast<std::size_t>(slot)][t] = toneFits(c, slot) ? 1 : 0;
        if (m_fits[static_cast<std::size_t>(MeterSlot::Rhyme)][t] && !verse.rhymes().groupsOf(c).empty()) {
            m_rhymeTokens.push_back(static_cast<std::int64_t>(t));
            for (const int g : verse.rhymes().groupsOf(c)) ++m_groupSize[static_cast<std::size_t>(g)];
        }
    }
    const auto any = [](const std::vector<char>& mask) {
        return std::find(mask.begin(), mask.end(), 1) != mask.end();
    };
    const bool level = any(m_fits[static_cast<std::size_t>(MeterSlot::Level)]);
    if (!level || !any(m_fits[static_cast<std::size_t>(MeterSlot::Oblique)]))
        throw InputError(std::string("strict meter: the tone table knows no ") +
                         (level ? "oblique" : "level") + " character of this model's vocabulary");
    const int needed = rhymeCount(MeterPattern::LevelStart);  // the fewest any pattern needs
    if (std::none_of(m_groupSize.begin(), m_groupSize.end(), [&](int n) { return n >= needed; }))
        throw InputError("strict meter: no rhyme group has " + std::to_string(needed) +
                         " level characters in this model's vocabulary");
}

int PoemMeter::rhymeCount(MeterPattern pattern) const {
    return m_lines / 2 + (firstLineRhymes(pattern) ? 1 : 0);
}

bool PoemMeter::usable(MeterPattern pattern) const {
    const int needed = rhymeCount(pattern);
    return std::any_of(m_groupSize.begin(), m_groupSize.end(), [&](int n) { return n >= needed; });
}

PoemMeter::State PoemMeter::start(MeterPattern pattern) const {
    if (pattern == MeterPattern::Auto) throw std::logic_error("PoemMeter::start: choose a pattern first");
    State s;
    s.pattern = pattern;
    return s;
}

bool PoemMeter::toneFits(char32_t c, MeterSlot slot) const {
    const Tone t = m_verse.tones().tone(c);
    switch (slot) {
        case MeterSlot::Free:
            return true;
        case MeterSlot::Level:
        case MeterSlot::Rhyme:
            return t == Tone::Level;
        case MeterSlot::Oblique:
            return t == Tone::Oblique;
    }
    return false;
}

MeterSlot PoemMeter::slotAt(const State& state, int line, int position) const {
    const MeterSlot slot = meterSlot(state.pattern, m_lineChars, line, position);
    const int tail = m_lineChars - 5;  // where the last five characters begin
    if (position != tail + 2 ||
        meterSlot(state.pattern, m_lineChars, line, m_lineChars - 1) != MeterSlot::Rhyme)
        return slot;
    if (meterSlot(state.pattern, m_lineChars, line, tail + 3) == MeterSlot::Level)
        return MeterSlot::Oblique;  // …平平 at the end: the third from last must not be level too (三平尾)
    // 平平仄仄平: with an oblique (or split) first, the third must be level, or the second is alone (孤平).
    const bool firstLevel = static_cast<int>(state.line.size()) > tail &&
                            m_verse.tones().tone(state.line[static_cast<std::size_t>(tail)]) == Tone::Level;
    return firstLevel ? slot : MeterSlot::Level;
}

std::vector<int> PoemMeter::usableGroups(char32_t c, MeterPattern pattern) const {
    std::vector<int> out;
    const int needed = rhymeCount(pattern);
    for (const int g : m_verse.rhymes().groupsOf(c))
        if (m_groupSize[static_cast<std::size_t>(g)] >= needed) out.push_back(g);
    return out;
}

bool PoemMeter::allowed(const State& state, int line, int position, std::int64_t token) const {
    if (token < 0 || static_cast<std::size_t>(token) >= m_chars.size()) return false;
    const MeterSlot slot = slotAt(state, line, position);
    if (!m_fits[static_cast<std::size_t>(slot)][static_cast<std::size_t>(token)]) return false;
    if (slot != MeterSlot::Rhyme) return true;
    const char32_t c = m_chars[static_cast<std::size_t>(token)];
    if (std::find(state.rhymes.begin(), state.rhymes.end(), c) != state.rhymes.end()) return false;  // 重韵
    const auto groups = usableGroups(c, state.pattern);
    if (state.rhymes.empty()) return !groups.empty();
    // Every group a usable one has enough characters for the rhymes still to come, so a poem whose rhymes
    // keep a common group never runs out of them.
    return std::any_of(groups.begin(), groups.end(), [&](int g) {
        return std::find(state.groups.begin(), state.groups.end(), g) != state.groups.end();
    });
}

bool PoemMeter::allowedTokens(const State& state, int line, int position, std::vector<char>& mask) const {
    const MeterSlot slot = slotAt(state, line, position);
    if (slot != MeterSlot::Rhyme) {
        mask = m_fits[static_cast<std::size_t>(slot)];
    } else {
        mask.assign(m_chars.size(), 0);
        for (const auto t : m_rhymeTokens)
            mask[static_cast<std::size_t>(t)] = allowed(state, line, position, t) ? 1 : 0;
    }
    return std::find(mask.begin(), mask.end(), 1) != mask.end();
}

void PoemMeter::choose(State& state, int line, int position, std::int64_t token) const {
    const char32_t c = m_chars.at(static_cast<std::size_t>(token));
    if (position == 0) state.line.clear();
    state.line.push_back(c);
    if (meterSlot(state.pattern, m_lineChars, line, position) != MeterSlot::Rhyme) return;
    auto groups = usableGroups(c, state.pattern);
    if (!state.rhymes.empty()) {
        groups.erase(std::remove_if(groups.begin(), groups.end(),
                                    [&](int g) {
                                        return std::find(state.groups.begin(), state.groups.end(), g) ==
                                               state.groups.end();
                                    }),
                     groups.end());
    }
    state.groups = std::move(groups);
    state.rhymes.push_back(c);
}

std::string PoemMeter::whyNot(MeterPattern pattern, const std::u32string& firstLine) const {
    if (!usable(pattern))
        return std::string(meterPatternLabel(pattern)) + " needs a rhyme group of " +
               std::to_string(rhymeCount(pattern)) + " level characters in the vocabulary";
    if (static_cast<int>(firstLine.size()) > m_lineChars)
        return "the seed text is longer than a line (" + std::to_string(m_lineChars) + " characters)";
    State s = start(pattern);
    for (std::size_t i = 0; i < firstLine.size(); ++i) {
        const int pos = static_cast<int>(i);
        const auto token = std::find(m_chars.begin(), m_chars.end(), firstLine[i]) - m_chars.begin();
        if (allowed(s, 0, pos, token)) {
            choose(s, 0, pos, token);
            continue;
        }
        const MeterSlot slot = slotAt(s, 0, pos);
        const Tone t = m_verse.tones().tone(firstLine[i]);
        std::string wants = slot == MeterSlot::Rhyme   ? "a level rhyme character"
                            : slot == MeterSlot::Level ? "a level tone"
                                                       : "an oblique tone";
        if (slot != MeterSlot::Free && meterSlot(pattern, m_lineChars, 0, pos) == MeterSlot::Free)
            wants += slot == MeterSlot::Level ? " (孤平)" : " (三平尾)";
        std::string is = t == Tone::Unknown   ? "of unknown tone"
                         : t == Tone::Either  ? "read both ways"
                         : t == Tone::Oblique ? "oblique"
                                              : "level";
        if (slot == MeterSlot::Rhyme && t == Tone::Level) is = "in no rhyme group with enough characters";
        return std::string(meterPatternLabel(pattern)) + " wants " + wants + " at position " +
               std::to_string(pos + 1) + ", and '" + encodeUtf8(firstLine[i]) + "' is " + is;
    }
    return {};
}

}  // namespace wb
