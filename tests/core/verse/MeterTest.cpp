// Strict meter without a model: the patterns it derives are the textbook's, the characters it allows follow
// them and keep one rhyme group, and poems drawn at random from what it allows pass the verse checker (an
// independent judge of the same rules) for every form and pattern.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "workbench/domain/Errors.h"
#include "workbench/domain/Meter.h"
#include "workbench/domain/Utf8.h"
#include "workbench/domain/Verse.h"

using namespace wb;

namespace {

// The standard patterns as verse handbooks print them (一三五不论 leaves positions 1, 3, 5 free, which
// meterLineText writes as ○).
struct Textbook {
    MeterPattern pattern;
    int lineChars;
    std::vector<std::string> lines;
};
const Textbook kTextbook[] = {
    {MeterPattern::LevelStartRhymed,
     7,
     {"平平仄仄仄平平", "仄仄平平仄仄平", "仄仄平平平仄仄", "平平仄仄仄平平"}},
    {MeterPattern::ObliqueStartRhymed,
     7,
     {"仄仄平平仄仄平", "平平仄仄仄平平", "平平仄仄平平仄", "仄仄平平仄仄平"}},
    {MeterPattern::LevelStart, 7, {"平平仄仄平平仄", "仄仄平平仄仄平", "仄仄平平平仄仄", "平平仄仄仄平平"}},
    {MeterPattern::ObliqueStart, 7, {"仄仄平平平仄仄", "平平仄仄仄平平", "平平仄仄平平仄", "仄仄平平仄仄平"}},
    {MeterPattern::LevelStart, 5, {"平平平仄仄", "仄仄仄平平", "仄仄平平仄", "平平仄仄平"}},
    {MeterPattern::ObliqueStart, 5, {"仄仄平平仄", "平平仄仄平", "平平平仄仄", "仄仄仄平平"}},
    {MeterPattern::LevelStartRhymed, 5, {"平平仄仄平", "仄仄仄平平", "仄仄平平仄", "平平仄仄平"}},
    {MeterPattern::ObliqueStartRhymed, 5, {"仄仄仄平平", "平平仄仄平", "平平平仄仄", "仄仄仄平平"}},
};

// A small world of characters: level, oblique, read both ways, unknown; rhyme groups 東 (5 characters, 中
// also in 江), 江 (3) and 支 (2: too few for any pattern).
const std::string kWorldLevel = "東風中紅空江窗雙支詩春人山天花";
const std::string kWorldOblique = "月水夜日雨雪落去不白";
const std::string kWorldEither = "看思";

std::string worldCounts(const std::string& chars, const char* value) {
    std::string out;
    for (const char32_t c : decodeUtf8(chars, "test"))
        out += (out.empty() ? "" : ", ") + std::string("\"") + encodeUtf8(c) + "\": " + value;
    return out;
}

VerseChecker smallWorld() {
    const std::string tones = R"({"format": "lstm-workbench tones", "version": 1, "traditional": {)" +
                              worldCounts(kWorldLevel, "[9, 0, 0]") + ", " +
                              worldCounts(kWorldOblique, "[0, 9, 0]") + ", " +
                              worldCounts(kWorldEither, "[4, 4, 1]") + "}}";
    const std::string rhymes = R"({"format": "lstm-workbench rhymes", "version": 1, "groups": [
        {"name": "東", "traditional": "東風中紅空"}, {"name": "江", "traditional": "江窗雙中"},
        {"name": "支", "traditional": "支詩"}]})";
    return VerseChecker(ToneTable::parse(tones, "tones.json"), RhymeTable::parse(rhymes, "rhymes.json"));
}

// Token 0 stands for a special token, then every character of the world and one the tables do not know.
std::vector<char32_t> vocabulary() {
    std::vector<char32_t> out{0};
    for (const char32_t c : decodeUtf8(kWorldLevel + kWorldOblique + kWorldEither + "龘", "test"))
        out.push_back(c);
    return out;
}

std::int64_t tokenOf(char32_t c) {
    const auto v = vocabulary();
    return std::find(v.begin(), v.end(), c) - v.begin();
}

}  // namespace

TEST(Meter, ThePatternsAreTheTextbooks) {
    for (const auto& t : kTextbook) {
        SCOPED_TRACE(std::string(meterPatternLabel(t.pattern)) + " " + std::to_string(t.lineChars));
        for (int line = 0; line < 8; ++line) {
            // Eight lines repeat the quatrain's pattern, except that line 5 never rhymes: it is line 1 of
            // the unrhymed pattern of the same start.
            std::string want = t.lines[static_cast<std::size_t>(line % 4)];
            const bool level =
                t.pattern == MeterPattern::LevelStart || t.pattern == MeterPattern::LevelStartRhymed;
            if (line == 4)
                want = t.lineChars == 7 ? (level ? "平平仄仄平平仄" : "仄仄平平平仄仄")
                                        : (level ? "平平平仄仄" : "仄仄平平仄");
            const std::u32string ours = decodeUtf8(meterLineText(t.pattern, t.lineChars, line), "ours");
            const std::u32string book = decodeUtf8(want, "book");
            ASSERT_EQ(ours.size(), book.size());
            for (std::size_t p = 0; p < ours.size(); ++p)
                if (ours[p] != U'○')
                    EXPECT_EQ(ours[p], book[p]) << "line " << line + 1 << " position " << p + 1;
            // The free positions are exactly 1, 3, 5 and never the last.
            for (std::size_t p = 0; p + 1 < ours.size(); ++p) EXPECT_EQ(ours[p] == U'○', p % 2 == 0);
        }
    }
}

TEST(Meter, NamesRoundTrip) {
    for (const auto p : {MeterPattern::Auto, MeterPattern::LevelStart, MeterPattern::ObliqueStart,
                         MeterPattern::LevelStartRhymed, MeterPattern::ObliqueStartRhymed})
        EXPECT_EQ(meterPatternFromString(toString(p)), p);
    EXPECT_STREQ(meterPatternLabel(MeterPattern::ObliqueStartRhymed), "仄起首句入韵");
    EXPECT_STREQ(meterPatternGloss(MeterPattern::ObliqueStartRhymed),
                 "oblique-tone start, first line rhymed");
    EXPECT_STREQ(meterPatternGloss(MeterPattern::LevelStart), "level-tone start, first line unrhymed");
    EXPECT_THROW(meterPatternFromString("pingqi"), InputError);
}

TEST(Meter, AllowedCharactersFollowTheToneOfEachPosition) {
    const VerseChecker verse = smallWorld();
    const PoemMeter meter(verse, vocabulary(), 4, 7);
    const auto s = meter.start(MeterPattern::LevelStart);  // 平平仄仄平平仄
    EXPECT_TRUE(meter.allowed(s, 0, 0, tokenOf(U'月'))) << "position 1 is free";
    EXPECT_TRUE(meter.allowed(s, 0, 0, tokenOf(U'龘'))) << "a free position takes an unknown character";
    EXPECT_TRUE(meter.allowed(s, 0, 1, tokenOf(U'春')));
    EXPECT_FALSE(meter.allowed(s, 0, 1, tokenOf(U'月')));
    EXPECT_FALSE(meter.allowed(s, 0, 1, tokenOf(U'看'))) << "read both ways: a reader could hear either";
    EXPECT_FALSE(meter.allowed(s, 0, 3, tokenOf(U'看')));
    EXPECT_FALSE(meter.allowed(s, 0, 1, tokenOf(U'龘'))) << "unknown tone never at a judged position";
    EXPECT_TRUE(meter.allowed(s, 0, 3, tokenOf(U'月')));
    EXPECT_FALSE(meter.allowed(s, 0, 3, tokenOf(U'春')));
    EXPECT_TRUE(meter.allowed(s, 0, 6, tokenOf(U'雨'))) << "an unrhymed first line ends oblique";
    EXPECT_FALSE(meter.allowed(s, 0, 6, tokenOf(U'東')));
    EXPECT_FALSE(meter.allowed(s, 0, 0, 0)) << "not a character";
    EXPECT_FALSE(meter.allowed(s, 0, 0, 999)) << "not a token";
}

// The free third character of a rhymed line's last five: oblique before 平平 (三平尾), and level after an
// oblique or split first character in 平平仄仄平 (孤平); free otherwise.
TEST(Meter, TheThirdOfTheLastFiveAvoidsThreeLevelTonesAndALoneLevel) {
    const VerseChecker verse = smallWorld();
    const PoemMeter meter(verse, vocabulary(), 4, 5);
    auto choose = [&](PoemMeter::State& s, int line, const std::u32string& chars, int from = 0) {
        for (std::size_t i = 0; i < chars.size(); ++i) {
            const int p = from + static_cast<int>(i);
            ASSERT_TRUE(meter.allowed(s, line, p, tokenOf(chars[i]))) << encodeUtf8(chars.substr(0, i + 1));
            meter.choose(s, line, p, tokenOf(chars[i]));
        }
    };
    auto s = meter.start(MeterPattern::LevelStart);  // 平平平仄仄，仄仄仄平平。仄仄平平仄，平平仄仄平。
    choose(s, 0, U"春山天月雨");
    choose(s, 1, U"月雨");  // line 2 is ○仄○平平: position 3 before 平平 must be oblique
    EXPECT_EQ(meter.slotAt(s, 1, 2), MeterSlot::Oblique);
    EXPECT_FALSE(meter.allowed(s, 1, 2, tokenOf(U'春'))) << "三平尾";
    EXPECT_FALSE(meter.allowed(s, 1, 2, tokenOf(U'看'))) << "split: it could be heard level";
    EXPECT_TRUE(meter.allowed(s, 1, 2, tokenOf(U'落')));
    choose(s, 1, U"落山東", 2);
    choose(s, 2, U"月雨春山落");
    // Line 4 is ○平○仄平. After a level first character the third is free again.
    auto level = s;
    choose(level, 3, U"春山");
    EXPECT_EQ(meter.slotAt(level, 3, 2), MeterSlot::Free);
    EXPECT_TRUE(meter.allowed(level, 3, 2, tokenOf(U'月')));
    // After an oblique (or split, or unknown) first character it must be level.
    for (const char32_t first : {U'月', U'看', U'龘'}) {
        auto oblique = s;
        choose(oblique, 3, std::u32string{first, U'山'});
        EXPECT_EQ(meter.slotAt(oblique, 3, 2), MeterSlot::Level) << encodeUtf8(first);
        EXPECT_FALSE(meter.allowed(oblique, 3, 2, tokenOf(U'月'))) << "孤平";
        EXPECT_TRUE(meter.allowed(oblique, 3, 2, tokenOf(U'春'))) << "拗救: 仄平平仄平";
    }
    // Lines that end oblique, and positions other than the third of the five, are untouched.
    EXPECT_EQ(meter.slotAt(s, 2, 2), MeterSlot::Free);
    EXPECT_EQ(meter.slotAt(s, 3, 0), MeterSlot::Free);
}

TEST(Meter, TheFirstRhymeChoosesTheGroupAndNoRhymeRepeats) {
    const VerseChecker verse = smallWorld();
    const PoemMeter meter(verse, vocabulary(), 4, 7);
    auto s = meter.start(MeterPattern::LevelStartRhymed);  // rhymes on lines 1, 2 and 4
    EXPECT_TRUE(meter.allowed(s, 0, 6, tokenOf(U'東')));
    EXPECT_TRUE(meter.allowed(s, 0, 6, tokenOf(U'江')));
    EXPECT_FALSE(meter.allowed(s, 0, 6, tokenOf(U'詩'))) << "支 has two characters, the poem needs three";
    EXPECT_FALSE(meter.allowed(s, 0, 6, tokenOf(U'春'))) << "level, but in no rhyme group";
    EXPECT_FALSE(meter.allowed(s, 0, 6, tokenOf(U'雨'))) << "oblique";
    meter.choose(s, 0, 6, tokenOf(U'中'));  // in 東 and 江: both stay open
    EXPECT_TRUE(meter.allowed(s, 1, 6, tokenOf(U'風')));
    EXPECT_TRUE(meter.allowed(s, 1, 6, tokenOf(U'窗')));
    EXPECT_FALSE(meter.allowed(s, 1, 6, tokenOf(U'中'))) << "重韵";
    meter.choose(s, 1, 6, tokenOf(U'窗'));  // now only 江
    EXPECT_TRUE(meter.allowed(s, 3, 6, tokenOf(U'雙')));
    EXPECT_FALSE(meter.allowed(s, 3, 6, tokenOf(U'風')));
    std::vector<char> mask;
    ASSERT_TRUE(meter.allowedTokens(s, 3, 6, mask));
    EXPECT_EQ(std::count(mask.begin(), mask.end(), 1), 2) << "江 and 雙 are left";
}

// A character read both ways is no rhyme, even in a rhyme group: a reader could hear it oblique.
TEST(Meter, AnAmbiguousCharacterIsNeverARhyme) {
    const std::string tones = R"({"format": "lstm-workbench tones", "version": 1, "traditional": {)" +
                              worldCounts(kWorldLevel, "[9, 0, 0]") + ", " +
                              worldCounts(kWorldOblique, "[0, 9, 0]") + ", " +
                              worldCounts(kWorldEither, "[4, 4, 1]") + "}}";
    const std::string rhymes = R"({"format": "lstm-workbench rhymes", "version": 1, "groups": [
        {"name": "東", "traditional": "東風中紅空看思"}]})";
    const VerseChecker verse(ToneTable::parse(tones, "tones.json"), RhymeTable::parse(rhymes, "rhymes.json"));
    const PoemMeter meter(verse, vocabulary(), 4, 7);
    auto s = meter.start(MeterPattern::LevelStartRhymed);
    EXPECT_TRUE(meter.allowed(s, 0, 6, tokenOf(U'東')));
    EXPECT_FALSE(meter.allowed(s, 0, 6, tokenOf(U'看'))) << "in the group, but read both ways";
    meter.choose(s, 0, 6, tokenOf(U'東'));
    std::vector<char> mask;
    ASSERT_TRUE(meter.allowedTokens(s, 1, 6, mask));
    EXPECT_EQ(mask[static_cast<std::size_t>(tokenOf(U'看'))], 0);
    EXPECT_EQ(mask[static_cast<std::size_t>(tokenOf(U'思'))], 0);
    EXPECT_EQ(std::count(mask.begin(), mask.end(), 1), 4) << "風 中 紅 空";
}

TEST(Meter, EightLinesNeedAGroupOfFiveRhymes) {
    const VerseChecker verse = smallWorld();
    const PoemMeter meter(verse, vocabulary(), 8, 5);
    EXPECT_EQ(meter.rhymeCount(MeterPattern::LevelStartRhymed), 5);
    EXPECT_TRUE(meter.usable(MeterPattern::LevelStartRhymed)) << "東 has five";
    auto s = meter.start(MeterPattern::LevelStartRhymed);
    EXPECT_FALSE(meter.allowed(s, 0, 4, tokenOf(U'江'))) << "江 has four: not enough for five rhymes";
    EXPECT_TRUE(meter.allowed(s, 0, 4, tokenOf(U'中'))) << "中 is also in 東";
}

TEST(Meter, ASeedFitsSomePatternsAndSaysWhyNotTheOthers) {
    const VerseChecker verse = smallWorld();
    const PoemMeter meter(verse, vocabulary(), 4, 7);
    EXPECT_EQ(meter.whyNot(MeterPattern::LevelStart, U"月春"), "");
    EXPECT_EQ(meter.whyNot(MeterPattern::LevelStart, U"月春月月春山雨"), "");
    const std::string why = meter.whyNot(MeterPattern::ObliqueStart, U"月春");
    EXPECT_EQ(why, "仄起首句不入韵 wants an oblique tone at position 2, and '春' is level");
    EXPECT_NE(meter.whyNot(MeterPattern::LevelStartRhymed, U"月春月月雨山春").find("position 7"),
              std::string::npos);
    EXPECT_EQ(meter.whyNot(MeterPattern::LevelStartRhymed, U"月春月月春"),
              "平起首句入韵 wants an oblique tone (三平尾) at position 5, and '春' is level");
    EXPECT_EQ(meter.whyNot(MeterPattern::LevelStart, U"月看"),
              "平起首句不入韵 wants a level tone at position 2, and '看' is read both ways");
    EXPECT_NE(meter.whyNot(MeterPattern::LevelStart, U"月龘").find("unknown tone"), std::string::npos);
    EXPECT_NE(meter.whyNot(MeterPattern::LevelStart, U"月春月月春山雨雨").find("longer"), std::string::npos);
}

TEST(Meter, AVocabularyThatCannotMakeAPoemIsAnInputError) {
    const VerseChecker verse = smallWorld();
    EXPECT_THROW(PoemMeter(verse, {0, U'春', U'山', U'東', U'風'}, 4, 7), InputError) << "nothing oblique";
    try {
        PoemMeter(verse, {0, U'春', U'月', U'東', U'詩'}, 4, 7);
        FAIL() << "expected an InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("no rhyme group has 2"), std::string::npos) << e.what();
    }
}

// The property strict meter promises: whatever is drawn among the allowed characters, the poem passes.
TEST(Meter, EveryPoemOfAllowedCharactersPassesTheChecker) {
    const VerseChecker verse = smallWorld();
    const auto vocab = vocabulary();
    std::mt19937 rng(11);
    int poems = 0;
    for (const int lines : {4, 8}) {
        for (const int lineChars : {5, 7}) {
            const PoemMeter meter(verse, vocab, lines, lineChars);
            for (const MeterPattern pattern : kMeterPatterns) {
                for (int trial = 0; trial < 50; ++trial) {
                    auto state = meter.start(pattern);
                    std::string poem;
                    std::vector<char> mask;
                    for (int line = 0; line < lines; ++line) {
                        for (int p = 0; p < lineChars; ++p) {
                            ASSERT_TRUE(meter.allowedTokens(state, line, p, mask));
                            std::vector<std::int64_t> allowed;
                            for (std::size_t t = 0; t < mask.size(); ++t)
                                if (mask[t]) allowed.push_back(static_cast<std::int64_t>(t));
                            const auto token = allowed[rng() % allowed.size()];
                            meter.choose(state, line, p, token);
                            poem += encodeUtf8(vocab[static_cast<std::size_t>(token)]);
                        }
                        poem += line % 2 == 0 ? "，" : "。\n";
                    }
                    const VerseReport report = verse.check(poem);
                    ASSERT_TRUE(report.passed) << meterPatternLabel(pattern) << "\n"
                                               << poem << verseSummary(report);
                    ++poems;
                }
            }
        }
    }
    EXPECT_EQ(poems, 2 * 2 * 4 * 50);
}
