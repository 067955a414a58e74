// Strict meter: which characters a poem may have at each position so that it follows one of the standard
// tonal patterns of Tang regulated verse and rhymes in one rhyme group. A poem built from allowed characters
// (and with no line copied from the corpus, which generation checks line by line) passes VerseChecker by
// construction. Plain C++, no LibTorch: part of workbench_domain. docs/verse.md explains the patterns.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "workbench/domain/Verse.h"

namespace wb {

// The four standard patterns of 五绝/七绝 (and, continued couplet by couplet, of 五律/七律): 平起 or 仄起 is
// the tone of line 1's second character, 首句入韵 whether line 1 ends on the rhyme too. Auto: a pattern the
// seed text fits, drawn at random for each poem.
enum class MeterPattern { Auto, LevelStart, ObliqueStart, LevelStartRhymed, ObliqueStartRhymed };
// "auto", "level-start", "oblique-start", "level-start-rhymed", "oblique-start-rhymed".
std::string toString(MeterPattern pattern);
MeterPattern meterPatternFromString(const std::string& s);  // throws InputError naming the choices
// "平起首句不入韵", "仄起首句不入韵", "平起首句入韵", "仄起首句入韵" ("auto" for Auto).
const char* meterPatternLabel(MeterPattern pattern);
// The same in English, for readers without Chinese: "oblique start, first line unrhymed", ... ("any pattern
// the seed fits" for Auto).
const char* meterPatternGloss(MeterPattern pattern);
inline constexpr MeterPattern kMeterPatterns[] = {MeterPattern::LevelStart, MeterPattern::ObliqueStart,
                                                  MeterPattern::LevelStartRhymed,
                                                  MeterPattern::ObliqueStartRhymed};

// What a pattern asks of one position. Free: any character (一三五不论: positions 1, 3 and 5 and the
// other unjudged ones); Level/Oblique: a character whose dominant reading has that tone (never one whose
// readings are split, so that no reader can hear it the other way); Rhyme: a level character of the poem's
// rhyme group, not used before as a rhyme.
enum class MeterSlot { Free, Level, Oblique, Rhyme };
// line and position 0-based; lineChars 5 or 7. The pattern must not be Auto.
MeterSlot meterSlot(MeterPattern pattern, int lineChars, int line, int position);
// The pattern of one line as a reader writes it: "仄仄平平仄仄平" with ○ for a free position and the
// rhyme marked as 平.
std::string meterLineText(MeterPattern pattern, int lineChars, int line);

// Chooses characters under a pattern for one poem form, over the characters a model can write.
class PoemMeter {
public:
    // tokenChars: per token id, its character when the token is one Chinese character, else 0 (never
    // allowed). lines: 4 or 8; lineChars: 5 or 7. Throws InputError when the tables and the vocabulary
    // cannot make such a poem at all (no character of a tone, no rhyme group with enough characters).
    PoemMeter(const VerseChecker& verse, std::vector<char32_t> tokenChars, int lines, int lineChars);

    // Where a poem stands: its pattern and what its rhymes so far have fixed.
    struct State {
        MeterPattern pattern = MeterPattern::LevelStartRhymed;
        std::vector<int> groups;       // rhyme groups every rhyme so far shares (empty before the first)
        std::vector<char32_t> rhymes;  // rhyme characters used so far
        std::u32string line;           // the characters of the line being written, so far
    };
    State start(MeterPattern pattern) const;  // pattern: not Auto

    bool allowed(const State& state, int line, int position, std::int64_t token) const;
    // Marks every allowed token in `mask` (resized to the vocabulary); false when none is allowed.
    bool allowedTokens(const State& state, int line, int position, std::vector<char>& mask) const;
    // What a position asks once the line so far is known: meterSlot's, except the third character of a
    // line's last five, free in the pattern, which must be oblique where the line would otherwise end on
    // three level tones (三平尾), and level where the first of the five is not (孤平).
    MeterSlot slotAt(const State& state, int line, int position) const;
    // Records the token chosen at a position (it must be allowed).
    void choose(State& state, int line, int position, std::int64_t token) const;

    // Why a pattern cannot start with the given characters of line 1 (a seed text: position i holds
    // firstLine[i]), in one sentence naming the character and what the position wants; empty when it can.
    std::string whyNot(MeterPattern pattern, const std::u32string& firstLine) const;

    // How many rhymes a poem of this form has under the pattern (2 or 3 in a quatrain, 4 or 5 in eight
    // lines), and so how many characters a rhyme group needs in the vocabulary to be usable.
    int rhymeCount(MeterPattern pattern) const;
    // Whether some rhyme group has rhymeCount(pattern) characters for the rhymes.
    bool usable(MeterPattern pattern) const;
    const VerseChecker& verse() const { return m_verse; }

private:
    bool toneFits(char32_t c, MeterSlot slot) const;
    // The groups of c that have enough rhyme characters in the vocabulary for this pattern.
    std::vector<int> usableGroups(char32_t c, MeterPattern pattern) const;

    const VerseChecker& m_verse;
    std::vector<char32_t> m_chars;
    int m_lines, m_lineChars;
    // Per rhyme group, how many vocabulary characters can rhyme in it (level or both ways).
    std::vector<int> m_groupSize;
    std::array<std::vector<char>, 4> m_fits;  // per MeterSlot, per token: its tone fits the slot
    std::vector<std::int64_t> m_rhymeTokens;  // tokens that fit a rhyme slot and are in some group
};

}  // namespace wb
