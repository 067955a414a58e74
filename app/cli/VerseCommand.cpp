// `lstm-workbench-cli verse POEMS`: the verse checker over a file of poems, with a prepared Tang corpus's
// tone and rhyme tables; how many pass every rule, the mean share of checks passed, and each rule's record.
// `--mix SEED` checks, instead, as many poems made of real lines that were not written together (line i of a
// random poem as line i): the baseline docs/verse.md compares real poems with.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "Commands.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/CorpusCatalog.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/Utf8.h"
#include "workbench/domain/Verse.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The poems of a corpus file (a poems JSON: one per entry) or of a text file (separated by blank lines).
std::vector<std::string> readPoems(const std::string& path) {
    std::vector<std::string> poems;
    if (wb::detectCorpusFormat(path) == wb::CorpusFormat::Poems) {
        for (auto& document : wb::loadCorpus(path, wb::CorpusFormat::Poems).documents)
            poems.push_back(std::move(document.text));
        return poems;
    }
    std::string poem;
    std::istringstream in(wb::readFile(path));
    for (std::string line; std::getline(in, line);) {
        const bool blank = line.find_first_not_of(" \t\r") == std::string::npos;
        if (blank) {
            if (!poem.empty()) poems.push_back(poem);
            poem.clear();
        } else {
            poem += (poem.empty() ? "" : "\n") + line;
        }
    }
    if (!poem.empty()) poems.push_back(poem);
    return poems;
}

// A poem's lines with their closing mark ("白日依山尽，"), as the corpus writes them.
std::vector<std::string> markedLines(const std::string& poem) {
    std::vector<std::string> lines;
    std::string line;
    for (const char32_t c : wb::decodeUtf8(poem, "poem")) {
        if (c == U'\n') continue;
        line += wb::encodeUtf8(c);
        if (c == U'，' || c == U'。' || c == U'？' || c == U'！' || c == U'；') {
            lines.push_back(line);
            line.clear();
        }
    }
    if (!line.empty()) lines.push_back(line);
    return lines;
}

// As many poems as given, each of the shape of one of them, line i taken from a random poem with an i-th
// line.
std::vector<std::string> mixedPoems(const std::vector<std::string>& poems, unsigned seed) {
    std::vector<std::vector<std::string>> lines;
    for (const auto& p : poems) lines.push_back(markedLines(p));
    std::mt19937 rng(seed);
    std::vector<std::string> out;
    for (const auto& shape : lines) {
        std::string poem;
        for (std::size_t i = 0; i < shape.size(); ++i) {
            const std::vector<std::string>* donor = nullptr;
            while (!donor || donor->size() <= i) donor = &lines[rng() % lines.size()];
            poem += (*donor)[i];
            if (i % 2 == 1 && i + 1 < shape.size()) poem += "\n";
        }
        out.push_back(poem);
    }
    return out;
}

}  // namespace

int runVerse(const VerseOptions& o) {
    const std::string poemsPath = wb::resolveCorpusPath(o.poems);  // a path, or a prepared corpus's name
    const std::string tablesOf = o.tables.empty() ? poemsPath : o.tables;
    auto checker = wb::verseCheckerForCorpus(tablesOf);
    if (!checker)
        throw wb::InputError(tablesOf, 0,
                             "no tone and rhyme tables for it: not a Chinese poem corpus, or no Tang "
                             "corpus is prepared on this machine yet (lstm-workbench-cli prepare "
                             "tang-quatrains-7 builds the tables every Chinese poem corpus uses)");
    std::vector<std::string> poems = readPoems(poemsPath);
    if (poems.empty()) throw wb::InputError(poemsPath, 0, "no poems in it");
    // Lines of the tables' own corpus are novel to no one: checking that corpus, or mixes of its lines,
    // novelty is not judged.
    std::error_code ec;
    const bool ownCorpus = fs::equivalent(wb::resolveCorpusPath(tablesOf), poemsPath, ec);
    if (ownCorpus || o.mix) checker->setKnownLines({});
    if (o.mix) poems = mixedPoems(poems, o.mixSeed);

    std::int64_t passed = 0;
    double scores = 0;
    std::vector<std::int64_t> clean(wb::kVerseRuleCount, 0), judged(wb::kVerseRuleCount, 0);
    std::map<std::string, std::int64_t> forms;
    for (const auto& poem : poems) {
        const auto report = checker->check(poem);
        passed += report.passed;
        scores += report.score;
        ++forms[wb::verseFormName(report.form)];
        for (const auto& r : report.rules) {
            const auto i = static_cast<std::size_t>(r.rule);
            clean[i] += r.violations == 0;
            judged[i] += r.checks > 0;
        }
    }
    const double n = static_cast<double>(poems.size());
    if (o.json) {
        json rules = json::object();
        for (int i = 0; i < wb::kVerseRuleCount; ++i)
            rules[wb::verseRuleName(static_cast<wb::VerseRule>(i))] = {{"without_violation", clean[i]},
                                                                       {"judged", judged[i]}};
        std::cout << json{{"poems", poems.size()},
                          {"mixed", o.mix},
                          {"novelty_judged", !(ownCorpus || o.mix)},
                          {"tables", checker->tablesSource()},
                          {"script", checker->tones().prefersTraditional() ? "traditional" : "simplified"},
                          {"passed", passed},
                          {"mean_score", scores / n},
                          {"forms", forms},
                          {"rules", rules}}
                         .dump(2)
                  << "\n";
        return 0;
    }
    std::printf("%s%s: %zu poems, checked with the tables in %s, read as %s characters\n", poemsPath.c_str(),
                o.mix ? " (mixed lines)" : "", poems.size(), checker->tablesSource().c_str(),
                checker->tones().prefersTraditional() ? "traditional" : "simplified");
    std::printf("%-22s %lld (%.1f %%)\n", "pass every rule", static_cast<long long>(passed),
                100.0 * passed / n);
    std::printf("%-22s %.3f\n", "mean share of checks", scores / n);
    for (int i = 0; i < wb::kVerseRuleCount; ++i)
        std::printf("%-22s no violation in %.1f %%, judged in %.1f %%\n",
                    wb::verseRuleName(static_cast<wb::VerseRule>(i)), 100.0 * clean[i] / n,
                    100.0 * judged[i] / n);
    return 0;
}
