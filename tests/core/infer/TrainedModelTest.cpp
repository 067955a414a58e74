// Using trained runs: generation follows what the model learnt, poem forms and acrostics always hold,
// classification gives calibrated-looking probabilities and attributions, and misuse is a clear InputError.
#include <gtest/gtest.h>

#include "device/Autocast.h"

#include <filesystem>
#include <random>

#include "support/TestSupport.h"
#include "support/TinyExperiments.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/Safetensors.h"
#include "workbench/domain/Utf8.h"
#include "workbench/domain/Verse.h"
#include "workbench/engine/Inference.h"
#include "workbench/engine/Training.h"

using namespace wb;
namespace fs = std::filesystem;

namespace {
extern const char* const kMemorizedPoem;
// One tiny LM on the pattern corpus and one on quatrains, trained once for the whole suite.
class TrainedRuns : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_dir = new wbtest::TempDir();
        wbtest::writeText(s_dir->path() / "pattern.txt", wbtest::patternText(120));
        auto c = wbtest::tinyLanguageModel(s_dir->file("pattern.txt"));
        c.train.maxSteps = 150;
        TrainingJob(c, s_dir->file("pattern-run")).run();

        wbtest::writeText(s_dir->path() / "poems.json", wbtest::quatrainJson(40));
        c.data.corpus = s_dir->file("poems.json");
        c.data.format = CorpusFormat::Poems;
        c.train.maxSteps = 20;
        TrainingJob(c, s_dir->file("poem-run")).run();

        // A model that has learnt one poem by heart: unconstrained, it copies the corpus.
        std::string memorized = "[";
        for (int i = 0; i < 40; ++i)
            memorized +=
                std::string(i ? "," : "") + R"({"title": "記", "paragraphs": [")" + kMemorizedPoem + R"("]})";
        fs::create_directories(s_dir->path() / "memorized");
        wbtest::writeText(s_dir->path() / "memorized" / "poems.json", memorized + "]");
        c.data.corpus = s_dir->file("memorized/poems.json");
        c.train.maxSteps = 150;
        TrainingJob(c, s_dir->file("memorized-run")).run();
        // Tone and rhyme tables for both poem corpora (after training: the validation samples would check
        // poems with them).
        wbtest::writeVerseTables(s_dir->path());
        wbtest::writeVerseTables(s_dir->path() / "memorized");

        wbtest::writeText(s_dir->path() / "reviews.tsv", wbtest::separableTsv(300));
        auto k = wbtest::tinyClassifier(s_dir->file("reviews.tsv"));
        k.train.epochs = 5;
        TrainingJob(k, s_dir->file("classifier-run")).run();
    }
    static void TearDownTestSuite() { delete s_dir; }
    static wbtest::TempDir* s_dir;
};
wbtest::TempDir* TrainedRuns::s_dir = nullptr;

bool isIdeograph(char32_t c) { return c >= 0x4E00 && c <= 0x9FFF; }

// 仄起首句入韵 in the tables of wbtest::writeVerseTables: it passes every rule, so the only thing strict
// meter can hold against a model that copies it is that it is the corpus's.
const char* const kMemorizedPoem = "月夜春山水日人，春風花月秋江天。花江雲水東秋夜，長日歸花月水雲。";

std::string formName(PoemForm f) { return toString(f); }

// The samples generated, checked to be as many as asked for: a loop over fewer (none) would check nothing.
template <class Samples>
Samples allOf(Samples samples, std::int64_t asked) {
    EXPECT_EQ(samples.size(), static_cast<std::size_t>(asked));
    return samples;
}
}  // namespace

TEST_F(TrainedRuns, GreedyGenerationFollowsTheLearntPattern) {
    const auto model = TrainedModel::load(s_dir->file("pattern-run"));
    GenerateOptions o;
    o.seedText = "abc";
    o.length = 5;
    o.temperature = 0;
    const auto out = model->generate(o);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].text, "abcdefgh");
}

// Generation's 16-bit path (bf16 where the CPU has AVX512_BF16, fp16 when that is forced off) writes what
// the fp32 model writes. A CPU without F16C/AVX2 has no 16-bit path and generates in fp32 by default: the
// comparison would then be fp32 with itself, so the test says it was skipped rather than pass.
TEST_F(TrainedRuns, TheHalfPrecisionPathsGenerateWhatTheFp32ModelDoes) {
    for (bool fallback : {false, true}) {
        SCOPED_TRACE(fallback ? "fp16 weights" : "bf16 weights where available");
        forceCpuBf16Fallback(fallback);
        const auto model = TrainedModel::load(s_dir->file("pattern-run"));
        forceCpuBf16Fallback(false);
        const auto precision = model->generationPrecision();
        if (precision == "fp32")
            GTEST_SKIP()
                << "generation has no 16-bit path on this CPU (no F16C/AVX2): it runs in fp32, so there "
                   "is nothing to compare with fp32";
        if (fallback) EXPECT_EQ(precision, "fp16");  // the bf16 fallback must really be fp16
        GenerateOptions o;
        o.seedText = "d";
        o.length = 60;
        o.temperature = 0;
        const auto fast = textsOf(model->generate(o));
        o.fullPrecision = true;
        EXPECT_EQ(fast, textsOf(model->generate(o)));
    }
}

TEST_F(TrainedRuns, SamplingIsReproducibleWithASeedAndHonoursTheLength) {
    const auto model = TrainedModel::load(s_dir->file("pattern-run"));
    GenerateOptions o;
    o.length = 40;
    o.temperature = 1.0;
    o.topK = 3;
    o.topP = 0.9;
    o.samples = 3;
    o.rngSeed = 99;
    const auto a = textsOf(model->generate(o)), b = textsOf(model->generate(o));
    EXPECT_EQ(a, b);
    ASSERT_EQ(a.size(), 3u);
    for (const auto& s : a) EXPECT_LE(countCodePoints(s), 40u);
}

TEST_F(TrainedRuns, PoemsAlwaysHaveTheirLinesOfTheRightLengthAndPunctuation) {
    const auto model = TrainedModel::load(s_dir->file("poem-run"));
    for (auto form : {PoemForm::Quatrain5, PoemForm::Quatrain7, PoemForm::Regulated5, PoemForm::Regulated7}) {
        const std::size_t n = form == PoemForm::Quatrain5 || form == PoemForm::Regulated5 ? 5 : 7;
        const std::size_t lines = form == PoemForm::Regulated5 || form == PoemForm::Regulated7 ? 8 : 4;
        GenerateOptions o;
        o.form = form;
        o.temperature = 1.5;  // adventurous sampling must still keep the form
        o.samples = 20;
        o.rngSeed = 5;
        for (const auto& poem : allOf(textsOf(model->generate(o)), o.samples)) {
            const auto cps = decodeUtf8(poem, "poem");
            std::size_t line = 0, pos = 0, newlines = 0;
            for (std::size_t i = 0; i < cps.size(); ++i) {
                if (cps[i] == U'\n') {
                    ++newlines;
                    continue;
                }
                if (pos < n) {
                    EXPECT_TRUE(isIdeograph(cps[i])) << poem;
                    EXPECT_TRUE(model->vocabulary().contains(encodeUtf8(cps[i]))) << poem;
                    ++pos;
                } else {
                    EXPECT_EQ(cps[i], line % 2 == 0 ? U'，' : U'。') << poem;
                    ++line;
                    pos = 0;
                }
            }
            EXPECT_EQ(line, lines) << poem;
            EXPECT_EQ(newlines, lines - 1) << poem;
            EXPECT_EQ(cps.size(), lines * (n + 1) + lines - 1) << poem;
        }
    }
}

TEST_F(TrainedRuns, AcrosticStartsEachLineWithItsCharacter) {
    const auto model = TrainedModel::load(s_dir->file("poem-run"));
    GenerateOptions o;
    o.form = PoemForm::Quatrain7;
    o.acrostic = "春風花月";
    o.samples = 5;
    for (const auto& poem : allOf(textsOf(model->generate(o)), o.samples)) {
        const auto lines = decodeUtf8(poem, "poem");
        std::vector<std::u32string> split(1);
        for (auto c : lines) {
            if (c == U'\n')
                split.emplace_back();
            else
                split.back().push_back(c);
        }
        ASSERT_EQ(split.size(), 4u) << poem;
        EXPECT_EQ(split[0][0], U'春');
        EXPECT_EQ(split[1][0], U'風');
        EXPECT_EQ(split[2][0], U'花');
        EXPECT_EQ(split[3][0], U'月');
    }
}

TEST_F(TrainedRuns, MisuseIsAClearInputError) {
    const auto poems = TrainedModel::load(s_dir->file("poem-run"));
    GenerateOptions o;
    o.form = PoemForm::Quatrain7;
    o.acrostic = "龍";  // not in the synthetic corpus
    EXPECT_THROW(poems->generate(o), InputError);
    const auto pattern = TrainedModel::load(s_dir->file("pattern-run"));
    o.acrostic.clear();
    EXPECT_THROW(pattern->generate(o), InputError);  // no Chinese punctuation in its vocabulary
    EXPECT_THROW(pattern->classify("abc"), InputError);
    const auto classifier = TrainedModel::load(s_dir->file("classifier-run"));
    EXPECT_THROW(classifier->generate({}), InputError);
    EXPECT_THROW(TrainedModel::load(s_dir->file("nowhere")), InputError);
}

TEST_F(TrainedRuns, ClassifierGivesProbabilitiesAndAttributions) {
    const auto model = TrainedModel::load(s_dir->file("classifier-run"));
    // A review as the corpus writes them: sentiment words at every other place.
    const auto r = model->classify("great the superb movie lovely was happy it", 2, true);
    EXPECT_EQ(r.predicted, "pos");
    ASSERT_EQ(r.top.size(), 2u);
    EXPECT_NEAR(r.top[0].probability + r.top[1].probability, 1.0, 1e-6);
    EXPECT_GT(r.top[0].probability, 0.8);
    ASSERT_EQ(r.attributions.size(), 8u);
    // The sentiment words matter more than the filler.
    double great = 0, the = 0;
    for (const auto& a : r.attributions) {
        if (a.token == "great") great = a.score;
        if (a.token == "the") the = a.score;
    }
    EXPECT_GT(great, the);
    EXPECT_EQ(model->classify("awful and dull", 1, false).predicted, "neg");
}

// The best checkpoint: written at the validation with the lowest loss (its step in the file's metadata is
// that validation's), loaded on request, and a run without one says so instead of loading the last.
TEST_F(TrainedRuns, TheBestCheckpointIsTheLowestValidationsAndLoadsOnRequest) {
    const std::string dir = s_dir->file("pattern-run");
    const auto file = safetensors::read(dir + "/" + runfiles::kBestModel);
    const auto record = loadRunFolder(dir);
    double lowest = 0;
    std::int64_t stepOfLowest = -1;
    for (const auto& r : seriesOf(record.metrics, "val", "loss"))
        if (stepOfLowest < 0 || r.value < lowest) lowest = r.value, stepOfLowest = r.step;
    ASSERT_GE(stepOfLowest, 0);
    EXPECT_EQ(file.metadata.at("step"), std::to_string(stepOfLowest));
    const auto best = TrainedModel::load(dir, TrainedModel::Checkpoint::Best);
    GenerateOptions g;
    g.length = 8;
    g.temperature = 0;
    EXPECT_EQ(best->generate(g).size(), 1u);

    wbtest::TempDir copy;
    fs::copy(dir, copy.path() / "run", fs::copy_options::recursive);
    fs::remove(copy.path() / "run" / runfiles::kBestModel);
    try {
        TrainedModel::load(copy.file("run"), TrainedModel::Checkpoint::Best);
        FAIL() << "a run without a best checkpoint loaded one";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("no best checkpoint"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(TrainedModel::load(copy.file("run")));
}

// Issue #32: the test above cannot tell the best checkpoint from the last when the validation loss only
// falls. Here it rises: a model far larger than its corpus of random letters learns their frequencies
// (validation falls) and then learns the training lines by heart (validation rises). The best file holds
// the weights of its step, bit for bit: those of the same run stopped at that step; and a resume, whose
// validations are all worse, keeps it.
TEST(BestCheckpoint, IsTheWeightsOfTheLowestValidationNotTheLast) {
    wbtest::TempDir dir;
    std::mt19937 rng(5);
    std::string text;
    for (int line = 0; line < 40; ++line) {
        for (int i = 0; i < 30; ++i) text += char('a' + rng() % 6);
        text += '\n';
    }
    wbtest::writeText(dir.path() / "random.txt", text);
    auto c = wbtest::tinyLanguageModel(dir.file("random.txt"));
    c.data.valFraction = 0.25;
    c.model.embedding = 32;
    c.model.hidden = 128;
    c.train.learningRate = 2e-2;
    c.train.maxSteps = 160;
    c.train.validateEvery = 10;
    TrainingJob(c, dir.file("long")).run();

    const auto record = loadRunFolder(dir.file("long"));
    const auto validation = seriesOf(record.metrics, "val", "loss");
    ASSERT_GE(validation.size(), 10u);
    double lowest = validation.front().value;
    std::int64_t bestStep = validation.front().step;
    for (const auto& r : validation)
        if (r.value < lowest) lowest = r.value, bestStep = r.step;
    ASSERT_GT(validation.back().value, lowest * 1.05)
        << "the validation loss must rise for this test to mean anything";
    ASSERT_LT(bestStep, validation.back().step);
    const auto best = safetensors::read(dir.file("long") + "/" + runfiles::kBestModel);
    const auto last = safetensors::read(dir.file("long") + "/" + runfiles::kModel);
    EXPECT_EQ(best.metadata.at("step"), std::to_string(bestStep));
    EXPECT_NE(best.data, last.data) << "the best file holds the last weights";

    // The same run stopped at the best step (training is deterministic on one thread).
    c.train.maxSteps = bestStep;
    TrainingJob(c, dir.file("short")).run();
    const auto atBestStep = safetensors::read(dir.file("short") + "/" + runfiles::kModel);
    EXPECT_EQ(atBestStep.metadata.at("step"), std::to_string(bestStep));
    EXPECT_TRUE(best.data == atBestStep.data) << "the best file's weights are not those of step " << bestStep;

    // Resumed for 40 more steps, over which the validation loss goes on rising: the better best stays.
    TrainingJob::resume(dir.file("long"), 0, 200)->run();
    const auto resumed = loadRunFolder(dir.file("long"));
    ASSERT_EQ(resumed.info.summary.steps, 200);
    double lowestAfter = lowest;
    for (const auto& r : seriesOf(resumed.metrics, "val", "loss"))
        if (r.step > 160) lowestAfter = std::min(lowestAfter, r.value);
    ASSERT_EQ(lowestAfter, lowest) << "a later validation beat the best: this part means nothing";
    const auto bestAfter = safetensors::read(dir.file("long") + "/" + runfiles::kBestModel);
    EXPECT_EQ(bestAfter.metadata.at("step"), std::to_string(bestStep));
    EXPECT_TRUE(bestAfter.data == best.data) << "the resume replaced the best checkpoint with a worse one";
}

// --- strict meter ----------------------------------------------------------------------------------------

// Every poem of every form and pattern, however adventurous the sampling, passes the checker (known lines
// included), follows the pattern asked for, and comes with the model's probability of it.
TEST_F(TrainedRuns, StrictMeterPoemsAllPassTheChecker) {
    const auto model = TrainedModel::load(s_dir->file("poem-run"));
    const auto verse = verseCheckerForCorpus(s_dir->file("poems.json"));
    ASSERT_TRUE(verse.has_value());
    int poems = 0;
    for (auto form : {PoemForm::Quatrain5, PoemForm::Quatrain7, PoemForm::Regulated5, PoemForm::Regulated7}) {
        for (const auto pattern : {MeterPattern::Auto, MeterPattern::LevelStart, MeterPattern::ObliqueStart,
                                   MeterPattern::LevelStartRhymed, MeterPattern::ObliqueStartRhymed}) {
            SCOPED_TRACE(formName(form) + " " + toString(pattern));
            GenerateOptions o;
            o.form = form;
            o.meter = Meter::Strict;
            o.pattern = pattern;
            o.verse = &*verse;
            o.temperature = 1.5;
            o.samples = 8;
            o.rngSeed = 21;
            for (const auto& poem : allOf(model->generate(o), o.samples)) {
                const VerseReport report = verse->check(poem.text);
                EXPECT_TRUE(report.passed) << poem.text << "\n" << verseSummary(report);
                if (pattern != MeterPattern::Auto) EXPECT_EQ(poem.pattern, pattern);
                EXPECT_NE(poem.pattern, MeterPattern::Auto);
                const int lineChars = form == PoemForm::Quatrain5 || form == PoemForm::Regulated5 ? 5 : 7;
                for (std::size_t line = 0; line < report.lines.size(); ++line) {
                    const auto chars = decodeUtf8(report.lines[line], "line");
                    for (int p = 1; p < lineChars - 1; p += 2) {  // the judged positions have their tone
                        const auto slot = meterSlot(poem.pattern, lineChars, static_cast<int>(line), p);
                        const Tone t = verse->tones().tone(chars[static_cast<std::size_t>(p)]);
                        EXPECT_EQ(t, slot == MeterSlot::Level ? Tone::Level : Tone::Oblique) << poem.text;
                    }
                }
                EXPECT_LT(poem.logProbability, 0);
                EXPECT_EQ(poem.tokens, static_cast<std::int64_t>(countCodePoints(poem.text)) -
                                           static_cast<std::int64_t>(report.lines.size() / 2))
                    << "every character and mark, one line break per couplet as the corpus has them";
                ++poems;
            }
        }
    }
    EXPECT_EQ(poems, 4 * 5 * 8);
}

// Unconstrained, the memorizing model copies its poem; under strict meter it must write new lines, even
// greedily (a copied line is redone with its last character banned, stepping back further when needed).
TEST_F(TrainedRuns, StrictMeterNeverCopiesALineOfTheCorpus) {
    const auto model = TrainedModel::load(s_dir->file("memorized-run"));
    const auto verse = verseCheckerForCorpus(s_dir->file("memorized/poems.json"));
    ASSERT_TRUE(verse.has_value());
    GenerateOptions o;
    o.form = PoemForm::Quatrain7;
    o.temperature = 0;
    const auto copied = verse->check(model->generate(o).at(0).text);
    ASSERT_GE(copied.result(VerseRule::Novelty).violations, 2)
        << "the model was meant to have learnt the poem by heart: " << copied.lines.at(0);
    o.meter = Meter::Strict;
    o.pattern = MeterPattern::ObliqueStartRhymed;  // the memorized poem's own
    o.verse = &*verse;
    const auto greedy = model->generate(o).at(0);
    const auto report = verse->check(greedy.text);
    EXPECT_TRUE(report.passed) << greedy.text << "\n" << verseSummary(report);
    EXPECT_EQ(report.result(VerseRule::Novelty).checks, 4);
    o.temperature = 1.0;
    o.samples = 10;
    o.pattern = MeterPattern::Auto;
    for (const auto& poem : allOf(model->generate(o), o.samples))
        EXPECT_TRUE(verse->check(poem.text).passed) << poem.text;
}

TEST_F(TrainedRuns, AStrictSeedChoosesThePatternsItFits) {
    const auto model = TrainedModel::load(s_dir->file("poem-run"));
    const auto verse = verseCheckerForCorpus(s_dir->file("poems.json"));
    GenerateOptions o;
    o.form = PoemForm::Quatrain7;
    o.meter = Meter::Strict;
    o.verse = &*verse;
    o.seedText = "春月";  // 月 is oblique: 仄起
    o.samples = 12;
    o.rngSeed = 4;
    for (const auto& poem : allOf(model->generate(o), o.samples)) {
        EXPECT_EQ(poem.text.rfind("春月", 0), 0u);
        EXPECT_TRUE(poem.pattern == MeterPattern::ObliqueStart ||
                    poem.pattern == MeterPattern::ObliqueStartRhymed)
            << meterPatternLabel(poem.pattern);
        EXPECT_TRUE(verse->check(poem.text).passed) << poem.text;
    }
    o.pattern = MeterPattern::LevelStart;
    try {
        model->generate(o);
        FAIL() << "a 平起 pattern cannot start with 春月";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("position 2, and '月' is oblique"), std::string::npos)
            << e.what();
    }
    o.pattern = MeterPattern::Auto;
    o.seedText = "春月春月春月春";  // position 6 oblique as position 2: no pattern
    EXPECT_THROW(model->generate(o), InputError);
    // A seed that is a whole line of the corpus cannot start a poem of new lines.
    const auto memorized = TrainedModel::load(s_dir->file("memorized-run"));
    const auto memorizedVerse = verseCheckerForCorpus(s_dir->file("memorized/poems.json"));
    o.verse = &*memorizedVerse;
    o.seedText = "月夜春山水日人";
    try {
        memorized->generate(o);
        FAIL() << "the seed is the memorized poem's first line";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("the seed text '月夜春山水日人' is one"), std::string::npos)
            << e.what();
    }
    // An acrostic of a poem is Chinese characters, with or without strict meter.
    o.seedText.clear();
    o.acrostic = "春，";
    EXPECT_THROW(memorized->generate(o), InputError);
    o.meter = Meter::Free;
    EXPECT_THROW(memorized->generate(o), InputError);
}

TEST_F(TrainedRuns, StrictMeterNeedsAPoemFormAndTables) {
    const auto model = TrainedModel::load(s_dir->file("poem-run"));
    GenerateOptions o;
    o.form = PoemForm::Quatrain7;
    o.meter = Meter::Strict;
    try {
        model->generate(o);
        FAIL() << "no tables given";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("prepare tang-quatrains-7"), std::string::npos) << e.what();
    }
    const auto verse = verseCheckerForCorpus(s_dir->file("poems.json"));
    o.verse = &*verse;
    o.form = PoemForm::Free;
    EXPECT_THROW(model->generate(o), InputError);
    EXPECT_EQ(meterFromString("strict"), Meter::Strict);
    EXPECT_THROW(meterFromString("loose"), InputError);
}

// The probability reported with a sample is the model's: what scoring the text again through LibTorch
// gives, and a learnt pattern is far likelier than a hot sample.
TEST_F(TrainedRuns, ASamplesProbabilityIsTheModels) {
    const auto model = TrainedModel::load(s_dir->file("pattern-run"));
    GenerateOptions o;
    o.seedText = "abc";
    o.length = 30;
    o.temperature = 0;
    o.fullPrecision = true;
    const auto greedy = model->generate(o).at(0);
    std::int64_t tokens = 0;
    EXPECT_NEAR(greedy.logProbability, model->logProbability(greedy.text, &tokens), 1e-3);
    EXPECT_EQ(tokens, greedy.tokens);
    EXPECT_EQ(greedy.tokens, static_cast<std::int64_t>(countCodePoints(greedy.text)));
    o.temperature = 3;
    o.rngSeed = 8;
    const auto hot = model->generate(o).at(0);
    EXPECT_NEAR(hot.logProbability, model->logProbability(hot.text), 1e-3);
    EXPECT_LT(greedy.bitsPerToken(), 1.0);
    EXPECT_GT(hot.bitsPerToken(), greedy.bitsPerToken() + 1.0);
    // A poem's: of its text with one couplet to a line, as the model reads it.
    const auto poems = TrainedModel::load(s_dir->file("poem-run"));
    GenerateOptions p;
    p.form = PoemForm::Regulated5;
    p.fullPrecision = true;
    p.rngSeed = 3;
    const auto poem = poems->generate(p).at(0);
    std::string couplets = poem.text;
    for (std::size_t at; (at = couplets.find("，\n")) != std::string::npos;) couplets.erase(at + 3, 1);
    EXPECT_NEAR(poem.logProbability, poems->logProbability(couplets, &tokens), 1e-3) << couplets;
    EXPECT_EQ(tokens, poem.tokens);
    // The 16-bit path's probabilities are the same up to its rounding.
    o.fullPrecision = false;
    o.temperature = 0;
    EXPECT_NEAR(model->generate(o).at(0).bitsPerToken(), greedy.bitsPerToken(), 0.05);
}

// Issue #45: free text of length 120 from a model of short documents gave samples of 2 to 14 characters,
// each ending where the model ended its document. Now an end of document is a blank line and the sample
// goes on to its length; --stop-at-end (stopAtDocumentEnd) keeps the old, short samples.
TEST(FreeText, GoesOnPastTheEndOfADocumentToItsLength) {
    wbtest::TempDir dir;
    std::string corpus;
    for (int i = 0; i < 400; ++i) corpus += "abc\n\n";
    wbtest::writeText(dir.path() / "short.txt", corpus);
    auto c = wbtest::tinyLanguageModel(dir.file("short.txt"));
    c.train.maxSteps = 120;
    TrainingJob(c, dir.file("run")).run();
    const auto model = TrainedModel::load(dir.file("run"));
    GenerateOptions o;
    o.seedText = "a";
    o.length = 40;
    o.temperature = 0;
    const auto whole = model->generate(o).at(0).text;
    EXPECT_GE(countCodePoints(whole), 30u) << whole;
    EXPECT_LE(countCodePoints(whole), 41u) << whole;
    EXPECT_NE(whole.find("abc\n\nabc"), std::string::npos) << whole;
    o.stopAtDocumentEnd = true;
    const auto first = model->generate(o).at(0).text;
    EXPECT_EQ(first, "abc") << "the model ends its document after abc";
}
