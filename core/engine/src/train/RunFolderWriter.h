// Everything a training run writes into its folder, each file atomically: config.json and vocab.json at the
// start, run.json and metrics.csv as it goes, a classifier's evaluation.json at each validation, the
// checkpoint pair. In a data-parallel run only rank 0 has
// an enabled writer; the other ranks' writers do nothing. The enabled writer also holds the run's lock
// (workbench/domain/RunLock.h) from claim() until it is destroyed with the session: that is how a reader
// knows the run has a live owner, and a run whose owner died reads "interrupted".
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "data/TextDatasets.h"
#include "tensors/TensorIO.h"
#include "workbench/domain/Config.h"
#include "workbench/domain/Evaluation.h"
#include "workbench/domain/Metrics.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/RunLock.h"

namespace wb {

class RunFolderWriter {
public:
    // dir as given ("runs/x/" too: its trailing separator would leave the run without an id).
    RunFolderWriter(std::filesystem::path dir, bool enabled)
        : m_dir(dir.has_filename() ? std::move(dir) : dir.parent_path()), m_enabled(enabled) {}
    bool enabled() const { return m_enabled; }
    const std::filesystem::path& dir() const { return m_dir; }
    // Takes the run's lock for this sitting, before the first write; InputError when another process trains
    // the run. The folder must exist.
    void claim() {
        if (m_enabled) m_lock = RunLock::acquire(m_dir.string());
    }
    std::string runId() const { return m_dir.filename().string(); }

    void writeConfig(const ExperimentConfig& config) const;
    void writeVocabulary(const std::string& vocabularyJson) const;
    void writeRunInfo(const RunInfo& info) const;
    void writeMetrics(const std::vector<MetricRecord>& records) const;
    void writeEvaluation(const ClassifierEvaluation& evaluation) const;
    void writeBaseline(const NgramBaseline& baseline) const;
    // validation.safetensors: the split's samples as validation reads them, batches of evalBatch; nothing
    // when the file would exceed kMaxValidationFileBytes (a whole split of a large corpus). Returns whether
    // it wrote the file.
    bool writeValidationSamples(const EncodedSplit& split, std::int64_t evalBatch) const;
    // The same once per run (a run from before the file gets it when resumed): what every validation scores,
    // so that the run is scored again without its corpus (python/). Returns a line for the log when the file
    // was left out (too large) or could not be written (which only costs the file), else "".
    std::string keepValidationSamples(const EncodedSplit& split, std::int64_t evalBatch) const;
    static constexpr std::int64_t kMaxValidationFileBytes = 64ll << 20;
    // best-model.safetensors, written to a temporary file and renamed over the previous best.
    void writeBestModel(const NamedTensors& model, const std::map<std::string, std::string>& metadata) const;
    // Writes the model and optimizer files as ".next" and commits them as one checkpoint (RunState.h); a
    // failure removes the half-written pair and leaves the committed one untouched.
    void writeCheckpoint(const NamedTensors& model, const std::map<std::string, std::string>& modelMetadata,
                         const NamedTensors& optimizer,
                         const std::map<std::string, std::string>& optimizerMetadata) const;

private:
    std::filesystem::path m_dir;
    bool m_enabled;
    RunLock m_lock;
};

}  // namespace wb
