// What a checkpoint must remember besides tensors to resume a run exactly: where in which epoch it was,
// the counters behind the throughput, the best validation so far. Stored as optimizer.safetensors metadata.
// Also the vocab.json of a run, which carries the class names next to the vocabulary.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "workbench/domain/Config.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/Vocabulary.h"

namespace wb {

struct ProgressState {
    std::int64_t step = 0;
    std::int64_t epochIndex = 0;    // epochs completed
    std::int64_t batchInEpoch = 0;  // batches of the current epoch done
    std::int64_t samples = 0;
    std::int64_t optimizerSteps = 0;
    double wallSeconds = 0;      // training wall time (pauses excluded)
    double measuredSeconds = 0;  // throughput window: warm-up, validation, checkpoints excluded
    std::int64_t measuredSamples = 0;
    double lastTrainLoss = 0;
    double bestValLoss = 0, bestValAccuracy = 0, finalValLoss = 0, finalValAccuracy = 0;
    std::int64_t badValidations = 0;
    // The train-loss record a stop cut short (--log-every above 1): the sum of its steps' losses, as the run
    // summed them, and their count. The resumed run adds its steps to them, so that the record at the
    // window's end is the one a run never stopped writes. 0 and 0 when none, and in checkpoints from before.
    double openLossSum = 0;
    std::int64_t openLossCount = 0;
    // A stop came during this step's validation, which was dropped: the resumed run validates first, as the
    // run never stopped did at this step.
    bool validationOwed = false;

    std::map<std::string, std::string> toMetadata(const ExperimentConfig& config) const;
    static ProgressState fromMetadata(const std::map<std::string, std::string>& metadata,
                                      const std::string& source);
    RunSummary summary(std::int64_t parameters, std::int64_t tokensPerSample) const;
};

// A checkpoint is a pair of files (model and optimizer) that must agree. Each is first written whole as
// "<name>.next" (itself atomically), then both are renamed over the old pair. A process killed at any moment
// leaves either the old pair, or a complete new pair still named .next, or the new model next to a complete
// optimizer.safetensors.next; recoverCheckpoint() finishes or discards such a commit so that the files
// always hold one consistent checkpoint.
void commitCheckpoint(const std::string& runDir);
void recoverCheckpoint(const std::string& runDir);
// The step a resume would continue from: the checkpoint recoverCheckpoint would keep, read from the files'
// headers only, changing nothing (a reader's question); -1 when there is no checkpoint.
std::int64_t resumableCheckpointStep(const std::string& runDir);

// With the format version (workbench/domain/FormatVersion.h). Reading refuses a newer major format and names
// each unknown field in `warnings` when given.
std::string vocabularyFileJson(const Vocabulary& vocabulary, const std::vector<std::string>& classes);
Vocabulary readVocabularyFile(const std::string& path, std::vector<std::string>* classes,
                              std::vector<std::string>* warnings = nullptr);
// The same from the file's text (a data-parallel worker gets it from rank 0); path names it in errors.
Vocabulary parseVocabularyFile(const std::string& text, const std::string& path,
                               std::vector<std::string>* classes,
                               std::vector<std::string>* warnings = nullptr);

}  // namespace wb
