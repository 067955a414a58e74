// A classifier's evaluation from hand-made confusion matrices: precision, recall, F1, macro F1, the
// majority baseline, the undefined ratios (defined as 0), and evaluation.json written and read back.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/TestSupport.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Evaluation.h"
#include "workbench/domain/RunFolder.h"

using namespace wb;

TEST(Evaluation, TwoClassesByHand) {
    // 50 ham kept, 3 ham flagged as spam; 10 spam missed, 20 spam caught.
    const auto e = evaluateConfusion({"ham", "spam"}, {{50, 3}, {10, 20}}, 7);
    EXPECT_EQ(e.step, 7);
    EXPECT_EQ(e.total(), 83);
    EXPECT_EQ(e.support, (std::vector<std::int64_t>{53, 30}));
    EXPECT_DOUBLE_EQ(e.precision[0], 50.0 / 60);
    EXPECT_DOUBLE_EQ(e.recall[0], 50.0 / 53);
    EXPECT_DOUBLE_EQ(e.precision[1], 20.0 / 23);
    EXPECT_DOUBLE_EQ(e.recall[1], 20.0 / 30);
    const double f1Spam = 2 * (20.0 / 23) * (20.0 / 30) / (20.0 / 23 + 20.0 / 30);
    EXPECT_DOUBLE_EQ(e.f1[1], f1Spam);
    // F1 = 2 TP / (2 TP + FP + FN): ham 100 / (100 + 10 + 3), spam 40 / (40 + 3 + 10).
    EXPECT_DOUBLE_EQ(e.f1[0], 100.0 / 113);
    EXPECT_DOUBLE_EQ(e.f1[1], 40.0 / 53);
    EXPECT_DOUBLE_EQ(e.macroF1, (100.0 / 113 + 40.0 / 53) / 2);
    EXPECT_DOUBLE_EQ(e.accuracy, 70.0 / 83);
    EXPECT_EQ(e.majorityClass, "ham");
    EXPECT_DOUBLE_EQ(e.majorityAccuracy, 53.0 / 83);
}

TEST(Evaluation, AClassNeverPredictedHasPrecisionAndF1Zero) {
    // Everything predicted as "a": "b" and "c" are never predicted, "c" is absent from the split.
    const auto e = evaluateConfusion({"a", "b", "c"}, {{4, 0, 0}, {6, 0, 0}, {0, 0, 0}}, 1);
    EXPECT_DOUBLE_EQ(e.precision[0], 0.4);
    EXPECT_DOUBLE_EQ(e.recall[0], 1.0);
    EXPECT_DOUBLE_EQ(e.precision[1], 0.0);
    EXPECT_DOUBLE_EQ(e.recall[1], 0.0);
    EXPECT_DOUBLE_EQ(e.f1[1], 0.0);
    EXPECT_DOUBLE_EQ(e.precision[2], 0.0);
    EXPECT_DOUBLE_EQ(e.recall[2], 0.0);
    EXPECT_EQ(e.support[2], 0);
    EXPECT_DOUBLE_EQ(e.f1[0], 8.0 / 14);                  // 2 x 4 / (2 x 4 + 6 + 0)
    EXPECT_DOUBLE_EQ(e.macroF1, (8.0 / 14 + 0 + 0) / 3);  // every class counts, the absent one too
    // The model always says "a", but "b" is the split's majority: the baseline beats it.
    EXPECT_EQ(e.majorityClass, "b");
    EXPECT_DOUBLE_EQ(e.majorityAccuracy, 0.6);
    EXPECT_DOUBLE_EQ(e.accuracy, 0.4);
}

TEST(Evaluation, TiesGoToTheFirstClassAndAnEmptySplitScoresZero) {
    const auto tie = evaluateConfusion({"x", "y"}, {{1, 1}, {0, 2}}, 0);
    EXPECT_EQ(tie.majorityClass, "x");
    EXPECT_DOUBLE_EQ(tie.majorityAccuracy, 0.5);
    const auto empty = evaluateConfusion({"x", "y"}, {{0, 0}, {0, 0}}, 0);
    EXPECT_EQ(empty.total(), 0);
    EXPECT_DOUBLE_EQ(empty.accuracy, 0);
    EXPECT_DOUBLE_EQ(empty.majorityAccuracy, 0);
}

TEST(Evaluation, RefusesAMatrixThatDoesNotFitTheClasses) {
    EXPECT_THROW(evaluateConfusion({"a", "b"}, {{1, 2}}, 0), InputError);
    EXPECT_THROW(evaluateConfusion({"a", "b"}, {{1, 2}, {3}}, 0), InputError);
    EXPECT_THROW(evaluateConfusion({"a", "b"}, {{1, -2}, {3, 4}}, 0), InputError);
    EXPECT_THROW(evaluateConfusion({}, {}, 0), InputError);
}

TEST(Evaluation, JsonRoundTripRecomputesFromTheMatrix) {
    const auto e = evaluateConfusion({"ham", "spam"}, {{50, 3}, {10, 20}}, 42);
    const auto back = ClassifierEvaluation::fromJson(e.toJson(), "evaluation.json");
    EXPECT_EQ(back.step, 42);
    EXPECT_EQ(back.classes, e.classes);
    EXPECT_EQ(back.matrix, e.matrix);
    EXPECT_EQ(back.precision, e.precision);
    EXPECT_DOUBLE_EQ(back.majorityAccuracy, e.majorityAccuracy);
    const auto j = nlohmann::json::parse(e.toJson());
    EXPECT_EQ(j["majority_baseline"]["class"], "ham");
    EXPECT_DOUBLE_EQ(j["classes"][1]["recall"].get<double>(), 20.0 / 30);
    EXPECT_EQ(j["samples"], 83);
}

TEST(Evaluation, MalformedFilesNameTheFileAndTheField) {
    const auto bad = [](const std::string& text) {
        try {
            ClassifierEvaluation::fromJson(text, "run/evaluation.json");
        } catch (const InputError& err) {
            EXPECT_EQ(err.file(), "run/evaluation.json");
            return err.reason();
        }
        return std::string("no error");
    };
    EXPECT_NE(bad("[]").find("expected a JSON object"), std::string::npos);
    EXPECT_NE(bad(R"({"classes": [{"name": "a"}], "matrix": [[1]]})").find("step"), std::string::npos);
    EXPECT_NE(
        bad(R"({"step": 1, "classes": [{"name": "a"}, {"name": "b"}], "matrix": [[1, 2]]})").find("matrix"),
        std::string::npos);
    EXPECT_NE(bad(R"({"step": 1, "classes": ["a"], "matrix": [[1]]})").find("classes"), std::string::npos);
    EXPECT_NE(bad(R"({"step": 1, "classes": [{"name": "a"}], "matrix": [[1.5]]})").find("integer"),
              std::string::npos);
}

TEST(Evaluation, LoadEvaluationIsEmptyForARunWithoutOne) {
    wbtest::TempDir dir;
    EXPECT_FALSE(loadEvaluation(dir.str()).has_value());
    writeFileAtomic(dir.file(runfiles::kEvaluation),
                    evaluateConfusion({"a", "b"}, {{1, 0}, {0, 1}}, 3).toJson());
    const auto loaded = loadEvaluation(dir.str());
    ASSERT_TRUE(loaded.has_value());
    EXPECT_DOUBLE_EQ(loaded->accuracy, 1.0);
}
