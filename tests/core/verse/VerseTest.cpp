// The verse checker on real poems whose tones are known (登鹳雀楼, 出塞, 早发白帝城, 江南春), on hand-made
// breaks of each rule, and on bad tone and rhyme tables. The tables are small ones made here, with the
// readings the Tang corpus's tone patterns give these characters (tones.json of tang-quatrains-7).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "support/BadInputs.h"
#include "support/TestSupport.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Utf8.h"
#include "workbench/domain/Verse.h"

using namespace wb;
using wbtest::TempDir;
using wbtest::writeText;

namespace {

// 更 将 教 长 重 过 are read both ways in the corpus: they are "either".
const std::string kLevel =
    "依山黄河流穷千层楼秦时明关征人还龙城飞胡阴朝辞云间江陵猿声啼轻舟莺红村旗风南台烟中天来花春";
const std::string kOblique = "帝彩白日尽入海欲里目上一月汉万未但使在不马度两岸住已绿映水郭酒四百八十寺少雨后";
const std::string kEither = "更将教长重过看";

std::string counts(const std::string& chars, const char* value) {
    std::string out;
    for (const char32_t c : decodeUtf8(chars, "test")) {
        out += (out.empty() ? "" : ", ") + std::string("\"") + encodeUtf8(c) + "\": " + value;
    }
    return out;
}

std::string tonesJson() {
    return R"({"format": "lstm-workbench tones", "version": 1, "traditional": {"後": [0, 9, 0]}, )"
           R"("simplified": {)" +
           counts(kLevel, "[100, 1, 0]") + ", " + counts(kOblique, "[2, 98, 0]") + ", " +
           counts(kEither, "[40, 30, 30]") + "}}\n";
}

// 尤 (流 楼), 删 (关 还 山 间), 东 (红 风 中), 真 (人 春): the groups of the real table these poems use.
std::string rhymesJson() {
    return R"({"format": "lstm-workbench rhymes", "version": 1, "groups": [
  {"name": "秋", "traditional": "秋流樓", "simplified": "秋流楼"},
  {"name": "山", "traditional": "山間還關", "simplified": "山间还关"},
  {"name": "風", "traditional": "風中紅東", "simplified": "风中红东"},
  {"name": "人", "traditional": "人春", "simplified": "人春"}]}
)";
}

VerseChecker checker() {
    return VerseChecker(ToneTable::parse(tonesJson(), "tones.json"),
                        RhymeTable::parse(rhymesJson(), "rhymes.json"));
}

const char* const kDengGuanQueLou = "白日依山尽，黄河入海流。\n欲穷千里目，更上一层楼。";
const char* const kChuSai = "秦时明月汉时关，\n万里长征人未还。\n但使龙城飞将在，\n不教胡马度阴山。\n";

std::vector<VerseViolation> of(const VerseReport& r, VerseRule rule) {
    std::vector<VerseViolation> out;
    std::copy_if(r.violations.begin(), r.violations.end(), std::back_inserter(out),
                 [&](const VerseViolation& v) { return v.rule == rule; });
    return out;
}

std::string describe(const VerseReport& r) {
    std::string out;
    for (const auto& v : r.violations) {
        out += std::string(verseRuleName(v.rule)) + " " + std::to_string(v.line) + ":" +
               std::to_string(v.position) + " " + v.explanation + "\n";
    }
    return out;
}

}  // namespace

TEST(Verse, DengGuanQueLouIsAQuatrainThatPasses) {
    const VerseReport r = checker().check(kDengGuanQueLou);
    EXPECT_EQ(r.form, VerseForm::Quatrain5);
    EXPECT_STREQ(verseFormName(r.form), "五绝");
    EXPECT_EQ(r.lines, (std::vector<std::string>{"白日依山尽", "黄河入海流", "欲穷千里目", "更上一层楼"}));
    EXPECT_TRUE(r.passed) << describe(r);
    EXPECT_DOUBLE_EQ(r.score, 1.0);
    ASSERT_EQ(r.rules.size(), static_cast<std::size_t>(kVerseRuleCount));
    EXPECT_EQ(r.result(VerseRule::Alternation).checks, 4);  // positions 2 and 4 of four lines
    EXPECT_EQ(r.result(VerseRule::Opposition).checks, 4);
    EXPECT_EQ(r.result(VerseRule::Adhesion).checks, 1);
    EXPECT_EQ(r.result(VerseRule::Rhyme).checks, 2);    // line 1 ends on 尽, oblique: not a rhyme
    EXPECT_EQ(r.result(VerseRule::Novelty).checks, 0);  // no known lines given
}

TEST(Verse, ChuSaiPassesWithItsEitherCharactersNotJudged) {
    const VerseReport r = checker().check(kChuSai);
    EXPECT_EQ(r.form, VerseForm::Quatrain7);
    EXPECT_TRUE(r.passed) << describe(r);
    // 将 (line 3, position 6) and 教 (line 4, position 2) are read both ways: line 4's position 2 against
    // line 3's and position 6 of both lines go unjudged, so 对 judges 1 of line 3/4's three positions.
    EXPECT_EQ(r.result(VerseRule::Opposition).checks, 3 + 1);
    EXPECT_EQ(r.result(VerseRule::Rhyme).checks, 3);  // 关 (line 1 ends level), 还, 山
}

TEST(Verse, ZaoFaBaiDiChengAndTraditionalCharactersFallBackToTheTraditionalTable) {
    const VerseReport r = checker().check("朝辞白帝彩云间，千里江陵一日还。两岸猿声啼不住，轻舟已过万重山。");
    EXPECT_TRUE(r.passed) << describe(r);
    const ToneTable tones = ToneTable::parse(tonesJson(), "tones.json");
    EXPECT_EQ(tones.tone(U'後'), Tone::Oblique);  // only in the traditional table
    EXPECT_EQ(tones.tone(U'山'), Tone::Level);
    EXPECT_EQ(tones.tone(U'更'), Tone::Either);
    EXPECT_EQ(tones.tone(U'龘'), Tone::Unknown);
    ASSERT_NE(tones.counts(U'山'), nullptr);
    EXPECT_EQ(tones.counts(U'山')->level, 100);
}

TEST(Verse, JiangNanChunBendsAlternationAtTheFamousTenOfLineThree) {
    // 南朝四百八十寺: 十 is an entering tone, oblique, so positions 4 and 6 are both oblique. Commentators
    // read 十 level here; the table cannot know, and the checker reports it.
    const VerseReport r = checker().check("千里莺啼绿映红，水村山郭酒旗风。南朝四百八十寺，多少楼台烟雨中。");
    EXPECT_FALSE(r.passed);
    const auto v = of(r, VerseRule::Alternation);
    ASSERT_EQ(v.size(), 1u) << describe(r);
    EXPECT_EQ(v[0].line, 2);
    EXPECT_EQ(v[0].position, 5);
    EXPECT_EQ(v[0].character, "十");
    EXPECT_NE(v[0].explanation.find("二四六分明"), std::string::npos);
    // and so line 4's 雨 at position 6, oblique as well, is not opposite to it.
    const auto o = of(r, VerseRule::Opposition);
    ASSERT_EQ(o.size(), 1u) << describe(r);
    EXPECT_EQ(o[0].character, "雨");
    EXPECT_EQ(r.violations.size(), 2u) << describe(r);
    EXPECT_GT(r.score, 0.9);
    EXPECT_LT(r.score, 1.0);
}

// Three poems with the real counts of every character (tones.json of tang-quatrains-7, simplified), for the
// rules that read several tones of a line at once. Rhymes are not judged here (no rhyme groups).
VerseChecker realCounts() {
    const std::string counts =
        R"("一": [44, 18191, 12], "夜": [11, 8017, 3], "水": [23, 12036, 2], "高": [7895, 15, 4], )"
        R"("二": [9, 2802, 5], "尺": [1, 979, 1], "强": [758, 6, 0], "数": [5, 2252, 2], "日": [22, 16241, 4], )"
        R"("不": [105, 30144, 18], "可": [18, 5344, 7], "更": [881, 2176, 2120], "禁": [130, 287, 392], )"
        R"("当": [1374, 257, 2531], "南": [6228, 9, 5], "市": [2, 686, 0], "津": [808, 1, 0], )"
        R"("头": [4619, 3, 2], "有": [33, 14606, 8], "船": [1324, 5, 1], "卖": [1, 264, 0], )"
        R"("无": [18461, 77, 10], "钱": [366, 16, 448], "即": [5, 1721, 1], "买": [0, 527, 0], )"
        R"("系": [0, 603, 0], "篱": [463, 0, 1], "旁": [1, 218, 0], "白": [19, 9176, 10], )"
        R"("花": [12097, 19, 4], "垣": [262, 1, 0], "上": [29, 12439, 3], "望": [10, 4710, 2], )"
        R"("京": [1964, 1, 0], "师": [1725, 9, 1], "黄": [4243, 7, 2], "河": [2992, 8, 1], )"
        R"("流": [5820, 16, 3], "尽": [6, 5896, 1], "时": [12514, 32, 5], "穷": [1993, 2, 5], )"
        R"("秋": [8582, 12, 3], "旷": [0, 480, 0], "野": [5, 3150, 1], "行": [3352, 748, 4755], )"
        R"("人": [23424, 69, 10], "绝": [1, 2125, 0], "马": [8, 5308, 3], "首": [2, 2008, 0], )"
        R"("东": [5894, 12, 4], "来": [13706, 29, 12], "知": [9668, 22, 3], "是": [17, 7768, 3], )"
        R"("谁": [5281, 9, 2], "何": [12798, 36, 7], "雨": [11, 6345, 2], "晴": [1757, 2, 0], )"
        R"("云": [14890, 30, 2], "出": [9, 6455, 2], "溪": [2499, 1, 0], "沙": [2374, 6, 2], )"
        R"("青": [6983, 16, 1], "石": [8, 5002, 2], "先": [2504, 3, 1], "泥": [422, 83, 572], )"
        R"("只": [5, 1666, 0], "须": [3377, 12, 2], "伐": [0, 206, 0], "竹": [4, 3442, 0], )"
        R"("开": [5817, 4, 3], "荒": [1563, 1, 0], "径": [2, 1081, 1], "倚": [6, 1600, 3], )"
        R"("杖": [4, 585, 1], "穿": [321, 49, 359], "听": [447, 630, 1070], "嘶": [391, 0, 0])";
    return VerseChecker(
        ToneTable::parse(
            R"({"format": "lstm-workbench tones", "version": 1, "traditional": {}, "simplified": {)" +
                counts + "}}",
            "tones.json"),
        RhymeTable::parse(R"({"format": "lstm-workbench rhymes", "version": 1, "groups": []})",
                          "rhymes.json"));
}

// A character's tone is its dominant reading: at least 80 % of its level and oblique marks; the ○ marks
// (the package left the place open) do not count.
TEST(VerseTables, ACharacterReadsItsDominantToneAndSplitReadingsAreEither) {
    const VerseChecker verse = realCounts();
    const ToneTable& tones = verse.tones();
    EXPECT_EQ(tones.tone(U'泥'), Tone::Level) << "422 of 505 marks (84 %), its 572 ○ marks aside";
    EXPECT_EQ(tones.tone(U'当'), Tone::Level) << "1374 of 1631 (84 %)";
    EXPECT_EQ(tones.tone(U'钱'), Tone::Level) << "366 of 382, though ○ is its commonest mark";
    EXPECT_EQ(tones.tone(U'禁'), Tone::Either) << "287 of 417 oblique (69 %): read both ways";
    EXPECT_EQ(tones.tone(U'听'), Tone::Either) << "630 of 1077 (58 %)";
    EXPECT_EQ(tones.tone(U'行'), Tone::Level) << "3352 of 4100 (82 %)";
    EXPECT_EQ(tones.tone(U'更'), Tone::Either) << "2176 of 3057 (71 %)";
    EXPECT_NEAR(tones.dominantShare(U'更'), 2176.0 / 3057, 1e-12);
    EXPECT_DOUBLE_EQ(tones.dominantShare(U'嘶'), 1.0);
    EXPECT_EQ(tones.dominantShare(U'龘'), 0.0);
    const ToneTable onlyOpen = ToneTable::parse(
        R"({"format": "lstm-workbench tones", "version": 1, "traditional": {"乜": [0, 0, 9]}})", "t");
    EXPECT_EQ(onlyOpen.tone(U'乜'), Tone::Either) << "only ○ marks: known, and undecided";
}

// 孤平: 杜甫's 春水生二绝 (二) opens 一夜水高二尺强: its last five go 仄平仄仄平, and 高 is the only level
// tone before the rhyme. 王昌龄's 出塞 (二) has 黄河水流无尽时, 仄平平仄平: the oblique 水 made up for by 无
// (拗救).
TEST(Verse, ALoneLevelToneIsFlaggedAndItsRemedyIsNot) {
    const VerseChecker verse = realCounts();
    const VerseReport broken =
        verse.check("一夜水高二尺强，数日不可更禁当。南市津头有船卖，无钱即买系篱旁。");
    const auto v = of(broken, VerseRule::LoneLevel);
    ASSERT_EQ(v.size(), 1u) << describe(broken);
    EXPECT_EQ(v[0].line, 0);
    EXPECT_EQ(v[0].position, 4);
    EXPECT_EQ(v[0].character, "二");
    EXPECT_NE(v[0].explanation.find("孤平"), std::string::npos);
    EXPECT_STREQ(verseRuleLabel(VerseRule::LoneLevel), "孤平");
    EXPECT_STREQ(verseRuleName(VerseRule::LoneLevel), "lone-level");

    const VerseReport kept = verse.check("白花垣上望京师，黄河水流无尽时。穷秋旷野行人绝，马首东来知是谁。");
    EXPECT_EQ(kept.result(VerseRule::LoneLevel).violations, 0) << describe(kept);
    EXPECT_GE(kept.result(VerseRule::LoneLevel).checks, 1) << "line 2 is judged, and passes";
}

// 三平尾: 杜甫's 白沙青石先无泥 ends 先无泥, three level tones. 何日雨晴云出溪 before it does not (出 is
// oblique), and neither does any line of 出塞.
TEST(Verse, ThreeLevelTonesAtALinesEndAreFlagged) {
    const VerseChecker verse = realCounts();
    const VerseReport broken =
        verse.check("何日雨晴云出溪，白沙青石先无泥。只须伐竹开荒径，倚杖穿花听马嘶。");
    const auto v = of(broken, VerseRule::LevelTail);
    ASSERT_EQ(v.size(), 1u) << describe(broken);
    EXPECT_EQ(v[0].line, 1);
    EXPECT_EQ(v[0].position, 4);
    EXPECT_EQ(v[0].character, "先");
    EXPECT_NE(v[0].explanation.find("三平尾"), std::string::npos);
    EXPECT_EQ(of(broken, VerseRule::LoneLevel).size(), 0u) << "雨晴云出溪 is 仄平平仄平: remedied";
    EXPECT_NE(verseSummary(broken).find("三平尾"), std::string::npos) << verseSummary(broken);

    const VerseReport kept = verse.check("白花垣上望京师，黄河水流无尽时。穷秋旷野行人绝，马首东来知是谁。");
    EXPECT_EQ(kept.result(VerseRule::LevelTail).violations, 0) << describe(kept);
    EXPECT_GE(kept.result(VerseRule::LevelTail).checks, 1) << "京师 and 知是谁 end level: judged";
}

TEST(Verse, BreakingAlternation) {
    // 白日依山尽 -> 白日依海尽: positions 2 and 4 both oblique.
    const VerseReport r = checker().check("白日依海尽，黄河入海流。欲穷千里目，更上一层楼。");
    const auto v = of(r, VerseRule::Alternation);
    ASSERT_EQ(v.size(), 1u) << describe(r);
    EXPECT_EQ(v[0].line, 0);
    EXPECT_EQ(v[0].position, 3);
    EXPECT_EQ(v[0].character, "海");
    EXPECT_FALSE(r.passed);
}

TEST(Verse, BreakingOpposition) {
    // 黄河入海流 -> 黄日入海流: line 2's position 2 is oblique like line 1's (and then breaks 粘 with line
    // 3).
    const VerseReport r = checker().check("白日依山尽，黄日入海流。欲穷千里目，更上一层楼。");
    const auto v = of(r, VerseRule::Opposition);
    ASSERT_EQ(v.size(), 1u) << describe(r);
    EXPECT_EQ(v[0].line, 1);
    EXPECT_EQ(v[0].position, 1);
    EXPECT_NE(v[0].explanation.find("对"), std::string::npos);
}

TEST(Verse, BreakingAdhesion) {
    // The second couplet with its two lines swapped: each couplet is still opposite, but line 3 no longer
    // follows line 2 at position 2.
    const VerseReport r = checker().check("白日依山尽，黄河入海流。更上一层楼，欲穷千里目。");
    const auto v = of(r, VerseRule::Adhesion);
    ASSERT_EQ(v.size(), 1u) << describe(r);
    EXPECT_EQ(v[0].line, 2);
    EXPECT_EQ(v[0].position, 1);
    EXPECT_EQ(v[0].character, "上");
    EXPECT_TRUE(of(r, VerseRule::Opposition).empty()) << describe(r);
    EXPECT_EQ(of(r, VerseRule::RhymeTone).size(), 1u);  // and line 4 now ends on 目, oblique
}

TEST(Verse, BreakingTheRhyme) {
    // 更上一层楼 -> 更上一层天: level, but not in 流's group.
    const VerseReport r = checker().check("白日依山尽，黄河入海流。欲穷千里目，更上一层天。");
    EXPECT_TRUE(of(r, VerseRule::RhymeTone).empty());
    // 天 is in no group of this table: unknown, so the rhyme cannot be judged and is not a violation.
    EXPECT_EQ(r.result(VerseRule::Rhyme).checks, 0);
    EXPECT_TRUE(r.passed) << describe(r);

    // 更上一层山: 山 is level and known, in another group than 流. On a tie line 2 sets the rhyme.
    const VerseReport wrong = checker().check("白日依山尽，黄河入海流。欲穷千里目，更上一层山。");
    const auto v = of(wrong, VerseRule::Rhyme);
    ASSERT_EQ(v.size(), 1u) << describe(wrong);
    EXPECT_EQ(v[0].line, 3);
    EXPECT_EQ(v[0].position, 4);
    EXPECT_EQ(v[0].character, "山");
    EXPECT_NE(v[0].explanation.find("'流'"), std::string::npos);
}

TEST(Verse, TheRhymeIsWhatMostRhymeCharactersShare) {
    // 出塞 with line 2 ending on 红: 关 (line 1), 山 (line 4) agree, 红 is the odd one out.
    const VerseReport r = checker().check("秦时明月汉时关，万里长征人未红。但使龙城飞将在，不教胡马度阴山。");
    const auto v = of(r, VerseRule::Rhyme);
    ASSERT_EQ(v.size(), 1u) << describe(r);
    EXPECT_EQ(v[0].line, 1);
    EXPECT_EQ(v[0].character, "红");
    EXPECT_NE(v[0].explanation.find("does not rhyme"), std::string::npos);
}

TEST(Verse, AnEvenLineEndingObliqueBreaksRhymeTone) {
    const VerseReport r = checker().check("白日依山尽，黄河入海流。欲穷千里目，更上一层目。");
    const auto v = of(r, VerseRule::RhymeTone);
    ASSERT_EQ(v.size(), 1u) << describe(r);
    EXPECT_EQ(v[0].line, 3);
    EXPECT_EQ(v[0].position, 4);
}

TEST(Verse, RepeatingARhymeCharacter) {
    const VerseReport r = checker().check("秦时明月汉时关，万里长征人未还。但使龙城飞将在，不教胡马度阴关。");
    const auto v = of(r, VerseRule::RepeatedRhyme);
    ASSERT_EQ(v.size(), 1u) << describe(r);
    EXPECT_EQ(v[0].line, 3);
    EXPECT_EQ(v[0].character, "关");
    EXPECT_NE(v[0].explanation.find("line 1"), std::string::npos);
    EXPECT_TRUE(of(r, VerseRule::Rhyme).empty());  // 关 still rhymes
}

TEST(Verse, WrongLineLengthCountAndPunctuation) {
    const VerseReport six = checker().check("白日依山尽，黄河入海东流。欲穷千里目，更上一层楼。");
    EXPECT_EQ(six.form, VerseForm::Unknown);
    EXPECT_FALSE(six.passed);
    const auto v = of(six, VerseRule::Form);
    ASSERT_EQ(v.size(), 1u) << describe(six);
    EXPECT_EQ(v[0].line, 1);
    EXPECT_EQ(v[0].position, -1);
    EXPECT_NE(v[0].explanation.find("6 characters"), std::string::npos);

    const VerseReport three = checker().check("白日依山尽，黄河入海流。欲穷千里目。");
    EXPECT_EQ(three.form, VerseForm::Unknown);
    EXPECT_NE(describe(three).find("3 lines"), std::string::npos);

    const VerseReport marks = checker().check("白日依山尽。黄河入海流，\n欲穷千里目，更上一层楼");
    EXPECT_EQ(marks.form, VerseForm::Quatrain5);  // the shape is right; the punctuation is not
    EXPECT_EQ(of(marks, VerseRule::Form).size(), 3u) << describe(marks);
    EXPECT_FALSE(marks.passed);

    const VerseReport latin = checker().check("白日依山x，黄河入海流。欲穷千里目，更上一层楼。");
    const auto x = of(latin, VerseRule::Form);
    ASSERT_EQ(x.size(), 1u) << describe(latin);
    EXPECT_EQ(x[0].position, 4);
    EXPECT_EQ(x[0].character, "x");
}

TEST(Verse, RegulatedVerseOfEightLines) {
    // 杜甫《春望》's shape, made of lines of 登鹳雀楼 so every tone is in the table: 对 and 粘 hold.
    const std::string couplets = "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。";
    const VerseReport r = checker().check(couplets + couplets);
    EXPECT_EQ(r.form, VerseForm::Regulated5);
    EXPECT_EQ(r.result(VerseRule::Adhesion).checks, 3);
    // Lines 6 and 8 reuse 流 and 楼.
    EXPECT_EQ(of(r, VerseRule::RepeatedRhyme).size(), 2u) << describe(r);
}

TEST(Verse, ALineCopiedFromTheCorpus) {
    VerseChecker c = checker();
    c.setKnownLines({"黄河入海流", "春眠不觉晓"});
    const VerseReport r = c.check(kDengGuanQueLou);
    const auto v = of(r, VerseRule::Novelty);
    ASSERT_EQ(v.size(), 1u) << describe(r);
    EXPECT_EQ(v[0].line, 1);
    EXPECT_EQ(r.result(VerseRule::Novelty).checks, 4);
    EXPECT_FALSE(r.passed);
    EXPECT_EQ(verseLines("白日依山尽，黄河入海流。\n欲穷千里目，\n更上一层楼。"),
              (std::vector<std::string>{"白日依山尽", "黄河入海流", "欲穷千里目", "更上一层楼"}));
}

TEST(Verse, ViolationsAreOrderedByLineAndPosition) {
    const VerseReport r = checker().check("白日依海尽，黄日入海流。欲穷千里目，更上一层目。");
    ASSERT_GE(r.violations.size(), 3u);
    EXPECT_TRUE(std::is_sorted(r.violations.begin(), r.violations.end(), [](const auto& a, const auto& b) {
        return a.line != b.line ? a.line < b.line : a.position < b.position;
    }));
}

TEST(Verse, BadUtf8InAPoemIsAnInputError) { EXPECT_THROW(checker().check("白日\xff"), InputError); }

TEST(VerseTables, BadToneTables) {
    const auto message = [](const std::string& text) {
        try {
            ToneTable::parse(text, "tones.json");
        } catch (const InputError& e) {
            EXPECT_EQ(e.file(), "tones.json");
            return std::string(e.what());
        }
        ADD_FAILURE() << "no error for " << text;
        return std::string();
    };
    EXPECT_NE(message("{\"format\": \"lstm-workbench tones\",\n \"traditional\": {").find("tones.json:2"),
              std::string::npos);
    EXPECT_NE(message("[]").find("expected a JSON object"), std::string::npos);
    EXPECT_NE(message(R"({"name": "tang-quatrains-7"})").find("not a lstm-workbench tones file"),
              std::string::npos);
    EXPECT_NE(message(R"({"format": "lstm-workbench tones"})").find("missing \"traditional\""),
              std::string::npos);
    EXPECT_NE(message(R"({"format": "lstm-workbench tones", "traditional": {"山水": [1, 0, 0]}})")
                  .find("not a single character"),
              std::string::npos);
    EXPECT_NE(message(R"({"format": "lstm-workbench tones", "traditional": {"山": [1, -1, 0]}})")
                  .find("[level, oblique, either]"),
              std::string::npos);
    EXPECT_NE(message(R"({"format": "lstm-workbench tones", "traditional": {}, "simplified": [1]})")
                  .find("\"simplified\": expected an object"),
              std::string::npos);
}

TEST(VerseTables, BadRhymeTables) {
    const auto message = [](const std::string& text) {
        try {
            RhymeTable::parse(text, "rhymes.json");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        ADD_FAILURE() << "no error for " << text;
        return std::string();
    };
    EXPECT_NE(message("{").find("rhymes.json"), std::string::npos);
    EXPECT_NE(
        message(R"({"format": "lstm-workbench tones", "groups": []})").find("not a lstm-workbench rhymes"),
        std::string::npos);
    EXPECT_NE(message(R"({"format": "lstm-workbench rhymes"})").find("missing \"groups\""),
              std::string::npos);
    EXPECT_NE(message(R"({"format": "lstm-workbench rhymes", "groups": [{"name": "山"}]})").find("group 0"),
              std::string::npos);
    EXPECT_NE(message(R"({"format": "lstm-workbench rhymes", "groups": [{"traditional": "山,"}]})")
                  .find("not a Chinese character"),
              std::string::npos);
}

TEST(VerseTables, RhymeGroupsAndFiles) {
    TempDir dir;
    writeText(dir.path() / "rhymes.json", R"({"format": "lstm-workbench rhymes", "groups": [
        {"name": "陽", "traditional": "陽行長"}, {"traditional": "庚行", "simplified": "庚行"}]})");
    const RhymeTable rhymes = RhymeTable::load(dir.path() / "rhymes.json");
    EXPECT_EQ(rhymes.groupCount(), 2u);
    EXPECT_EQ(rhymes.groupName(0), "陽");
    EXPECT_EQ(rhymes.groupName(1), "庚");                         // no name: its first character
    EXPECT_EQ(rhymes.groupsOf(U'行'), (std::vector<int>{0, 1}));  // a character with two readings
    EXPECT_TRUE(rhymes.rhymes(U'陽', U'行'));
    EXPECT_TRUE(rhymes.rhymes(U'庚', U'行'));
    EXPECT_FALSE(rhymes.rhymes(U'陽', U'庚'));
    EXPECT_FALSE(rhymes.rhymes(U'陽', U'龘'));
    EXPECT_THROW(RhymeTable::load(dir.path() / "missing.json"), InputError);
    writeText(dir.path() / "tones.json", tonesJson());
    EXPECT_EQ(ToneTable::load(dir.path() / "tones.json").tone(U'白'), Tone::Oblique);
}

// Every character of the text maps to where the checker sees it, so a violation marks the right character.
TEST(Verse, SpotsMapTheTextToLinesAndPositions) {
    const std::string text = "白日依海尽，黄河入海流。\n欲穷 千里目，";
    const auto spots = verseSpots(text);
    const std::u32string chars = U"白日依海尽，黄河入海流。\n欲穷 千里目，";
    ASSERT_EQ(spots.size(), chars.size());
    EXPECT_EQ(spots[3].line, 0);
    EXPECT_EQ(spots[3].position, 3);  // 海, where BreakingAlternation's violation is
    EXPECT_EQ(spots[5].line, -1);     // ，
    EXPECT_EQ(spots[6].line, 1);
    EXPECT_EQ(spots[6].position, 0);   // 黄
    EXPECT_EQ(spots[12].line, -1);     // the line break after 。
    EXPECT_EQ(spots[14].position, 1);  // 穷
    EXPECT_EQ(spots[15].line, -1);     // the blank
    EXPECT_EQ(spots[16].line, 2);
    EXPECT_EQ(spots[16].position, 2);  // 千
    // The checker agrees: its lines are these spots' characters.
    const auto r = checker().check(text);
    for (std::size_t i = 0; i < chars.size(); ++i)
        if (spots[i].line >= 0)
            EXPECT_EQ(decodeUtf8(r.lines[std::size_t(spots[i].line)], "line")[std::size_t(spots[i].position)],
                      chars[i]);
}

TEST(Verse, TheSummarySaysWhichRulesBreak) {
    EXPECT_EQ(verseSummary(checker().check(kDengGuanQueLou)), "五绝 · passes every rule");
    const auto broken = verseSummary(checker().check("白日依海尽，黄河入海流。欲穷千里目，更上一层楼。"));
    EXPECT_EQ(broken.rfind("五绝 · ", 0), 0u) << broken;
    EXPECT_NE(broken.find("% of checks · breaks 二四六分明"), std::string::npos) << broken;
    EXPECT_EQ(verseSummary(checker().check("白日依山尽")), "unknown form");
}

// A prepared corpus's folder holds the tables; its poems' lines are the known lines.
TEST(Verse, TheCheckerOfACorpusReadsTheTablesBesideIt) {
    TempDir dir, cache;
    const wbtest::ScopedEnv data{{{"LSTM_WORKBENCH_DATA", cache.str()}}};  // no shared tables
    writeText(dir.path() / "poems.json",
              R"([{"title": "登鹳雀楼", "author": "王之涣", "paragraphs": ["白日依山尽，黄河入海流。", )"
              R"("欲穷千里目，更上一层楼。"]}])");
    EXPECT_FALSE(verseCheckerForCorpus(dir.file("poems.json")).has_value()) << "no tables: no checker";
    writeText(dir.path() / "tones.json", tonesJson());
    writeText(dir.path() / "rhymes.json", rhymesJson());
    const auto checker = verseCheckerForCorpus(dir.file("poems.json"));
    ASSERT_TRUE(checker.has_value());
    const auto r = checker->check(kDengGuanQueLou);
    EXPECT_EQ(r.result(VerseRule::Novelty).violations, 4) << "every line is the corpus's own";
    EXPECT_FALSE(verseCheckerForCorpus(dir.file("missing.json")).has_value());
    writeText(dir.path() / "tones.json", "{");
    EXPECT_THROW(verseCheckerForCorpus(dir.file("poems.json")), InputError);
}

// A poem corpus of the user's own, with no tables beside it, is checked with the corpus cache's shared ones,
// read in its own script: 干 is level in simplified texts (乾, 干戈) and oblique in traditional ones (幹).
TEST(Verse, AChinesePoemCorpusWithoutTablesUsesTheSharedOnesInItsOwnScript) {
    TempDir cache, mine;
    const wbtest::ScopedEnv data{{{"LSTM_WORKBENCH_DATA", cache.str()}}};
    writeText(mine.path() / "simplified.json",
              R"([{"title": "登鹳雀楼", "author": "王之涣", "paragraphs": ["白日依山尽，黄河入海流。", )"
              R"("欲穷千里目，更上一层楼。"]}])");
    writeText(mine.path() / "traditional.json",
              R"([{"title": "登鸛雀樓", "author": "王之渙", "paragraphs": ["白日依山盡，黃河入海流。", )"
              R"("欲窮千里目，更上一層樓。"]}])");
    writeText(mine.path() / "english.json",
              R"([{"title": "A", "author": "B", "paragraphs": ["Roses are red,"]}])");
    writeText(mine.path() / "lines.txt", "白日依山尽，黄河入海流。\n");
    EXPECT_FALSE(verseCheckerForCorpus(mine.file("simplified.json")).has_value()) << "no shared tables yet";

    const std::string tables = (std::filesystem::path(cache.str()) / "verse-tables").string();
    EXPECT_EQ(sharedVerseTablesDir(), std::filesystem::path(tables));
    std::filesystem::create_directories(tables);
    writeText(std::filesystem::path(tables) / "tones.json",
              R"({"format": "lstm-workbench tones", "version": 1, )"
              R"("traditional": {"樓": [9, 0, 0], "盡": [0, 9, 0], "干": [0, 9, 0], "幹": [0, 9, 0]}, )"
              R"("simplified": {"楼": [9, 0, 0], "尽": [0, 9, 0], "干": [9, 1, 0]}})");
    writeText(std::filesystem::path(tables) / "rhymes.json", rhymesJson());

    const auto simplified = verseCheckerForCorpus(mine.file("simplified.json"));
    ASSERT_TRUE(simplified.has_value());
    EXPECT_EQ(simplified->tones().tone(U'干'), Tone::Level);
    EXPECT_TRUE(simplified->isKnownLine("黄河入海流")) << "its own lines are the known lines";
    const auto traditional = verseCheckerForCorpus(mine.file("traditional.json"));
    ASSERT_TRUE(traditional.has_value());
    EXPECT_EQ(traditional->tones().tone(U'干'), Tone::Oblique) << "a traditional corpus reads 干 as 幹 does";
    EXPECT_EQ(traditional->tones().tone(U'楼'), Tone::Level) << "the other script still answers";
    EXPECT_TRUE(traditional->isKnownLine("黃河入海流"));
    EXPECT_FALSE(verseCheckerForCorpus(mine.file("english.json")).has_value()) << "not Chinese";
    EXPECT_FALSE(verseCheckerForCorpus(mine.file("lines.txt")).has_value()) << "not a poem corpus";
    // A corpus's own tables come first.
    writeText(mine.path() / "tones.json", tonesJson());
    writeText(mine.path() / "rhymes.json", rhymesJson());
    const auto own = verseCheckerForCorpus(mine.file("simplified.json"));
    ASSERT_TRUE(own.has_value());
    EXPECT_EQ(own->tones().tone(U'更'), Tone::Either) << "from tonesJson(), which the shared tables lack";
}
