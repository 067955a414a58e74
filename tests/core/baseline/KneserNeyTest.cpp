// The interpolated Kneser-Ney baseline: a distribution over the whole vocabulary for every context (seen,
// unseen, short), the unigram level by hand, windows scored as the validator scores them, the cache, and a
// character model's run folder: baseline.json, and a "bpc" metric that is the loss in bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>

#include "baseline/KneserNey.h"
#include "support/TestSupport.h"
#include "support/TinyExperiments.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Training.h"

using namespace wb;
namespace fs = std::filesystem;

namespace {

// A stream with structure at several orders: a repeated phrase with random substitutions.
std::vector<std::int64_t> structuredStream(std::size_t n, std::int64_t vocabulary, unsigned seed) {
    std::mt19937 rng(seed);
    const std::vector<std::int64_t> phrase = {1, 2, 3, 4, 2, 5, 6, 1, 7, 3};
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < n; ++i)
        out.push_back(rng() % 5 == 0 ? static_cast<std::int64_t>(rng() % vocabulary)
                                     : phrase[i % phrase.size()]);
    return out;
}

double sumOverVocabulary(const KneserNeyModel& m, const std::vector<std::int64_t>& context, int maxOrder) {
    double sum = 0;
    for (std::int64_t w = 0; w < m.vocabulary(); ++w)
        sum += m.probability(context.data(), context.size(), w, maxOrder);
    return sum;
}

}  // namespace

TEST(KneserNey, EveryContextGivesADistributionOverTheVocabulary) {
    const std::int64_t vocabulary = 12;  // tokens 8..11 never occur in training
    const auto train = structuredStream(3000, 8, 1);
    const KneserNeyModel model(train, vocabulary, 5);
    const std::vector<std::vector<std::int64_t>> contexts = {
        {},                  // no context: the unigram level
        {1},                 // seen
        {1, 2, 3, 4},        // a seen 4-gram context
        {3, 4, 2, 5, 6, 1},  // longer than the model uses
        {9, 10, 11, 8},      // never seen at any order but the uniform
        {4, 4, 4, 9},        // seen in part
    };
    for (const auto& context : contexts)
        for (int order = 1; order <= 5; ++order) {
            const double sum = sumOverVocabulary(model, context, order);
            EXPECT_NEAR(sum, 1.0, 1e-9) << "context of " << context.size() << " tokens, order " << order;
        }
    // Every token, even one never seen in training, keeps some probability.
    EXPECT_GT(model.probability(nullptr, 0, 11), 0);
    EXPECT_GT(model.probability(contexts[2].data(), 4, 10), 0);
    EXPECT_EQ(model.probability(nullptr, 0, 12), 0) << "outside the vocabulary";
}

// The unigram level by hand: counts 0:2, 1:1, 2:1 of four tokens, n1 = 2 and n2 = 1 give the discount
// 2 / (2 + 2) = 0.5, and the 0.5 x 3 types / 4 tokens = 0.375 held back is spread uniformly over 4 tokens.
TEST(KneserNey, TheUnigramLevelByHand) {
    const KneserNeyModel model({0, 0, 1, 2}, 4, 1);
    EXPECT_DOUBLE_EQ(model.probability(nullptr, 0, 0), 1.5 / 4 + 0.375 / 4);
    EXPECT_DOUBLE_EQ(model.probability(nullptr, 0, 1), 0.5 / 4 + 0.375 / 4);
    EXPECT_DOUBLE_EQ(model.probability(nullptr, 0, 3), 0.375 / 4);
}

// Orders 2 and 3 by hand (issue #32: only the unigram was checked by hand, so absolute discounting without
// continuation counts would have passed). Corpus 0 1 0 2 0 1, vocabulary 3.
//   Continuation counts of the unigrams (distinct left neighbours): 0:2 (after 1 and 2), 1:1, 2:1, so
//   n1 = 2, n2 = 1, D1 = 2 / (2 + 2) = 0.5, and P1 = (max(cc - 0.5, 0) + 0.5 x 3 x 1/3) / 4: 0.5, 0.25, 0.25.
//   (Raw counts 0:3, 1:2, 2:1 would give 0.5417, 0.2917, 0.1667: the unigram model alone, which uses them.)
//   Order 2, raw bigrams 01:2, 10:1, 02:1, 20:1: n1 = 3, n2 = 1, D2 = 3 / 5 = 0.6. After 0 (3 bigrams of 2
//   types): P(1|0) = 1.4/3 + 0.6 x 2/3 x 0.25 = 0.56667, P(2|0) = 0.4/3 + 0.1 = 0.23333, P(0|0) = 0.4 x 0.5.
TEST(KneserNey, OrderTwoByHand) {
    const KneserNeyModel model({0, 1, 0, 2, 0, 1}, 3, 2);
    const std::int64_t zero = 0, one = 1;
    EXPECT_NEAR(model.probability(&zero, 1, 1), 1.4 / 3 + 0.6 * 2.0 / 3 * 0.25, 1e-15);
    EXPECT_NEAR(model.probability(&zero, 1, 2), 0.4 / 3 + 0.6 * 2.0 / 3 * 0.25, 1e-15);
    EXPECT_NEAR(model.probability(&zero, 1, 0), 0.6 * 2.0 / 3 * 0.5, 1e-15);
    // After 1 (one bigram, 10): P(0|1) = 0.4 + 0.6 x 0.5, P(1|1) = P(2|1) = 0.6 x 0.25.
    EXPECT_NEAR(model.probability(&one, 1, 0), 0.4 + 0.3, 1e-15);
    EXPECT_NEAR(model.probability(&one, 1, 2), 0.15, 1e-15);
}

// Order 3 on the same corpus: four trigrams seen once each (n1 = 4, n2 = 0: the discount estimate 1 is
// kept to 0.95), and the bigrams' continuation counts (one left neighbour each: 10 after 0, 02 after 1,
// 20 after 0, 01 after 2) are all 1 (D = 0.95 too). After 0 at the middle order: 01 and 02, total 2, so
// P2(1|0) = P2(2|0) = 0.05/2 + 0.95 x 0.25 = 0.2625, P2(0|0) = 0.95 x 0.5 = 0.475. After 1 0 (the trigram
// 102): P(2|1 0) = 0.05 + 0.95 x 0.2625 = 0.299375, P(0|1 0) = 0.95 x 0.475 = 0.45125.
TEST(KneserNey, OrderThreeByHand) {
    const KneserNeyModel model({0, 1, 0, 2, 0, 1}, 3, 3);
    const std::int64_t oneZero[] = {1, 0}, twoTwo[] = {2, 2};
    EXPECT_NEAR(model.probability(oneZero, 2, 2), 0.299375, 1e-15);
    EXPECT_NEAR(model.probability(oneZero, 2, 0), 0.45125, 1e-15);
    EXPECT_NEAR(model.probability(oneZero, 2, 1), 0.95 * 0.2625, 1e-15);
    // A context never seen at order 3 (2 2) falls to the bigram level of its last token (2, one bigram 20,
    // raw counts at the top): P(0|2) = 0.05 + 0.95 x 0.5.
    EXPECT_NEAR(model.probability(twoTwo, 2, 0), 0.05 + 0.95 * 0.5, 1e-15);
}

namespace {

// Interpolated Kneser-Ney written from its definition (Chen & Goodman 1998, one discount per order), with
// n-grams as vectors in maps: nothing shared with KneserNeyModel's packed keys and per-level tables.
class ReferenceKneserNey {
public:
    ReferenceKneserNey(const std::vector<std::int64_t>& tokens, std::int64_t vocabulary, int order)
        : m_vocabulary(vocabulary), m_order(order) {
        for (int n = 1; n <= order; ++n)
            for (std::size_t i = 0; i + n <= tokens.size(); ++i)
                ++m_raw[{tokens.begin() + i, tokens.begin() + i + n}];
        // The continuation count of an n-gram (n < order): how many distinct tokens come right before it.
        for (const auto& [gram, count] : m_raw)
            if (int(gram.size()) >= 2) ++m_continuation[{gram.begin() + 1, gram.end()}];
    }

    double probability(const std::vector<std::int64_t>& context, std::int64_t token) const {
        const int top = std::min<int>(m_order, int(context.size()) + 1);
        return level(context, token, top, top);
    }

private:
    using Gram = std::vector<std::int64_t>;
    // The counts the level n uses: raw at the top order, continuation counts below it.
    const std::map<Gram, std::int64_t>& counts(int n, int top) const {
        return n == top ? m_raw : m_continuation;
    }

    double discount(int n, int top) const {
        std::int64_t once = 0, twice = 0;
        for (const auto& [gram, c] : counts(n, top))
            if (int(gram.size()) == n) {
                once += c == 1;
                twice += c == 2;
            }
        const double d = once + 2 * twice > 0 ? double(once) / double(once + 2 * twice) : 0.5;
        return std::clamp(d, 0.05, 0.95);
    }

    double level(const std::vector<std::int64_t>& context, std::int64_t token, int n, int top) const {
        if (n == 0) return 1.0 / double(m_vocabulary);
        const double lower = level(context, token, n - 1, top);
        const Gram history(context.end() - (n - 1), context.end());
        double total = 0, types = 0, count = 0;
        for (std::int64_t w = 0; w < m_vocabulary; ++w) {
            Gram gram = history;
            gram.push_back(w);
            const auto found = counts(n, top).find(gram);
            if (found == counts(n, top).end()) continue;
            total += double(found->second);
            types += 1;
            if (w == token) count = double(found->second);
        }
        if (total == 0) return lower;
        const double d = discount(n, top);
        return std::max(count - d, 0.0) / total + d * types / total * lower;
    }

    std::int64_t m_vocabulary;
    int m_order;
    std::map<Gram, std::int64_t> m_raw, m_continuation;
};

}  // namespace

// The 5-gram against the reference on a stream with structure at several orders, in contexts of every
// length, seen, unseen and half seen.
TEST(KneserNey, TheFiveGramMatchesAnIndependentImplementation) {
    const auto train = structuredStream(600, 8, 8);
    const std::int64_t vocabulary = 9;  // token 8 never occurs in training
    const KneserNeyModel model(train, vocabulary, 5);
    const ReferenceKneserNey reference(train, vocabulary, 5);
    const auto probe = structuredStream(80, 9, 9);
    int compared = 0;
    for (std::size_t end = 0; end < probe.size(); ++end)
        for (std::size_t length = 0; length <= std::min<std::size_t>(end, 5); ++length) {
            const std::vector<std::int64_t> context(probe.begin() + (end - length), probe.begin() + end);
            for (std::int64_t token = 0; token < vocabulary; ++token) {
                ASSERT_NEAR(model.probability(context.data(), context.size(), token),
                            reference.probability(context, token), 1e-12)
                    << "context of " << length << " tokens ending at " << end << ", token " << token;
                ++compared;
            }
        }
    EXPECT_GT(compared, 2000);
}

TEST(KneserNey, HigherOrdersScoreAStructuredStreamBetter) {
    const auto train = structuredStream(20000, 8, 2), validation = structuredStream(4000, 8, 3);
    const KneserNeyModel model(train, 8, 5);
    const auto b = scoreBaseline(model, validation, 16);
    ASSERT_EQ(b.bitsPerTokenByOrder.size(), 5u);
    EXPECT_DOUBLE_EQ(b.bitsPerToken, b.bitsPerTokenByOrder.back());
    EXPECT_LT(b.bitsPerTokenByOrder[1], b.bitsPerTokenByOrder[0] - 0.5) << "a bigram sees the phrase";
    EXPECT_LT(b.bitsPerTokenByOrder[4], b.bitsPerTokenByOrder[1]);
    EXPECT_LT(b.bitsPerTokenByOrder[0], 3.0 + 1e-9) << "no worse than uniform over 8 tokens";
    // Windows of 17 tokens every 16, each predicting its last 16: 249 whole windows in 4000 tokens.
    EXPECT_EQ(b.validationTargets, 249 * 16);
}

// The score of one window by hand, from the model's own probabilities with the window's context only.
TEST(KneserNey, AWindowIsScoredFromItsOwnTokensOnly) {
    const auto train = structuredStream(2000, 8, 4);
    const KneserNeyModel model(train, 8, 3);
    const std::vector<std::int64_t> validation = {1, 2, 3, 4, 2, 5, 6};  // one window of 3 + 1, then 3 + 1
    const auto b = scoreBaseline(model, validation, 3);
    double bits = 0;
    for (std::size_t start : {0, 3})
        for (std::size_t j = 1; j <= 3; ++j)
            bits -= std::log2(model.probability(validation.data() + start, j, validation[start + j]));
    EXPECT_EQ(b.validationTargets, 6);
    EXPECT_NEAR(b.bitsPerToken, bits / 6, 1e-12);
}

TEST(KneserNey, RefusesBadInput) {
    EXPECT_THROW(KneserNeyModel({0, 1}, 2, 0), InputError);
    EXPECT_THROW(KneserNeyModel({0, 1}, 2, 6), InputError);
    EXPECT_THROW(KneserNeyModel({0, 2}, 2, 3), InputError) << "a token outside the vocabulary";
}

TEST(KneserNey, TheBaselineIsCachedAndADamagedCacheFileIsReplaced) {
    wbtest::TempDir dir;
    const auto train = structuredStream(3000, 8, 5), validation = structuredStream(600, 8, 6);
    const auto first = computeBaseline(train, validation, 8, 16, dir.file("cache"));
    EXPECT_FALSE(first.cached);
    EXPECT_EQ(first.trainTokens, 3000);
    const auto files = wbtest::listTree(dir.path() / "cache");
    ASSERT_EQ(files.size(), 1u);
    const auto second = computeBaseline(train, validation, 8, 16, dir.file("cache"));
    EXPECT_TRUE(second.cached);
    EXPECT_DOUBLE_EQ(second.bitsPerToken, first.bitsPerToken);
    // Another split is another entry.
    const auto other = computeBaseline(train, structuredStream(600, 8, 7), 8, 16, dir.file("cache"));
    EXPECT_FALSE(other.cached);
    EXPECT_EQ(wbtest::listTree(dir.path() / "cache").size(), 2u);
    // A damaged entry is recomputed and rewritten.
    wbtest::writeText(dir.path() / "cache" / files.front(), "{\"order\": ");
    const auto again = computeBaseline(train, validation, 8, 16, dir.file("cache"));
    EXPECT_FALSE(again.cached);
    EXPECT_DOUBLE_EQ(again.bitsPerToken, first.bitsPerToken);
    EXPECT_TRUE(computeBaseline(train, validation, 8, 16, dir.file("cache")).cached);
}

TEST(KneserNey, BaselineJsonRoundTripsAndBadFilesAreNamed) {
    NgramBaseline b;
    b.bitsPerToken = 2.5;
    b.bitsPerTokenByOrder = {4.0, 3.0, 2.7, 2.6, 2.5};
    b.trainTokens = 1000;
    b.validationTargets = 100;
    b.vocabulary = 50;
    const auto back = NgramBaseline::fromJson(b.toJson(), "baseline.json");
    EXPECT_DOUBLE_EQ(back.bitsPerToken, 2.5);
    EXPECT_EQ(back.bitsPerTokenByOrder, b.bitsPerTokenByOrder);
    EXPECT_EQ(back.vocabulary, 50);
    for (const char* bad : {"[]", "{\"order\": 5}",
                            "{\"order\": 5, \"bits_per_token\": -1, \"train_tokens\": 1, "
                            "\"validation_targets\": 1, \"vocabulary\": 1}",
                            // 2^32 + 1: narrowed to int it would read as order 1
                            "{\"order\": 4294967297, \"bits_per_token\": 1, \"train_tokens\": 1, "
                            "\"validation_targets\": 1, \"vocabulary\": 1}"}) {
        try {
            NgramBaseline::fromJson(bad, "/runs/x/baseline.json");
            ADD_FAILURE() << bad;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("baseline.json"), std::string::npos) << e.what();
        }
    }
}

// A character model's run: baseline.json beside the metrics, and bpc is the loss in bits at every record.
TEST(KneserNey, ACharacterModelRunHasItsBaselineAndBitsPerCharacter) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(120));
    auto config = wbtest::tinyLanguageModel(dir.file("pattern.txt"));
    config.train.maxSteps = 8;
    config.train.validateEvery = 4;
    std::vector<std::string> log;
    TrainingCallbacks callbacks;
    callbacks.onLog = [&](const std::string& line) { log.push_back(line); };
    TrainingJob(config, dir.file("run")).run(callbacks);

    const auto run = loadRunFolder(dir.file("run"));
    ASSERT_TRUE(run.baseline.has_value());
    EXPECT_EQ(run.baseline->order, 5);
    EXPECT_GT(run.baseline->bitsPerToken, 0);
    EXPECT_GT(run.baseline->validationTargets, 0);
    bool said = false;
    for (const auto& line : log) said = said || line.find("5-gram") != std::string::npos;
    EXPECT_TRUE(said) << "the log names the baseline";
    for (const char* split : {"train", "val"}) {
        const auto loss = seriesOf(run.metrics, split, "loss"), bpc = seriesOf(run.metrics, split, "bpc");
        ASSERT_FALSE(bpc.empty()) << split;
        ASSERT_EQ(bpc.size(), loss.size()) << split;
        for (std::size_t i = 0; i < bpc.size(); ++i) {
            EXPECT_EQ(bpc[i].step, loss[i].step);
            // Both as metrics.csv keeps them: to 9 significant digits.
            EXPECT_NEAR(bpc[i].value, loss[i].value / std::log(2.0), 2e-8 * (1 + loss[i].value));
        }
    }
}

TEST(KneserNey, AClassifierRunHasNeither) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "reviews.tsv", wbtest::separableTsv(120));
    auto config = wbtest::tinyClassifier(dir.file("reviews.tsv"));
    config.train.maxSteps = 4;
    TrainingJob(config, dir.file("run")).run({});
    const auto run = loadRunFolder(dir.file("run"));
    EXPECT_FALSE(run.baseline.has_value());
    EXPECT_TRUE(seriesOf(run.metrics, "val", "bpc").empty());
    EXPECT_FALSE(fs::exists(dir.path() / "run" / runfiles::kBaseline));
}
