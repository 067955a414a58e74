// How a classifier does on its validation split, class by class: the confusion matrix, precision, recall,
// F1 and support per class, macro F1, and the majority-class baseline an accuracy should be read against
// (92 % accuracy means little when 90 % of the split is one class). A run writes it to evaluation.json at
// every validation; the app and the CLI read it back from there, so a run trained elsewhere shows it too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb {

struct ClassifierEvaluation {
    std::int64_t step = 0;             // the optimizer step whose weights were evaluated
    std::vector<std::string> classes;  // vocab.json's order
    // matrix[t][p]: validation samples of true class t predicted as class p.
    std::vector<std::vector<std::int64_t>> matrix;
    // Per class, in classes' order. A ratio with nothing to divide by is 0, as scikit-learn's
    // zero_division=0: the precision of a class never predicted, the recall of a class absent from the
    // split, and the F1 of a class whose precision and recall are both 0.
    std::vector<double> precision, recall, f1;
    std::vector<std::int64_t> support;  // validation samples of each true class (the row sums)
    double accuracy = 0;                // trace / total
    double macroF1 = 0;                 // the unweighted mean of f1 over every class
    std::string majorityClass;          // the split's most frequent true class (the first, on a tie)
    double majorityAccuracy = 0;        // its share of the split: the accuracy of always predicting it

    std::int64_t total() const;
    std::string toJson() const;
    // Reads the classes, step and matrix and recomputes the rest from them, so the numbers always agree
    // with the matrix. Throws InputError(sourceName, …) for anything malformed.
    static ClassifierEvaluation fromJson(const std::string& json, const std::string& sourceName);
};

// Every derived number of a confusion matrix (rows true class, columns predicted, classes.size() square).
// Throws InputError when the matrix is not square in the number of classes or has a negative count.
ClassifierEvaluation evaluateConfusion(std::vector<std::string> classes,
                                       std::vector<std::vector<std::int64_t>> matrix, std::int64_t step);

// The run folder's evaluation.json; nullopt when the run has none (a language model, a run from before
// evaluations were saved, one stopped before its first validation). Throws InputError when it is malformed.
std::optional<ClassifierEvaluation> loadEvaluation(const std::string& runDir);

}  // namespace wb
