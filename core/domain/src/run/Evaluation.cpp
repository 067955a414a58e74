// A classifier's evaluation (see workbench/domain/Evaluation.h): the numbers a confusion matrix implies, and
// evaluation.json, whose derived numbers are for people and other tools; reading it trusts only the matrix.
#include "workbench/domain/Evaluation.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "io/JsonDocument.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"

namespace wb {
namespace {

using nlohmann::json;

double ratio(std::int64_t numerator, std::int64_t denominator) {
    return denominator > 0 ? static_cast<double>(numerator) / static_cast<double>(denominator) : 0.0;
}

double harmonicMean(double a, double b) { return a + b > 0 ? 2 * a * b / (a + b) : 0.0; }

void checkShape(const std::vector<std::string>& classes, const std::vector<std::vector<std::int64_t>>& matrix,
                const std::string& source) {
    const auto n = classes.size();
    if (n == 0) throw InputError(source, 0, "classes: expected at least one class");
    if (matrix.size() != n)
        throw InputError(source, 0,
                         "matrix: expected " + std::to_string(n) + " rows (one per class), found " +
                             std::to_string(matrix.size()));
    for (std::size_t t = 0; t < n; ++t) {
        if (matrix[t].size() != n)
            throw InputError(source, 0,
                             "matrix row " + std::to_string(t) + ": expected " + std::to_string(n) +
                                 " counts (one per class), found " + std::to_string(matrix[t].size()));
        for (const auto count : matrix[t])
            if (count < 0)
                throw InputError(source, 0, "matrix row " + std::to_string(t) + ": a negative count");
    }
}

// Precision, recall, F1 and support of every class, and their macro mean.
void scoreClasses(ClassifierEvaluation& e) {
    const auto n = e.classes.size();
    std::vector<std::int64_t> predicted(n, 0);
    for (std::size_t t = 0; t < n; ++t) {
        std::int64_t rowSum = 0;
        for (std::size_t p = 0; p < n; ++p) {
            rowSum += e.matrix[t][p];
            predicted[p] += e.matrix[t][p];
        }
        e.support.push_back(rowSum);
    }
    double f1Sum = 0;
    for (std::size_t c = 0; c < n; ++c) {
        e.precision.push_back(ratio(e.matrix[c][c], predicted[c]));
        e.recall.push_back(ratio(e.matrix[c][c], e.support[c]));
        e.f1.push_back(harmonicMean(e.precision[c], e.recall[c]));
        f1Sum += e.f1[c];
    }
    e.macroF1 = f1Sum / static_cast<double>(n);
}

void scoreOverall(ClassifierEvaluation& e) {
    std::int64_t correct = 0;
    std::size_t majority = 0;
    for (std::size_t c = 0; c < e.classes.size(); ++c) {
        correct += e.matrix[c][c];
        if (e.support[c] > e.support[majority]) majority = c;
    }
    e.accuracy = ratio(correct, e.total());
    e.majorityClass = e.classes[majority];
    e.majorityAccuracy = ratio(e.support[majority], e.total());
}

std::vector<std::string> classNames(const json& classes, const std::string& source) {
    if (!classes.is_array()) throw InputError(source, 0, "classes: expected an array");
    std::vector<std::string> names;
    for (const auto& c : classes) {
        if (!c.is_object() || !c.contains("name") || !c["name"].is_string())
            throw InputError(source, 0, "classes: expected objects with a \"name\" string");
        names.push_back(c["name"].get<std::string>());
    }
    return names;
}

std::vector<std::vector<std::int64_t>> counts(const json& matrix, const std::string& source) {
    if (!matrix.is_array()) throw InputError(source, 0, "matrix: expected an array of rows");
    std::vector<std::vector<std::int64_t>> rows;
    for (const auto& row : matrix) {
        if (!row.is_array()) throw InputError(source, 0, "matrix: expected an array of rows");
        auto& out = rows.emplace_back();
        for (const auto& count : row) {
            if (!count.is_number_integer()) throw InputError(source, 0, "matrix: expected integer counts");
            out.push_back(count.get<std::int64_t>());
        }
    }
    return rows;
}

}  // namespace

std::int64_t ClassifierEvaluation::total() const {
    std::int64_t sum = 0;
    for (const auto s : support) sum += s;
    return sum;
}

ClassifierEvaluation evaluateConfusion(std::vector<std::string> classes,
                                       std::vector<std::vector<std::int64_t>> matrix, std::int64_t step) {
    checkShape(classes, matrix, "");
    ClassifierEvaluation e;
    e.step = step;
    e.classes = std::move(classes);
    e.matrix = std::move(matrix);
    scoreClasses(e);
    scoreOverall(e);
    return e;
}

std::string ClassifierEvaluation::toJson() const {
    json perClass = json::array();
    for (std::size_t c = 0; c < classes.size(); ++c)
        perClass.push_back({{"name", classes[c]},
                            {"precision", precision[c]},
                            {"recall", recall[c]},
                            {"f1", f1[c]},
                            {"support", support[c]}});
    const json j = {
        {"split", "validation"},
        {"step", step},
        {"samples", total()},
        {"accuracy", accuracy},
        {"macro_f1", macroF1},
        {"majority_baseline", {{"class", majorityClass}, {"accuracy", majorityAccuracy}}},
        {"undefined_ratios", "0: the precision of a class never predicted, the recall of a class absent"},
        {"classes", perClass},
        {"matrix_rows", "true class"},
        {"matrix_columns", "predicted class"},
        {"matrix", matrix}};
    return j.dump(2) + "\n";
}

ClassifierEvaluation ClassifierEvaluation::fromJson(const std::string& text, const std::string& sourceName) {
    const json j = detail::parseJsonDocument(text, sourceName);
    if (!j.is_object())
        throw InputError(sourceName, 0,
                         "expected a JSON object (evaluation), found " + detail::jsonTypeName(j));
    const json& step = detail::requiredMember(j, "step", sourceName);
    if (!step.is_number_integer()) throw InputError(sourceName, 0, "step: expected an integer");
    auto classes = classNames(detail::requiredMember(j, "classes", sourceName), sourceName);
    auto matrix = counts(detail::requiredMember(j, "matrix", sourceName), sourceName);
    checkShape(classes, matrix, sourceName);
    return evaluateConfusion(std::move(classes), std::move(matrix), step.get<std::int64_t>());
}

std::optional<ClassifierEvaluation> loadEvaluation(const std::string& runDir) {
    const auto path = (std::filesystem::path(runDir) / runfiles::kEvaluation).string();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    return ClassifierEvaluation::fromJson(readFile(path), path);
}

}  // namespace wb
