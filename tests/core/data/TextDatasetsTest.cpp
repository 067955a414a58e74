// Encoded datasets: LM windows and targets, classifier padding/truncation, stratified deterministic splits.
#include <gtest/gtest.h>

#include "data/TextDatasets.h"
#include "support/BadInputs.h"
#include "workbench/Errors.h"

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

TEST(TextDatasets, PermutationIsDeterministicAndComplete) {
    const auto a = seededPermutation(100, 7), b = seededPermutation(100, 7), c = seededPermutation(100, 8);
    EXPECT_TRUE(torch::equal(a, b));
    EXPECT_FALSE(torch::equal(a, c));
    EXPECT_TRUE(torch::equal(std::get<0>(a.sort()), torch::arange(100, torch::kInt64)));
}

// Loading counts ~3.5 bytes a byte of text; training then holds every token as an int64 (24 bytes a token
// while the stream is built). A corpus that loads but cannot be encoded is refused with the numbers, not
// run until the kernel kills the process.
TEST(TextDatasets, RefusesAnEncodingThatDoesNotFitInMemory) {
    const std::string text(200000, 'a');  // 200,001 tokens with <eos>: ~4.6 MiB as the growing stream
    auto config = defaultConfig(Task::LanguageModel);
    config.data.seqLen = 8;
    {  // a 1 MiB limit until the end of this block
        const wbtest::ScopedEnv limit(
            std::map<std::string, std::string>{{"WORKBENCH_MEMORY_LIMIT_BYTES", "1048576"}});
        try {
            prepareData(config, textCorpus(text));
            ADD_FAILURE() << "expected an InputError";
        } catch (const InputError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("mem.txt"), std::string::npos) << what;
            EXPECT_NE(what.find("encoding it for training needs more than"), std::string::npos) << what;
            EXPECT_NE(what.find("1.0 MiB available"), std::string::npos) << what;
        }
        auto classifier = defaultConfig(Task::Classifier);
        classifier.data.seqLen = 100000;  // 4 documents x 100,000 padded tokens x 8 bytes = 3.1 MiB
        Corpus labelled;
        labelled.source = "reviews.tsv";
        labelled.format = CorpusFormat::Tsv;
        for (const char* label : {"pos", "neg", "pos", "neg"})
            labelled.documents.push_back({"fine", label, "", ""});
        labelled.classes = {"neg", "pos"};
        EXPECT_THROW(prepareData(classifier, labelled), InputError);
    }
    // With room it encodes.
    EXPECT_EQ(prepareData(config, textCorpus(text)).corpusTokens, 200001);
}
