// The verse checker (workbench/domain/Verse.h) apart from its tables (VerseTables.cpp) and rules
// (VerseRules.cpp): splitting a poem into lines, the names of forms and rules, and the checker of a corpus.
// Every rule judges only what the tables know: a character of unknown or either tone, or in no rhyme group,
// is never held against a poem, since the tables come from one corpus and a missing entry says nothing about
// the poem.
#include "workbench/domain/Verse.h"

#include <cstdio>

#include "verse/PoemLines.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/CorpusCatalog.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Utf8.h"

namespace wb {

// ---------------------------------------------------------------------------------------------------------
// Lines

namespace detail {

bool isLineMark(char32_t c) {
    return std::u32string_view(U"，。？！；：、,.?!;:").find(c) != std::u32string_view::npos;
}

bool isBlank(char32_t c) { return c == U' ' || c == U'\t' || c == U'\r' || c == U'\u3000'; }

std::vector<PoemLine> splitLines(std::string_view text) {
    const std::u32string chars = decodeUtf8(text, "poem");
    std::vector<PoemLine> lines;
    PoemLine current;
    for (const char32_t c : chars) {
        if (isLineMark(c)) {
            if (!current.chars.empty()) {
                current.mark = c;
                lines.push_back(std::move(current));
                current = {};
            } else if (!lines.empty() && lines.back().mark == 0) {
                lines.back().mark = c;  // "…间\n，" : the mark belongs to the line before
            }
        } else if (c == U'\n') {
            if (!current.chars.empty()) {
                lines.push_back(std::move(current));
                current = {};
            }
        } else if (!isBlank(c)) {
            current.chars.push_back(c);
        }
    }
    if (!current.chars.empty()) lines.push_back(std::move(current));
    return lines;
}

std::string quoted(char32_t c) { return "'" + encodeUtf8(c) + "'"; }

}  // namespace detail

using detail::isBlank;
using detail::isLineMark;
using detail::splitLines;

// ---------------------------------------------------------------------------------------------------------
// Names, and where each character of a poem is

const char* verseFormName(VerseForm form) {
    switch (form) {
        case VerseForm::Quatrain5:
            return "五绝";
        case VerseForm::Quatrain7:
            return "七绝";
        case VerseForm::Regulated5:
            return "五律";
        case VerseForm::Regulated7:
            return "七律";
        case VerseForm::Unknown:
            break;
    }
    return "unknown form";
}

const char* verseRuleName(VerseRule rule) {
    switch (rule) {
        case VerseRule::Form:
            return "form";
        case VerseRule::Alternation:
            return "alternation";
        case VerseRule::Opposition:
            return "opposition";
        case VerseRule::Adhesion:
            return "adhesion";
        case VerseRule::LoneLevel:
            return "lone-level";
        case VerseRule::LevelTail:
            return "level-tail";
        case VerseRule::RhymeTone:
            return "rhyme-tone";
        case VerseRule::Rhyme:
            return "rhyme";
        case VerseRule::RepeatedRhyme:
            return "repeated-rhyme";
        case VerseRule::Novelty:
            return "novelty";
    }
    return "?";
}

std::vector<VerseSpot> verseSpots(std::string_view text) {
    // splitLines's walk, keeping where each character went.
    const std::u32string chars = decodeUtf8(text, "poem");
    std::vector<VerseSpot> spots(chars.size());
    int line = 0, position = 0;
    for (std::size_t i = 0; i < chars.size(); ++i) {
        const char32_t c = chars[i];
        if (isLineMark(c) || c == U'\n') {
            if (position > 0) ++line, position = 0;
        } else if (!isBlank(c)) {
            spots[i] = {line, position++};
        }
    }
    return spots;
}

std::vector<std::string> verseLines(std::string_view text) {
    std::vector<std::string> out;
    for (const auto& line : splitLines(text)) out.push_back(encodeUtf8(line.chars));
    return out;
}

// ---------------------------------------------------------------------------------------------------------
// The checker of a corpus, and a report in a line

namespace {

// The text of a corpus's first 200 documents: enough to tell its language and script.
std::u32string opening(const Corpus& corpus) {
    std::u32string text;
    for (std::size_t d = 0; d < corpus.documents.size() && d < 200; ++d)
        text += decodeUtf8(corpus.documents[d].text, corpus.source);
    return text;
}

// Mostly Chinese characters, punctuation and blanks aside.
bool isChinese(std::u32string_view text) {
    std::int64_t han = 0, other = 0;
    for (const char32_t c : text) {
        if (isHanCharacter(c))
            ++han;
        else if (!isLineMark(c) && !isBlank(c) && c != U'\n')
            ++other;
    }
    return han > 0 && han >= 4 * other;
}

}  // namespace

std::filesystem::path sharedVerseTablesDir() {
    return std::filesystem::path(corporaCacheDir()) / "verse-tables";
}

std::optional<VerseChecker> verseCheckerForCorpus(const std::string& corpusPathOrName, const Corpus* loaded) {
    std::string path;
    try {
        path = resolveCorpusPath(corpusPathOrName);
    } catch (const InputError&) {
        return std::nullopt;  // a corpus this machine does not have: nothing to check against
    }
    std::error_code ec;
    const std::filesystem::path folder = std::filesystem::is_directory(path, ec)
                                             ? std::filesystem::path(path)
                                             : std::filesystem::path(path).parent_path();
    const auto hasTables = [&](const std::filesystem::path& dir) {
        return std::filesystem::is_regular_file(dir / "tones.json", ec) &&
               std::filesystem::is_regular_file(dir / "rhymes.json", ec);
    };
    // Its own tables (a prepared Tang corpus's), else the cache's shared ones for any Chinese poem corpus.
    const bool own = hasTables(folder);
    const std::filesystem::path shared = sharedVerseTablesDir();
    if (!own && (detectCorpusFormat(path) != CorpusFormat::Poems || !hasTables(shared))) return std::nullopt;
    const Corpus read = loaded ? Corpus{} : loadCorpus(path);
    const Corpus& corpus = loaded ? *loaded : read;
    const std::u32string sample = opening(corpus);
    if (!own && (corpus.format != CorpusFormat::Poems || !isChinese(sample))) return std::nullopt;
    const std::filesystem::path dir = own ? folder : shared;
    VerseChecker checker(ToneTable::load(dir / "tones.json"), RhymeTable::load(dir / "rhymes.json"));
    checker.preferTraditional(checker.tones().looksTraditional(sample));
    checker.setTablesSource(dir.string());
    std::unordered_set<std::string> known;
    for (const auto& document : corpus.documents)
        for (auto& line : verseLines(document.text)) known.insert(std::move(line));
    checker.setKnownLines(std::move(known));
    return checker;
}

const char* verseRuleLabel(VerseRule rule) {
    switch (rule) {
        case VerseRule::Form:
            return "form";
        case VerseRule::Alternation:
            return "二四六分明";
        case VerseRule::Opposition:
            return "对";
        case VerseRule::Adhesion:
            return "粘";
        case VerseRule::LoneLevel:
            return "孤平";
        case VerseRule::LevelTail:
            return "三平尾";
        case VerseRule::RhymeTone:
            return "平收";
        case VerseRule::Rhyme:
            return "押韵";
        case VerseRule::RepeatedRhyme:
            return "重韵";
        case VerseRule::Novelty:
            return "novelty";
    }
    return "?";
}

const char* verseRuleMeaning(VerseRule rule) {
    switch (rule) {
        case VerseRule::Alternation:
            return "characters 2, 4 and 6 alternate in tone";
        case VerseRule::Opposition:
            return "a couplet's lines opposite in tone";
        case VerseRule::Adhesion:
            return "a couplet's first line matches the line before in tone";
        case VerseRule::LoneLevel:
            return "no lone level tone";
        case VerseRule::LevelTail:
            return "no three level tones at a line's end";
        case VerseRule::RhymeTone:
            return "even lines end on a level tone";
        case VerseRule::Rhyme:
            return "even lines rhyme";
        case VerseRule::RepeatedRhyme:
            return "no rhyme character twice";
        default:
            return "";
    }
}

std::string verseSummary(const VerseReport& report) {
    std::string out = verseFormName(report.form);
    if (report.form == VerseForm::Unknown) return out;
    if (report.passed) return out + " · passes every rule";
    char share[32];
    std::snprintf(share, sizeof share, " · %.0f %% of checks · breaks ", 100 * report.score);
    out += share;
    bool first = true;
    for (const auto& rule : report.rules) {
        if (rule.passed()) continue;
        out += first ? "" : ", ";
        out += verseRuleLabel(rule.rule);
        if (*verseRuleMeaning(rule.rule)) out += std::string(" (") + verseRuleMeaning(rule.rule) + ")";
        if (rule.violations > 1) out += " ×" + std::to_string(rule.violations);
        first = false;
    }
    return out;
}

}  // namespace wb
