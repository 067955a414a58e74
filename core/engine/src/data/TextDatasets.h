// Encoded corpora as tensors: the LM token stream cut into windows, or padded classification examples;
// a deterministic split and shuffle from the seed; batches by slicing (no per-example loaders).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "workbench/Config.h"
#include "workbench/Corpus.h"
#include "workbench/Vocabulary.h"

namespace wb {

struct Batch {
    torch::Tensor inputs;   // [B, T] int64 token ids
    torch::Tensor targets;  // LM: [B, T] next tokens; classifier: [B] class ids
    torch::Tensor lengths;  // classifier: [B] real lengths (>= 1); undefined for LMs
    std::int64_t size() const { return inputs.size(0); }
    Batch to(const torch::Device& device) const;
};

// One split (train or validation) of an encoded corpus.
class EncodedSplit {
public:
    EncodedSplit() = default;
    // LM: windows of seqLen + 1 tokens every `stride` tokens of the stream.
    static EncodedSplit languageModel(torch::Tensor stream, std::int64_t seqLen, std::int64_t stride);
    // Classifier: padded [N, T] tokens, lengths [N], labels [N].
    static EncodedSplit classifier(torch::Tensor tokens, torch::Tensor lengths, torch::Tensor labels);

    std::int64_t size() const { return m_size; }
    std::int64_t tokensPerSample() const;                     // T
    const torch::Tensor& stream() const { return m_stream; }  // LM: the split's token stream
    Batch batch(const torch::Tensor& indices) const;          // int64 indices into [0, size)
    Batch range(std::int64_t begin, std::int64_t end) const;
    // The same split with its tensors on a device (batches are then sliced there, not copied per step).
    EncodedSplit to(const torch::Device& device) const;

private:
    bool m_lm = true;
    std::int64_t m_size = 0;
    std::int64_t m_seqLen = 0, m_stride = 1;
    torch::Tensor m_stream;   // LM: the token stream
    torch::Tensor m_windows;  // LM: [W, T + 1], a view of the stream
    torch::Tensor m_tokens, m_lengths, m_labels;
};

struct PreparedData {
    Task task = Task::LanguageModel;
    Vocabulary vocabulary;
    std::vector<std::string> classes;
    EncodedSplit train, validation;
    std::int64_t corpusTokens = 0;
    std::int64_t seqLen = 0;
};

// Builds the vocabulary (unless one is given, as when resuming) and both splits. Throws InputError when
// the corpus does not fit the task (an unlabelled corpus for a classifier, a corpus shorter than one window).
PreparedData prepareData(const ExperimentConfig& config, const Corpus& corpus,
                         const Vocabulary* vocabulary = nullptr);

// The vocabulary size a config asks for (word vocabularies default to 15,000 tokens, as reference 004).
std::size_t effectiveVocabularyLimit(const DataConfig& data);

// A permutation of [0, n) from a seed: Fisher-Yates over mt19937_64, identical on every platform.
torch::Tensor seededPermutation(std::int64_t n, std::uint64_t seed);

}  // namespace wb
