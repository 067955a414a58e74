// Encoded datasets: LM windows and targets, classifier padding/truncation, stratified deterministic splits.
#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "data/TextDatasets.h"
#include "support/BadInputs.h"
#include "support/TestSupport.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/TokenStore.h"

using namespace wb;

namespace {
Corpus textCorpus(const std::string& text) {
    Corpus c;
    c.source = "mem.txt";
    c.format = CorpusFormat::Text;
    c.documents.push_back({text, "", "", ""});
    return c;
}
}  // namespace

TEST(TextDatasets, LanguageModelWindowsPredictTheNextToken) {
    auto config = defaultConfig(Task::LanguageModel);
    config.data.seqLen = 4;
    config.data.valFraction = 0;
    const auto d = prepareData(config, textCorpus("abcdefghij"));
    // 10 characters + <eos> = 11 tokens; windows of 5 every 4 tokens: starts 0 and 4.
    EXPECT_EQ(d.corpusTokens, 11);
    ASSERT_EQ(d.train.size(), 2);
    const auto b = d.train.range(0, 2);
    EXPECT_EQ(b.inputs.sizes(), (std::vector<std::int64_t>{2, 4}));
    EXPECT_TRUE(torch::equal(b.inputs.narrow(1, 1, 3), b.targets.narrow(1, 0, 3)));
    EXPECT_EQ(d.vocabulary.decode({b.inputs[1][0].item<std::int64_t>()}), "e");
    EXPECT_EQ(d.validation.size(), 0);
}

TEST(TextDatasets, ValidationIsTheTailOfTheStream) {
    auto config = defaultConfig(Task::LanguageModel);
    config.data.seqLen = 4;
    config.data.valFraction = 0.5;
    const auto d = prepareData(config, textCorpus(std::string(39, 'a')));
    EXPECT_EQ(d.train.size(), 4);       // 20 tokens -> windows at 0, 4, 8, 12
    EXPECT_EQ(d.validation.size(), 4);  // 20 tokens, non-overlapping windows of 5
}

TEST(TextDatasets, CorpusShorterThanAWindowIsABadInput) {
    auto config = defaultConfig(Task::LanguageModel);
    config.data.seqLen = 64;
    EXPECT_THROW(prepareData(config, textCorpus("short")), InputError);
}

TEST(TextDatasets, ClassifierPadsTruncatesAndSplitsEveryClass) {
    Corpus c;
    c.source = "mem.tsv";
    c.format = CorpusFormat::Tsv;
    c.classes = {"neg", "pos"};
    for (int i = 0; i < 20; ++i) {
        c.documents.push_back({"good fine nice great lovely superb", "pos", "", ""});
        c.documents.push_back({"bad", "neg", "", ""});
    }
    auto config = defaultConfig(Task::Classifier);
    config.data.seqLen = 4;
    config.data.minCount = 1;
    config.data.valFraction = 0.25;
    const auto d = prepareData(config, c);
    EXPECT_EQ(d.train.size(), 30);
    EXPECT_EQ(d.validation.size(), 10);
    const auto v = d.validation.range(0, 10);
    EXPECT_EQ(v.targets.sum().item<std::int64_t>(), 5);  // 5 of each class
    const auto all = d.train.range(0, 30);
    EXPECT_EQ(all.inputs.size(1), 4);
    EXPECT_EQ(all.lengths.max().item<std::int64_t>(), 4);  // truncated
    EXPECT_EQ(all.lengths.min().item<std::int64_t>(), 1);  // "bad": padded after one token
    EXPECT_THROW(prepareData(config, textCorpus("no labels here")), InputError);
}

// The sweep's data-size axis (issue #11): a share of the training split, the validation split unchanged.
TEST(TextDatasets, DataFractionKeepsAShareOfTrainingAndAllOfValidation) {
    auto config = defaultConfig(Task::LanguageModel);
    config.data.seqLen = 4;
    config.data.valFraction = 0.5;
    config.data.dataFraction = 0.5;
    const auto d = prepareData(config, textCorpus(std::string(39, 'a')));
    EXPECT_EQ(d.train.size(), 2);       // the first 10 of 20 training tokens: windows at 0 and 4
    EXPECT_EQ(d.validation.size(), 4);  // as with all the data
    config.data.dataFraction = 0.01;    // never less than one window
    EXPECT_EQ(prepareData(config, textCorpus(std::string(39, 'a'))).train.size(), 1);

    Corpus c;
    c.source = "mem.tsv";
    c.format = CorpusFormat::Tsv;
    c.classes = {"neg", "pos"};
    for (int i = 0; i < 20; ++i) {
        c.documents.push_back({"good fine", "pos", "", ""});
        c.documents.push_back({"bad", "neg", "", ""});
    }
    auto cls = defaultConfig(Task::Classifier);
    cls.data.seqLen = 4;
    cls.data.minCount = 1;
    cls.data.valFraction = 0.25;
    cls.data.dataFraction = 0.2;
    const auto k = prepareData(cls, c);
    EXPECT_EQ(k.validation.size(), 10);
    ASSERT_EQ(k.train.size(), 6);  // 20% of each class's 15 training documents: 3 + 3
    EXPECT_EQ(k.train.range(0, 6).targets.sum().item<std::int64_t>(), 3);
}

TEST(TextDatasets, SeededOrderIsAPermutationFromItsSeedAlone) {
    // Complete on domains of every shape: one value, powers of four and one either side, odd sizes.
    for (const std::int64_t n : {1, 2, 3, 4, 5, 15, 16, 17, 100, 1000, 4097, 65536, 100003}) {
        const SeededOrder order(n, 7);
        std::vector<char> seen(static_cast<std::size_t>(n), 0);
        for (std::int64_t i = 0; i < n; ++i) {
            const auto v = order[i];
            ASSERT_TRUE(v >= 0 && v < n) << n;
            EXPECT_FALSE(seen[static_cast<std::size_t>(v)]) << "n " << n << ": " << v << " twice";
            seen[static_cast<std::size_t>(v)] = 1;
        }
    }
    // The same seed, the same order; another seed, another; and shuffled, not near the identity.
    const SeededOrder a(1000, 7), b(1000, 7), c(1000, 8);
    EXPECT_TRUE(torch::equal(a.slice(0, 1000), b.slice(0, 1000)));
    EXPECT_FALSE(torch::equal(a.slice(0, 1000), c.slice(0, 1000)));
    int fixed = 0, ascending = 0;
    for (std::int64_t i = 0; i < 1000; ++i) {
        fixed += a[i] == i;
        ascending += i > 0 && a[i] > a[i - 1];
    }
    EXPECT_LT(fixed, 10);             // a random permutation has one on average
    EXPECT_NEAR(ascending, 500, 60);  // and rises at half of its steps
    EXPECT_TRUE(torch::equal(a.slice(10, 5), a.slice(0, 15).narrow(0, 10, 5)));
    // Pinned: a resumed run must see the batches the run saw before, on every platform and build.
    std::vector<std::int64_t> first;
    for (std::int64_t i = 0; i < 8; ++i) first.push_back(a[i]);
    EXPECT_EQ(first, (std::vector<std::int64_t>{781, 711, 596, 924, 823, 765, 778, 815}));
}

// The store's windows are the in-memory path's (issue #30): running text in its order, and the documents of
// other formats shuffled from the seed, as one stream with <eos> between documents. The expected stream is
// built here by hand, as the encoder did before the store.
TEST(TextDatasets, WindowsFromAStoreOnDiskEqualTheInMemoryPath) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "poems.json", wbtest::quatrainJson(40));
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(300));
    for (const char* name : {"poems.json", "pattern.txt"}) {
        SCOPED_TRACE(name);
        auto config = defaultConfig(Task::LanguageModel);
        config.data.corpus = dir.file(name);
        config.data.format = CorpusFormat::Auto;
        config.data.seqLen = 12;
        config.data.stride = 5;
        config.data.valFraction = 0.2;
        config.data.valSize = 0;
        const auto corpus = loadCorpus(dir.file(name));
        const auto onDisk =
            prepareData(config, TokenStore::forCorpusFile(dir.file(name), config.data, dir.file("cache")));
        const auto inMemory = prepareData(config, corpus);
        ASSERT_TRUE(onDisk.vocabulary == inMemory.vocabulary);
        // By hand: documents in order (poems: shuffled as the seed says), each encoded and ended by <eos>.
        std::vector<std::size_t> order(corpus.documents.size());
        std::iota(order.begin(), order.end(), 0);
        if (corpus.format != CorpusFormat::Text) {
            std::mt19937_64 rng(config.train.seed);
            for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
        }
        std::vector<std::int64_t> stream;
        for (const auto i : order) {
            const auto ids = inMemory.vocabulary.encode(corpus.documents[i].text);
            stream.insert(stream.end(), ids.begin(), ids.end());
            stream.push_back(Vocabulary::kEos);
        }
        EXPECT_EQ(onDisk.corpusTokens, static_cast<std::int64_t>(stream.size()));
        const auto all = torch::tensor(stream, torch::kInt64);
        const auto valTokens = static_cast<std::int64_t>(static_cast<double>(stream.size()) * 0.2);
        const auto train = all.narrow(0, 0, all.size(0) - valTokens).unfold(0, 13, 5);
        const auto validation = all.narrow(0, all.size(0) - valTokens, valTokens).unfold(0, 13, 12);
        for (const auto* d : {&onDisk, &inMemory}) {
            ASSERT_EQ(d->train.size(), train.size(0));
            ASSERT_EQ(d->validation.size(), validation.size(0));
            const auto b = d->train.range(0, d->train.size());
            EXPECT_TRUE(torch::equal(b.inputs, train.narrow(1, 0, 12)));
            EXPECT_TRUE(torch::equal(b.targets, train.narrow(1, 1, 12)));
            const auto v = d->validation.range(0, d->validation.size());
            EXPECT_TRUE(torch::equal(v.inputs, validation.narrow(1, 0, 12)));
        }
        // Batches in any order read the same windows.
        const auto picked = torch::tensor(std::vector<std::int64_t>{7, 0, 3}, torch::kInt64);
        EXPECT_TRUE(
            torch::equal(onDisk.train.batch(picked).inputs, train.index_select(0, picked).narrow(1, 0, 12)));
    }
}

// Validation on a bounded sample (issue #30): at most val_size windows or texts, the same ones at every
// validation, drawn from the whole split (not its head), the whole split when it is smaller.
TEST(TextDatasets, ValidationIsABoundedFixedSampleOfTheSplit) {
    auto config = defaultConfig(Task::LanguageModel);
    config.data.seqLen = 4;
    config.data.valFraction = 0.5;
    config.data.valSize = 0;
    std::string text;
    for (int i = 0; i < 400; ++i) text += static_cast<char>('a' + i % 26);
    const auto whole = prepareData(config, textCorpus(text));
    ASSERT_EQ(whole.validation.size(), 49);  // 200 validation tokens: windows of 5 every 4
    config.data.valSize = 10;
    const auto first = prepareData(config, textCorpus(text));
    const auto again = prepareData(config, textCorpus(text));
    ASSERT_EQ(first.validation.size(), 10);
    EXPECT_TRUE(first.validation.sampled());
    EXPECT_EQ(first.validation.unsampledSize(), 49);
    const auto a = first.validation.range(0, 10), b = again.validation.range(0, 10);
    EXPECT_TRUE(torch::equal(a.inputs, b.inputs));
    EXPECT_TRUE(torch::equal(first.validation.range(0, 10).inputs, a.inputs)) << "a second read is the same";
    // Each sampled window is one of the split's, and they come from all over it.
    const auto all = whole.validation.range(0, 49).inputs;
    std::vector<std::int64_t> where;
    for (std::int64_t i = 0; i < 10; ++i)
        for (std::int64_t j = 0; j < 49; ++j)
            if (torch::equal(a.inputs[i], all[j]) && (where.empty() || j > where.back())) {
                where.push_back(j);
                break;
            }
    ASSERT_EQ(where.size(), 10u) << "every sampled window is the split's, in order";
    EXPECT_GT(where.back(), 25) << "not just the head of the split";
    EXPECT_EQ(first.validation.windowIds().size(), 10u * 5u);
    // Another seed samples others; a split smaller than the sample is whole.
    config.train.seed = 43;
    EXPECT_FALSE(
        torch::equal(prepareData(config, textCorpus(text)).validation.range(0, 10).inputs, a.inputs));
    config.data.valSize = 500;
    EXPECT_EQ(prepareData(config, textCorpus(text)).validation.size(), 49);
    EXPECT_FALSE(prepareData(config, textCorpus(text)).validation.sampled());
}

// Rank 0's or a resumed run's vocabulary, when the store was made with another: ids are read in the given
// one, tokens it lacks as <unk>.
TEST(TextDatasets, AGivenVocabularyReadsTheStoreInItsIds) {
    auto config = defaultConfig(Task::LanguageModel);
    config.data.seqLen = 4;
    config.data.valFraction = 0;
    const auto store = TokenStore::fromCorpus(textCorpus("abcabcabcabd"), config.data);
    const auto given = Vocabulary::build({"cccbba"}, TokenLevel::Char);  // c, b, a: another order; no d
    const auto d = prepareData(config, store, &given);
    EXPECT_TRUE(d.vocabulary == given);
    const auto b = d.train.range(0, d.train.size());
    EXPECT_EQ(given.decode({b.inputs[0][0].item<std::int64_t>(), b.inputs[0][1].item<std::int64_t>(),
                            b.inputs[0][2].item<std::int64_t>()}),
              "abc");
    const auto last = d.train.range(d.train.size() - 1, d.train.size()).targets;
    EXPECT_EQ(last[0][last.size(1) - 2].item<std::int64_t>(), Vocabulary::kUnk);  // the d
}
