// Vocabularies: tokenisation rules, deterministic build order, size and count limits, and the vocab.json
// format with its validation.
#include <gtest/gtest.h>

#include "workbench/domain/Errors.h"
#include "workbench/domain/Vocabulary.h"

namespace {

using Tokens = std::vector<std::string>;

TEST(Tokenize, WordsLowercasePunctuationApostrophesAndCjk) {
    EXPECT_EQ(wb::tokenizeWords("Don't stop, Mr. O'Neil!  'quoted' 42x"),
              (Tokens{"don't", "stop", ",", "mr", ".", "o'neil", "!", "'", "quoted", "'", "42x"}));
    EXPECT_EQ(wb::tokenizeWords("春眠不覺曉，處處聞啼鳥。"),
              (Tokens{"春", "眠", "不", "覺", "曉", "，", "處", "處", "聞", "啼", "鳥", "。"}));
    EXPECT_EQ(wb::tokenizeWords("Café\tNAÏVE\n\n"), (Tokens{"café", "naÏve"}));
    EXPECT_EQ(wb::tokenizeWords("rock’n’roll —yes"), (Tokens{"rock’n’roll", "—", "yes"}));
    EXPECT_TRUE(wb::tokenizeWords(" \n\t ").empty());
}

TEST(Tokenize, CharsOnePerCodePoint) { EXPECT_EQ(wb::tokenizeChars("a春 😀"), (Tokens{"a", "春", " ", "😀"})); }

TEST(Vocabulary, DefaultHasSpecialsOnly) {
    wb::Vocabulary v;
    EXPECT_EQ(v.tokens(), (Tokens{"<pad>", "<unk>", "<bos>", "<eos>"}));
    EXPECT_EQ(v.id("x"), wb::Vocabulary::kUnk);
    EXPECT_EQ(v.id("<eos>"), wb::Vocabulary::kEos);
}

TEST(Vocabulary, BuildSortsByCountThenToken) {
    // counts: a 3, b 3, c 1, 春 2
    const std::vector<std::string> docs = {"abca", "ab春", "b春"};
    const auto v = wb::Vocabulary::build(docs, wb::TokenLevel::Char);
    EXPECT_EQ(v.tokens(), (Tokens{"<pad>", "<unk>", "<bos>", "<eos>", "a", "b", "春", "c"}));
    EXPECT_EQ(v.id("a"), 4);
    EXPECT_EQ(v.id("c"), 7);
    EXPECT_EQ(v.level(), wb::TokenLevel::Char);
    // Document order does not matter.
    const auto reversed = wb::Vocabulary::build({"b春", "ab春", "abca"}, wb::TokenLevel::Char);
    EXPECT_EQ(v, reversed);
}

TEST(Vocabulary, MaxSizeCountsSpecialsAndMinCountDrops) {
    const std::vector<std::string> docs = {"abca", "ab春", "b春"};
    EXPECT_EQ(wb::Vocabulary::build(docs, wb::TokenLevel::Char, 6).tokens(),
              (Tokens{"<pad>", "<unk>", "<bos>", "<eos>", "a", "b"}));
    EXPECT_EQ(wb::Vocabulary::build(docs, wb::TokenLevel::Char, 3).size(), 4u);
    EXPECT_EQ(wb::Vocabulary::build(docs, wb::TokenLevel::Char, 0, 2).tokens(),
              (Tokens{"<pad>", "<unk>", "<bos>", "<eos>", "a", "b", "春"}));
    EXPECT_EQ(wb::Vocabulary::build(docs, wb::TokenLevel::Char, 0, 4).size(), 4u);
}

TEST(Vocabulary, WordLevelEncodeDecode) {
    const auto v = wb::Vocabulary::build({"the cat sat", "The dog sat.", "the end"}, wb::TokenLevel::Word);
    // the 3, sat 2, then '.', cat, dog, end by string order
    EXPECT_EQ(v.tokens(),
              (Tokens{"<pad>", "<unk>", "<bos>", "<eos>", "the", "sat", ".", "cat", "dog", "end"}));
    const auto ids = v.encode("The bird sat.");
    EXPECT_EQ(ids, (std::vector<std::int64_t>{4, wb::Vocabulary::kUnk, 5, 6}));
    EXPECT_EQ(v.decode({wb::Vocabulary::kBos, 4, 7, 5, wb::Vocabulary::kEos, wb::Vocabulary::kPad}),
              "the cat sat");
    EXPECT_EQ(v.tokenize("Cat!"), (Tokens{"cat", "!"}));
}

TEST(Vocabulary, CharLevelEncodeDecode) {
    const auto v = wb::Vocabulary::build({"春風春"}, wb::TokenLevel::Char);
    EXPECT_EQ(v.encode("風春雨"), (std::vector<std::int64_t>{5, 4, wb::Vocabulary::kUnk}));
    EXPECT_EQ(v.decode({2, 4, 5, 1, 4, 3}), "春風春");
    EXPECT_TRUE(v.contains("風"));
    EXPECT_FALSE(v.contains("雨"));
    EXPECT_EQ(v.token(4), "春");
    EXPECT_THROW(v.token(99), std::out_of_range);
}

TEST(Vocabulary, JsonRoundTrip) {
    const auto v = wb::Vocabulary::build({"the cat, the hat"}, wb::TokenLevel::Word);
    const std::string json = v.toJson();
    EXPECT_NE(json.find("\"level\": \"word\""), std::string::npos) << json;
    EXPECT_EQ(wb::Vocabulary::fromJson(json, "vocab.json"), v);
    const auto c = wb::Vocabulary::build({"床前明月光"}, wb::TokenLevel::Char);
    EXPECT_EQ(wb::Vocabulary::fromJson(c.toJson(), "vocab.json"), c);
}

void expectBadVocab(const std::string& json, const std::string& fragment) {
    try {
        wb::Vocabulary::fromJson(json, "run/vocab.json");
        ADD_FAILURE() << "accepted " << json;
    } catch (const wb::InputError& e) {
        EXPECT_EQ(e.file(), "run/vocab.json");
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

TEST(Vocabulary, FromJsonRejectsBadFiles) {
    const std::string specials = R"("<pad>","<unk>","<bos>","<eos>")";
    expectBadVocab("{\"level\": \"char\",\n \"tokens\": [", "run/vocab.json:2: invalid JSON");
    expectBadVocab("[]", "expected a JSON object");
    expectBadVocab(R"({"level":"byte","tokens":[)" + specials + "]}", "level");
    expectBadVocab(R"({"level":"char"})", "tokens: expected an array");
    expectBadVocab(R"({"level":"char","tokens":["<unk>","<pad>","<bos>","<eos>"]})",
                   "tokens[0]: expected \"<pad>\"");
    expectBadVocab(R"({"level":"char","tokens":[)" + specials + R"(,"a","b","a"]})",
                   "tokens[6]: duplicate token");
    expectBadVocab(R"({"level":"char","tokens":[)" + specials + R"(,"a",3]})",
                   "tokens[5]: expected a string");
    expectBadVocab(R"({"level":"char","tokens":["<pad>"]})", "at least the 4 special tokens");
}

TEST(Vocabulary, LevelStrings) {
    EXPECT_EQ(wb::toString(wb::TokenLevel::Char), "char");
    EXPECT_EQ(wb::tokenLevelFromString("word"), wb::TokenLevel::Word);
    EXPECT_THROW(wb::tokenLevelFromString("bytes"), wb::InputError);
}

}  // namespace
