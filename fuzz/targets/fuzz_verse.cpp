// The verse tables and the baseline a run folder or a Tang corpus holds, and the checker on any text. The
// first byte picks the reader: 0 tones.json (ToneTable::parse), 1 rhymes.json (RhymeTable::parse),
// 2 baseline.json (NgramBaseline::fromJson), anything else a poem for the checker with small fixed tables.
// Bad input must be an InputError naming the file; a poem must give a report whose violations point at
// characters the text has, and verseSpots must map every code point.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "FuzzSupport.h"
#include "workbench/Baseline.h"
#include "workbench/Errors.h"
#include "workbench/Utf8.h"
#include "workbench/Verse.h"

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
        FUZZ_CHECK(kind > 2 ? file == "poem" : file == names[kind]);
    }
    return 0;
}
