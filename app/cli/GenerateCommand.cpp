// `lstm-workbench-cli generate RUN`: text or poems from a trained language model, poems with their verse
// check when this machine has the tables of the corpus the run was trained on.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "Commands.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/Verse.h"
#include "workbench/engine/Inference.h"

using nlohmann::json;

namespace {

json verseJson(const wb::VerseReport& r) {
    json rules = json::object();
    for (const auto& rule : r.rules)
        rules[wb::verseRuleName(rule.rule)] = {{"checks", rule.checks}, {"violations", rule.violations}};
    json violations = json::array();
    for (const auto& v : r.violations)
        violations.push_back({{"line", v.line},
                              {"position", v.position},
                              {"rule", wb::verseRuleName(v.rule)},
                              {"character", v.character},
                              {"explanation", v.explanation}});
    return {{"form", wb::verseFormName(r.form)}, {"passed", r.passed}, {"score", r.score},
            {"summary", wb::verseSummary(r)},    {"rules", rules},     {"violations", violations}};
}

}  // namespace

int runGenerate(const GenerateCliOptions& o) {
    const auto model = loadTrainedModel(o.runDir, o.checkpoint);
    // Poems are checked against the tone and rhyme tables of the corpus the run was trained on, when this
    // machine has them (a prepared Tang corpus); strict meter writes them to follow those tables.
    std::optional<wb::VerseChecker> checker;
    if (o.generate.form != wb::PoemForm::Free)
        checker = wb::verseCheckerForCorpus(model->config().data.corpus);
    wb::GenerateOptions options = o.generate;
    if (checker) options.verse = &*checker;
    const auto samples = model->generate(options);
    const bool strict = options.meter == wb::Meter::Strict;
    std::vector<wb::VerseReport> reports;
    if (checker)
        for (const auto& s : samples) reports.push_back(checker->check(s.text));
    const auto passing =
        std::count_if(reports.begin(), reports.end(), [](const auto& r) { return r.passed; });
    if (o.json) {
        json scores = json::array();
        for (const auto& s : samples) {
            json score = {{"log_probability", s.logProbability},
                          {"tokens", s.tokens},
                          {"bits_per_token", s.bitsPerToken()}};
            if (strict) score["pattern"] = wb::toString(s.pattern);
            scores.push_back(score);
        }
        json out = {{"run_dir", o.runDir},
                    {"form", wb::toString(o.generate.form)},
                    {"meter", wb::toString(options.meter)},
                    {"samples", wb::textsOf(samples)},
                    {"scores", scores}};
        // How good the model is, in the units a user compares with the n-gram baseline.
        const auto row = wb::compareRuns({wb::loadRunFolder(o.runDir)}, 0).front();
        if (row.bestValBpc >= 0) out["val_bpc"] = row.bestValBpc;
        if (row.baselineBpc >= 0) out["baseline_bpc"] = row.baselineBpc;
        if (checker) {
            json verse = json::array();
            for (const auto& r : reports) verse.push_back(verseJson(r));
            out["verse"] = verse;
            out["verse_passed"] = passing;
        }
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    for (std::size_t i = 0; i < samples.size(); ++i) {
        if (i) std::printf("\n---\n");
        std::printf("%s\n", samples[i].text.c_str());
        if (!checker) continue;
        // The poem's verdict, its pattern under strict meter, and what the model thinks of it.
        std::printf("[%s%s%s · %.2f bits/char]\n", wb::verseSummary(reports[i]).c_str(), strict ? " · " : "",
                    strict ? wb::meterPatternLabel(samples[i].pattern) : "", samples[i].bitsPerToken());
        for (const auto& v : reports[i].violations)
            std::printf("  line %d%s%s: %s\n", v.line + 1, v.character.empty() ? "" : ", ",
                        v.character.c_str(), v.explanation.c_str());
    }
    if (checker)
        std::printf("\nverse: %lld of %zu poems pass every rule\n", static_cast<long long>(passing),
                    samples.size());
    return 0;
}
