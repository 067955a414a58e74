// The verse tables and the baseline a run folder or a Tang corpus holds, the checker on any text, and strict
// meter's promise. The first byte picks: 0 tones.json (ToneTable::parse), 1 rhymes.json (RhymeTable::parse),
// 2 baseline.json (NgramBaseline::fromJson), 3 strict meter, anything else a poem for the checker with small
// fixed tables (the seeds, fuzz/seeds/make_seeds.py, reach each: strict-meter*.bin check 4 poems each). Bad
// input must be an InputError naming the file; a poem must give a report whose violations point at characters
// the text has, and verseSpots must map every code point. Strict meter: over tables the bytes make up (any
// tones, characters in several rhyme groups or none), a poem drawn among the characters PoemMeter allows,
// with choices the bytes make, never runs out of characters and always passes the checker.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "FuzzSupport.h"
#include "workbench/domain/Baseline.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Meter.h"
#include "workbench/domain/Utf8.h"
#include "workbench/domain/Verse.h"

namespace {
const wb::VerseChecker& checker() {
    static const wb::VerseChecker c(
        wb::ToneTable::parse(R"({"format": "lstm-workbench tones", "traditional": {"白": [0, 9, 0], )"
                             R"("山": [9, 0, 0], "流": [9, 0, 0], "樓": [9, 0, 0], "看": [4, 4, 1]}})",
                             "tones.json"),
        wb::RhymeTable::parse(R"({"format": "lstm-workbench rhymes", "groups": [{"traditional": "流樓"}]})",
                              "rhymes.json"));
    return c;
}
// Strict meter over made-up tables (see the top of the file).
void strictMeterPasses(const std::uint8_t* data, std::size_t size) {
    if (size < 3) return;
    std::size_t at = 0;
    const auto next = [&] { return data[at++ % size]; };
    const int chars = 4 + next() % 40;
    const int lines = next() % 2 ? 8 : 4, lineChars = next() % 2 ? 7 : 5;
    std::string tones, groups[4];
    std::vector<char32_t> vocabulary{0};  // token 0: not a character, as a model's specials are
    for (int i = 0; i < chars; ++i) {
        const char32_t c = U'\u4E00' + static_cast<char32_t>(i);
        const std::string utf8 = wb::encodeUtf8(c);
        vocabulary.push_back(c);
        const int tone = next() % 4;  // 0: not in the table
        static const char* const counts[] = {"", "[9, 0, 0]", "[0, 9, 0]", "[4, 4, 1]"};
        if (tone) tones += (tones.empty() ? "" : ", ") + ("\"" + utf8 + "\": ") + counts[tone];
        const int in = next();
        for (int g = 0; g < 4; ++g)
            if (in & (1 << g)) groups[g] += utf8;
    }
    std::string rhymes;
    for (const auto& g : groups)
        if (!g.empty()) rhymes += (rhymes.empty() ? "" : ", ") + ("{\"traditional\": \"" + g + "\"}");
    const wb::VerseChecker verse(
        wb::ToneTable::parse(R"({"format": "lstm-workbench tones", "traditional": {)" + tones + "}}",
                             "tones"),
        wb::RhymeTable::parse(R"({"format": "lstm-workbench rhymes", "groups": [)" + rhymes + "]}",
                              "rhymes"));
    std::optional<wb::PoemMeter> meter;
    try {
        meter.emplace(verse, vocabulary, lines, lineChars);
    } catch (const wb::InputError&) {
        return;  // tables that cannot make such a poem at all: refused up front, as the user sees it
    }
    for (const auto pattern : wb::kMeterPatterns) {
        if (!meter->usable(pattern)) continue;
        auto state = meter->start(pattern);
        std::string poem;
        std::vector<char> mask;
        for (int line = 0; line < lines; ++line) {
            for (int p = 0; p < lineChars; ++p) {
                FUZZ_CHECK(meter->allowedTokens(state, line, p, mask));  // never runs dry
                std::vector<std::int64_t> allowed;
                for (std::size_t t = 0; t < mask.size(); ++t)
                    if (mask[t]) allowed.push_back(static_cast<std::int64_t>(t));
                const auto token = allowed[next() % allowed.size()];
                FUZZ_CHECK(meter->allowed(state, line, p, token));
                meter->choose(state, line, p, token);
                poem += wb::encodeUtf8(vocabulary[static_cast<std::size_t>(token)]);
            }
            poem += line % 2 == 0 ? "，" : "。\n";
        }
        FUZZ_CHECK(verse.check(poem).passed);
    }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const int kind = data[0];
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    const char* names[] = {"tones.json", "rhymes.json", "baseline.json"};
    try {
        if (kind == 0) {
            const auto tones = wb::ToneTable::parse(text, names[0]);
            (void)tones.tone(U'山');
        } else if (kind == 1) {
            const auto rhymes = wb::RhymeTable::parse(text, names[1]);
            for (std::size_t g = 0; g < rhymes.groupCount(); ++g) (void)rhymes.groupName(int(g));
        } else if (kind == 2) {
            const auto b = wb::NgramBaseline::fromJson(text, names[2]);
            const auto again = wb::NgramBaseline::fromJson(b.toJson(), "written back");
            FUZZ_CHECK(again.toJson() == b.toJson());
        } else if (kind == 3) {
            strictMeterPasses(data + 1, size - 1);
        } else {
            const auto report = checker().check(text);
            const auto spots = wb::verseSpots(text);
            FUZZ_CHECK(spots.size() == wb::decodeUtf8(text, "poem").size());
            for (const auto& v : report.violations) {
                // A whole-poem verdict (position -1) names line 0, even of a poem with no lines.
                FUZZ_CHECK(v.line >= 0 && v.line < std::max(1, int(report.lines.size())));
                if (v.position >= 0)
                    FUZZ_CHECK(std::size_t(v.position) <
                               wb::countCodePoints(report.lines[std::size_t(v.line)]));
            }
            FUZZ_CHECK(report.score >= 0 && report.score <= 1);
            (void)wb::verseSummary(report);
        }
    } catch (const wb::InputError& e) {
        const std::string file = e.file();
        FUZZ_CHECK(kind > 3 ? file == "poem" : kind < 3 && file == names[kind]);
    }
    return 0;
}
