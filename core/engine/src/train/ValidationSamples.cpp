// Samples at validation (see ValidationSamples.h).
#include "train/ValidationSamples.h"

#include <filesystem>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "workbench/domain/Baseline.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/Utf8.h"

namespace wb {

PoemForm dominantPoemForm(const Corpus& corpus) {
    if (corpus.format != CorpusFormat::Poems || corpus.documents.empty()) return PoemForm::Free;
    const std::size_t looked = std::min<std::size_t>(corpus.documents.size(), 500);
    std::size_t counts[5] = {};
    for (std::size_t i = 0; i < looked; ++i) {
        const auto lines = verseLines(corpus.documents[i].text);
        std::size_t length = lines.empty() ? 0 : countCodePoints(lines.front());
        for (const auto& line : lines)
            if (countCodePoints(line) != length) length = 0;
        if (lines.size() == 4 && length == 5) ++counts[int(PoemForm::Quatrain5)];
        if (lines.size() == 4 && length == 7) ++counts[int(PoemForm::Quatrain7)];
        if (lines.size() == 8 && length == 5) ++counts[int(PoemForm::Regulated5)];
        if (lines.size() == 8 && length == 7) ++counts[int(PoemForm::Regulated7)];
    }
    for (int form = 1; form < 5; ++form)
        if (counts[form] * 10 >= looked * 9) return static_cast<PoemForm>(form);
    return PoemForm::Free;
}

ValidationSamples::ValidationSamples(const ExperimentConfig& config, const Corpus* corpus, std::string runDir)
    : m_config(config), m_runDir(std::move(runDir)) {
    if (config.task != Task::LanguageModel) return;
    m_count = config.train.validationSamples;
    if (m_count <= 0) return;
    if (corpus) m_form = dominantPoemForm(*corpus);
    if (m_form != PoemForm::Free) {
        try {
            m_checker = verseCheckerForCorpus(config.data.corpus, corpus);
        } catch (const std::exception&) {
            // Unreadable tables: the samples still come, unchecked (the playground says why).
        }
    }
    const auto path = std::filesystem::path(m_runDir) / runfiles::kSamples;
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) m_jsonl = readFile(path.string());
}

std::vector<std::string> ValidationSamples::take(std::int64_t step, double wallSeconds, double valLoss) {
    if (!enabled()) return {};
    const auto model = TrainedModel::load(m_runDir, TrainedModel::Checkpoint::Last);
    GenerateOptions o;
    o.samples = m_count;
    o.form = m_form;
    o.length = 120;
    o.temperature = 0.8;
    o.rngSeed = m_config.train.seed + static_cast<std::uint64_t>(step);  // reproducible, new every time
    const auto samples = textsOf(model->generate(o));

    nlohmann::json line = {{"step", step},
                           {"wall_s", wallSeconds},
                           {"val_loss", valLoss},
                           {"form", toString(m_form)},
                           {"samples", samples}};
    const bool bits = hasBitsPerCharacter(m_config);
    if (bits) line["val_bpc"] = bitsFromNats(valLoss);
    std::ostringstream head;
    head << std::fixed << std::setprecision(3) << "samples at step " << step << " (val "
         << (bits ? bitsFromNats(valLoss) : valLoss) << (bits ? " bits/char" : " loss") << "):";
    std::vector<std::string> log{head.str()};
    nlohmann::json verse = nlohmann::json::array();
    m_last.clear();
    for (const auto& sample : samples) {
        m_last.push_back(sample);
        std::string oneLine = sample;
        for (auto& c : oneLine)
            if (c == '\n') c = ' ';
        if (m_checker) {
            const VerseReport report = m_checker->check(sample);
            verse.push_back(
                {{"passed", report.passed}, {"score", report.score}, {"summary", verseSummary(report)}});
            oneLine += "  [" + verseSummary(report) + "]";
            m_last.back() += "\n[" + verseSummary(report) + "]";
        }
        log.push_back("  " + oneLine);
    }
    if (m_checker) line["verse"] = verse;
    m_jsonl += line.dump() + "\n";
    writeFileAtomic((std::filesystem::path(m_runDir) / runfiles::kSamples).string(), m_jsonl);
    return log;
}

}  // namespace wb
