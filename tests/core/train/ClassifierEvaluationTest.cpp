// A tiny classifier trained end to end leaves evaluation.json: a confusion matrix over the whole validation
// split whose trace gives the run's validation accuracy, the majority baseline of that split, and macro F1
// as a metric; a language model leaves none.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "support/TestSupport.h"
#include "support/TinyExperiments.h"
#include "workbench/domain/Evaluation.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Training.h"

using namespace wb;
namespace fs = std::filesystem;

namespace {

// Three classes told apart by their words, "ham" four times as frequent as each of the others.
std::string imbalancedTsv(std::size_t rows) {
    const std::vector<std::pair<std::string, std::vector<std::string>>> classes = {
        {"ham", {"meeting", "lunch", "family", "notes"}},
        {"spam", {"winner", "prize", "cash", "free"}},
        {"promo", {"sale", "discount", "offer", "shop"}}};
    const std::vector<std::string> filler = {"the", "a", "you", "today", "and"};
    std::string out = "label\ttext\n";
    for (std::size_t r = 0; r < rows; ++r) {
        const auto& [label, words] = classes[r % 6 < 4 ? 0 : r % 6 - 3];
        std::string text;
        for (std::size_t w = 0; w < 6; ++w)
            text += (w ? " " : "") +
                    (w % 2 ? filler[(r + w) % filler.size()] : words[(r * 7 + w) % words.size()]);
        out += label + "\t" + text + "\n";
    }
    return out;
}

std::int64_t validationSamplesLogged(const std::vector<std::string>& log) {
    const std::regex said(R"((\d+) validation samples)");
    std::smatch m;
    for (const auto& line : log)
        if (std::regex_search(line, m, said)) return std::stoll(m[1]);
    return -1;
}

}  // namespace

TEST(ClassifierEvaluation, TrainingWritesTheConfusionMatrixOfTheWholeValidationSplit) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "mail.tsv", imbalancedTsv(300));
    auto config = wbtest::tinyClassifier(dir.file("mail.tsv"));
    config.train.epochs = 2;
    std::vector<std::string> log;
    TrainingCallbacks callbacks;
    callbacks.onLog = [&](const std::string& line) { log.push_back(line); };
    TrainingJob job(config, dir.file("run"));
    job.run(callbacks);

    const auto evaluation = loadEvaluation(dir.file("run"));
    ASSERT_TRUE(evaluation.has_value());
    EXPECT_EQ(evaluation->classes, (std::vector<std::string>{"ham", "promo", "spam"}));  // vocab.json's order
    EXPECT_EQ(evaluation->total(), validationSamplesLogged(log));
    std::int64_t trace = 0;
    for (std::size_t c = 0; c < evaluation->classes.size(); ++c) trace += evaluation->matrix[c][c];
    EXPECT_DOUBLE_EQ(evaluation->accuracy, static_cast<double>(trace) / evaluation->total());

    const auto run = loadRunFolder(dir.file("run"));
    const auto accuracy = seriesOf(run.metrics, "val", "accuracy");
    const auto macroF1 = seriesOf(run.metrics, "val", "macro_f1");
    ASSERT_FALSE(accuracy.empty());
    ASSERT_EQ(macroF1.size(), accuracy.size());
    EXPECT_EQ(evaluation->step, accuracy.back().step);
    EXPECT_NEAR(evaluation->accuracy, accuracy.back().value, 1e-9);
    EXPECT_NEAR(evaluation->macroF1, macroF1.back().value, 1e-9);
    // The stratified split keeps the corpus's proportions: ham is two thirds of it.
    EXPECT_EQ(evaluation->majorityClass, "ham");
    EXPECT_NEAR(evaluation->majorityAccuracy, 2.0 / 3, 0.02);
}

TEST(ClassifierEvaluation, ALanguageModelWritesNone) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(60));
    auto config = wbtest::tinyLanguageModel(dir.file("pattern.txt"));
    config.train.maxSteps = 10;
    config.train.validateEvery = 5;
    TrainingJob job(config, dir.file("run"));
    job.run();
    EXPECT_FALSE(seriesOf(loadRunFolder(dir.file("run")).metrics, "val", "loss").empty());
    EXPECT_FALSE(fs::exists(dir.path() / "run" / runfiles::kEvaluation));
    EXPECT_FALSE(loadEvaluation(dir.file("run")).has_value());
}
