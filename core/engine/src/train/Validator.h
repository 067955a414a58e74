// Validation of a training run: the mean loss and accuracy over the validation split (and a classifier's
// confusion matrix), each rank of a data-parallel run scoring its share and the sums combined, so every
// rank gets the same numbers.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "data/TextDatasets.h"
#include "train/GradientSync.h"
#include "train/TrainingStep.h"

namespace wb {

struct Validation {
    double loss = 0, accuracy = 0;
    // A classifier's counts over the whole split: confusion[t][p] samples of true class t predicted as p.
    std::vector<std::vector<std::int64_t>> confusion;
    bool done = false;  // false: nothing to validate, or stopped half-way
};

// Samples a validation batch holds (batches of mean losses are summed, so it shows in the last bits).
std::int64_t validationBatchSize(const ExperimentConfig& config);

class Validator {
public:
    // split: the whole validation split, on the training device; classes: a classifier's number of
    // classes (0 for a language model, which has no confusion matrix).
    Validator(TrainingSetup& setup, EncodedSplit split, std::int64_t classes, const ExperimentConfig& config,
              GradientSync& sync, const std::atomic<bool>& stopRequested)
        : m_setup(setup),
          m_split(std::move(split)),
          m_classes(classes),
          m_config(config),
          m_sync(sync),
          m_stop(stopRequested) {}

    bool empty() const { return m_split.size() == 0; }
    Validation run();

private:
    TrainingSetup& m_setup;
    EncodedSplit m_split;
    const std::int64_t m_classes;
    const ExperimentConfig& m_config;
    GradientSync& m_sync;
    const std::atomic<bool>& m_stop;
};

}  // namespace wb
