// A Keras-style model summary computed from the config alone (no tensors), so the GUI can update it as the
// user types: layer rows with output shapes and parameter counts, FLOPs per sample and a memory estimate.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workbench/domain/Config.h"

namespace wb {

struct SummaryRow {
    std::string layer;        // "embedding (Embedding)"
    std::string outputShape;  // "(batch, 73, 512)"
    std::int64_t parameters = 0;
};

struct ModelSummary {
    std::vector<SummaryRow> rows;
    std::int64_t totalParameters = 0;
    std::int64_t vocabSize = 0;
    std::int64_t outputs = 0;          // classes or vocabulary size
    double forwardFlopsPerSample = 0;  // multiply-add = 2 FLOPs; one sample = one sequence of seqLen
    double trainFlopsPerSample = 0;    // ~3x forward (docs/performance.md)
    double parameterBytes = 0;         // fp32 weights
    double trainingMemoryBytes = 0;    // weights + grads + Adam state + activations of one batch
    std::string toText() const;        // the table as monospace text
};

// vocabSize: tokens including specials; classes: number of classes (classifier) or 0.
ModelSummary summarizeModel(const ExperimentConfig& config, std::int64_t vocabSize, std::int64_t classes);

}  // namespace wb
