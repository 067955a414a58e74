// Strict UTF-8 decoding: every class of invalid input is refused with the exact line and byte offset, and
// the one-line InputError format that the CLI and GUI show.
#include <gtest/gtest.h>

#include "workbench/domain/Errors.h"
#include "workbench/domain/Utf8.h"

namespace {

wb::InputError decodeError(const std::string& bytes, const std::string& source = "poems.txt") {
    try {
        wb::decodeUtf8(bytes, source);
    } catch (const wb::InputError& e) {
        return e;
    }
    ADD_FAILURE() << "expected an InputError for " << ::testing::PrintToString(bytes);
    return wb::InputError("none");
}

TEST(InputError, FormatsFileLineAndReasonOnOneLine) {
    EXPECT_STREQ(wb::InputError("a.txt", 3, "expected x").what(), "a.txt:3: expected x");
    EXPECT_STREQ(wb::InputError("a.txt", 0, "expected x").what(), "a.txt: expected x");
    EXPECT_STREQ(wb::InputError("", 0, "expected x").what(), "expected x");
    EXPECT_STREQ(wb::InputError("just a reason").what(), "just a reason");
    const wb::InputError e("f.csv", 2, "bad\nvalue\r here", 17);
    EXPECT_STREQ(e.what(), "f.csv:2: bad value  here");
    EXPECT_EQ(e.reason(), "bad value  here");
    EXPECT_EQ(e.file(), "f.csv");
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.byteOffset(), 17);
    EXPECT_EQ(wb::InputError("x").byteOffset(), -1);
}

TEST(Utf8, DecodesAsciiAndChinese) {
    EXPECT_EQ(wb::decodeUtf8("abc", "s"), U"abc");
    EXPECT_EQ(wb::decodeUtf8("春眠不覺曉", "s"), U"春眠不覺曉");
    EXPECT_EQ(wb::decodeUtf8("é€😀", "s"), U"\u00e9\u20ac\U0001F600");
    EXPECT_EQ(wb::decodeUtf8("", "s"), U"");
}

TEST(Utf8, SkipsLeadingBomOnly) {
    EXPECT_EQ(wb::decodeUtf8("\xEF\xBB\xBF"
                             "a",
                             "s"),
              U"a");
    EXPECT_EQ(wb::decodeUtf8("a\xEF\xBB\xBF", "s"), U"a\uFEFF");
}

TEST(Utf8, ReportsLineAndOffsetOfInvalidByte) {
    const auto e = decodeError(
        "ab\ncd\n\xFF"
        "z");
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.byteOffset(), 6);
    EXPECT_EQ(e.file(), "poems.txt");
    EXPECT_EQ(std::string(e.what()).rfind("poems.txt:3: invalid UTF-8 (byte 0xFF at offset 6)", 0), 0u)
        << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
}

TEST(Utf8, OffsetCountsTheBom) {
    const auto e = decodeError("\xEF\xBB\xBF\xFF");
    EXPECT_EQ(e.byteOffset(), 3);
    EXPECT_EQ(e.line(), 1);
}

TEST(Utf8, RejectsOverlongEncodings) {
    for (const std::string bad :
         {"\xC0\xAF", "\xC1\xBF", "\xE0\x80\xAF", "\xE0\x9F\xBF", "\xF0\x82\x82\xAC"}) {
        const auto e = decodeError("x" + bad);
        EXPECT_EQ(e.byteOffset(), 1) << e.what();
        EXPECT_NE(std::string(e.what()).find("overlong"), std::string::npos) << e.what();
        EXPECT_FALSE(wb::isValidUtf8(bad));
    }
}

TEST(Utf8, RejectsSurrogatesAndTooLargeCodePoints) {
    EXPECT_NE(std::string(decodeError("\xED\xA0\x80").what()).find("surrogate"), std::string::npos);
    EXPECT_NE(std::string(decodeError("\xED\xBF\xBF").what()).find("surrogate"), std::string::npos);
    EXPECT_NE(std::string(decodeError("\xF4\x90\x80\x80").what()).find("U+10FFFF"), std::string::npos);
    EXPECT_EQ(decodeError("\xF5\x80\x80\x80").byteOffset(), 0);
    EXPECT_EQ(wb::decodeUtf8("\xF4\x8F\xBF\xBF", "s"), U"\U0010FFFF");
    EXPECT_EQ(wb::decodeUtf8("\xED\x9F\xBF", "s"), U"\uD7FF");
}

TEST(Utf8, RejectsTruncatedSequences) {
    // "春" is E6 98 A5; cut it at the end of the text and in the middle of a line.
    auto e = decodeError("line1\n\xE6\x98");
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.byteOffset(), 6);
    EXPECT_NE(std::string(e.what()).find("byte 0xE6 at offset 6"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos);
    e = decodeError(
        "\xE6\x98"
        "A\n");
    EXPECT_EQ(e.byteOffset(), 0);
    EXPECT_FALSE(wb::isValidUtf8("\xF0\x9F\x98"));
}

TEST(Utf8, RejectsStrayContinuationBytes) {
    const auto e = decodeError("ok\n\n\x80");
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.byteOffset(), 4);
    EXPECT_NE(std::string(e.what()).find("continuation"), std::string::npos);
}

TEST(Utf8, EncodesAndCounts) {
    const std::string poem = "床前明月光，疑是地上霜。\nabc 😀";
    EXPECT_EQ(wb::encodeUtf8(wb::decodeUtf8(poem, "s")), poem);
    EXPECT_EQ(wb::countCodePoints(poem), 18u);
    EXPECT_EQ(wb::encodeUtf8(U'春'), "春");
    std::string out;
    wb::appendUtf8(out, 0x24);
    wb::appendUtf8(out, 0xA2);
    wb::appendUtf8(out, 0x20AC);
    wb::appendUtf8(out, 0x10348);
    EXPECT_EQ(out, "$\xC2\xA2\xE2\x82\xAC\xF0\x90\x8D\x88");
    // Unencodable values never produce invalid UTF-8.
    EXPECT_EQ(wb::encodeUtf8(char32_t(0xD800)), "\xEF\xBF\xBD");
    EXPECT_TRUE(wb::isValidUtf8(poem));
    EXPECT_TRUE(wb::isValidUtf8(""));
}

}  // namespace
