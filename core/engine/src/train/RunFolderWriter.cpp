// RunFolderWriter (see RunFolderWriter.h).
#include "train/RunFolderWriter.h"

#include "workbench/domain/Format.h"
#include "workbench/domain/RunState.h"

namespace wb {

namespace fs = std::filesystem;

void RunFolderWriter::writeConfig(const ExperimentConfig& config) const {
    if (m_enabled) writeFileAtomic((m_dir / runfiles::kConfig).string(), config.toJson());
}

void RunFolderWriter::writeVocabulary(const std::string& vocabularyJson) const {
    if (m_enabled) writeFileAtomic((m_dir / runfiles::kVocab).string(), vocabularyJson);
}

void RunFolderWriter::writeRunInfo(const RunInfo& info) const {
    if (m_enabled) writeFileAtomic((m_dir / runfiles::kRun).string(), info.toJson());
}

void RunFolderWriter::writeMetrics(const std::vector<MetricRecord>& records) const {
    if (!m_enabled) return;
    const auto id = runId();
    std::string csv = metricsCsvHeader() + "\n";
    for (const auto& r : records) csv += toCsvRow(id, r) + "\n";
    writeFileAtomic((m_dir / runfiles::kMetrics).string(), csv);
}

void RunFolderWriter::writeEvaluation(const ClassifierEvaluation& evaluation) const {
    if (m_enabled) writeFileAtomic((m_dir / runfiles::kEvaluation).string(), evaluation.toJson());
}

void RunFolderWriter::writeBaseline(const NgramBaseline& baseline) const {
    if (m_enabled) writeFileAtomic((m_dir / runfiles::kBaseline).string(), baseline.toJson());
}

bool RunFolderWriter::writeValidationSamples(const EncodedSplit& split, std::int64_t evalBatch) const {
    if (!m_enabled || split.size() == 0) return false;
    const bool classifier = split.range(0, 1).lengths.defined();
    const auto n = split.size(), t = split.tokensPerSample();
    // int32 ids: inputs and a language model's targets [N, T], a classifier's targets and lengths [N].
    const auto bytes = 4 * (classifier ? n * t + 2 * n : 2 * n * t);
    if (bytes > kMaxValidationFileBytes) return false;
    const auto batch = split.range(0, n);
    NamedTensors tensors{{"inputs", batch.inputs.to(torch::kInt32)},
                         {"targets", batch.targets.to(torch::kInt32)}};
    if (classifier) tensors.emplace_back("lengths", batch.lengths.to(torch::kInt32));
    saveSafetensors((m_dir / runfiles::kValidation).string(), tensors,
                    {{"format", "lstm-workbench validation samples 1"},
                     {"eval_batch", std::to_string(evalBatch)},
                     {"samples", std::to_string(n)},
                     {"split_samples", std::to_string(split.unsampledSize())}});
    return true;
}

std::string RunFolderWriter::keepValidationSamples(const EncodedSplit& split, std::int64_t evalBatch) const {
    std::error_code ec;
    if (!m_enabled || split.size() == 0 || fs::exists(m_dir / runfiles::kValidation, ec)) return "";
    try {
        if (writeValidationSamples(split, evalBatch)) return "";
        return "validation.safetensors left out: the validation split is larger than " +
               humanBytes(static_cast<double>(kMaxValidationFileBytes)) +
               " as ids (a smaller validation size keeps it)";
    } catch (const std::exception& e) {
        return std::string("warning: validation.safetensors not written: ") + e.what();
    }
}

void RunFolderWriter::writeBestModel(const NamedTensors& model,
                                     const std::map<std::string, std::string>& metadata) const {
    // One file, so no pair to commit: saveSafetensors writes a temporary and renames it (a resume removes a
    // temporary a killed run left).
    if (m_enabled) saveSafetensors((m_dir / runfiles::kBestModel).string(), model, metadata);
}

void RunFolderWriter::writeCheckpoint(const NamedTensors& model,
                                      const std::map<std::string, std::string>& modelMetadata,
                                      const NamedTensors& optimizer,
                                      const std::map<std::string, std::string>& optimizerMetadata) const {
    if (!m_enabled) return;
    const auto modelNext = (m_dir / runfiles::kModel).string() + ".next",
               optimizerNext = (m_dir / runfiles::kOptimizer).string() + ".next";
    try {
        saveSafetensors(modelNext, model, modelMetadata);
        saveSafetensors(optimizerNext, optimizer, optimizerMetadata);
    } catch (...) {
        // Half a new checkpoint is worthless; the committed pair is untouched.
        std::error_code ec;
        fs::remove(modelNext, ec);
        fs::remove(optimizerNext, ec);
        throw;
    }
    commitCheckpoint(m_dir.string());
}

}  // namespace wb
