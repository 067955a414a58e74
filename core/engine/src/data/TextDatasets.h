// Encoded corpora as batches: the language model's stream cut into windows, or classification rows padded
// to the sequence length, read from a token store (workbench/domain/TokenStore.h: its ids read from disk with
// pread, or held in memory for a corpus given in memory); a deterministic split and shuffle from the seed; a
// batch is copied out of the store when it is asked for, so nothing grows with the corpus but the index of
// its documents.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "workbench/domain/Config.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/TokenStore.h"
#include "workbench/domain/Vocabulary.h"

namespace wb {

struct Batch {
    torch::Tensor inputs;   // [B, T] int64 token ids
    torch::Tensor targets;  // LM: [B, T] next tokens; classifier: [B] class ids
    torch::Tensor lengths;  // classifier: [B] real lengths (>= 1); undefined for LMs
    std::int64_t size() const { return inputs.size(0); }
    Batch to(const torch::Device& device) const;
};

// The store's documents in an order (the source's, or shuffled), each followed by its <eos>, read as one
// stream of ids without copying the store; ids may be mapped to another vocabulary's on the way out.
class DocumentStream {
public:
    // order: document indices, empty for the store's own order. remap: store id -> id, empty for none.
    DocumentStream(std::shared_ptr<const TokenStore> store, std::vector<std::int64_t> order,
                   std::vector<std::int64_t> remap);
    std::int64_t size() const { return m_size; }
    void copy(std::int64_t begin, std::int64_t count, std::int64_t* out) const;
    const TokenStore& store() const { return *m_store; }
    std::uint64_t indexBytes() const { return (m_order.size() + m_starts.size() + m_remap.size()) * 8; }

private:
    std::shared_ptr<const TokenStore> m_store;
    std::vector<std::int64_t> m_order, m_starts;  // m_starts[k]: where order[k] begins in the stream
    std::vector<std::int64_t> m_remap;
    std::int64_t m_size = 0;
};

// One split (train or validation) of an encoded corpus.
class EncodedSplit {
public:
    EncodedSplit() = default;
    // LM: windows of seqLen + 1 ids every `stride` ids of stream positions [begin, end).
    static EncodedSplit languageModel(std::shared_ptr<const DocumentStream> stream, std::int64_t begin,
                                      std::int64_t end, std::int64_t seqLen, std::int64_t stride);
    // Classifier: the store's documents `rows`, each cut or padded to seqLen tokens (its <eos> left out).
    static EncodedSplit classifier(std::shared_ptr<const DocumentStream> stream,
                                   std::vector<std::int64_t> rows, std::int64_t seqLen);

    std::int64_t size() const {
        return m_picked.empty() ? m_size : static_cast<std::int64_t>(m_picked.size());
    }
    std::int64_t tokensPerSample() const { return m_seqLen; }
    Batch batch(const torch::Tensor& indices) const;  // int64 indices into [0, size), on any device
    Batch range(std::int64_t begin, std::int64_t end) const;
    // The same split with its batches made on a device.
    EncodedSplit to(const torch::Device& device) const;
    // A fixed sample of at most n samples (all when the split has no more), chosen from the seed and kept
    // in the split's order: the same samples every time it is read.
    EncodedSplit sample(std::int64_t n, std::uint64_t seed) const;
    bool sampled() const { return !m_picked.empty(); }
    std::int64_t unsampledSize() const { return m_size; }

    // LM: the ids of every sample's window, one window after another (for the n-gram baseline's score).
    std::vector<std::int64_t> windowIds() const;
    // LM: up to maxIds ids of the split's stream, in `pieces` runs spread evenly over it (for the baseline's
    // fit), and how many the split holds in all.
    std::vector<std::int64_t> streamIds(std::int64_t maxIds, std::int64_t pieces) const;
    std::int64_t streamSize() const { return m_end - m_begin; }

private:
    std::int64_t sampleIndex(std::int64_t i) const {
        return m_picked.empty() ? i : m_picked[static_cast<std::size_t>(i)];
    }

    bool m_lm = true;
    std::shared_ptr<const DocumentStream> m_stream;
    std::int64_t m_begin = 0, m_end = 0, m_seqLen = 0, m_stride = 1, m_size = 0;
    std::vector<std::int64_t> m_rows;    // classifier: document indices
    std::vector<std::int64_t> m_picked;  // a sample: indices into the whole split; empty = all of it
    torch::Device m_device{torch::kCPU};
};

struct PreparedData {
    Task task = Task::LanguageModel;
    Vocabulary vocabulary;
    std::vector<std::string> classes;
    EncodedSplit train, validation;
    std::int64_t corpusTokens = 0;
    std::int64_t seqLen = 0;
    std::shared_ptr<const TokenStore> store;
    std::uint64_t indexBytes = 0;  // what the splits hold in memory besides the store
};

// The splits of a token store. With a vocabulary given (a resumed run's, rank 0's), ids are read in it.
// Throws InputError when the corpus does not fit the task (an unlabelled corpus for a classifier, a corpus
// shorter than one window). The validation split is cut to data.valSize samples (0: all of it).
PreparedData prepareData(const ExperimentConfig& config, std::shared_ptr<const TokenStore> store,
                         const Vocabulary* vocabulary = nullptr);
// The same for a corpus in memory (its store is made in memory).
PreparedData prepareData(const ExperimentConfig& config, const Corpus& corpus,
                         const Vocabulary* vocabulary = nullptr);

// The vocabulary size a config asks for (word vocabularies default to 15,000 tokens, as reference 004).
std::size_t effectiveVocabularyLimit(const DataConfig& data);

// A permutation of [0, n) from a seed, computed where it is read instead of stored: an epoch's order of a
// corpus's windows costs no memory however large the corpus (stored, it was 8 bytes a window: 225 MB for a
// 2 GB corpus). A Feistel network of six keyed rounds over the smallest domain of 4^k values holding n,
// walked until it lands below n (a bijection on the domain stays one on [0, n); under 4 steps on average).
// Integer arithmetic only: identical on every platform, so a resumed run sees the same batches.
class SeededOrder {
public:
    SeededOrder(std::int64_t n, std::uint64_t seed);
    std::int64_t size() const { return m_n; }
    std::int64_t operator[](std::int64_t position) const;
    // The indices at positions [begin, begin + count), as an int64 tensor (a batch's samples).
    torch::Tensor slice(std::int64_t begin, std::int64_t count) const;

private:
    std::uint64_t round(int r, std::uint64_t half) const;
    std::int64_t m_n = 0;
    int m_halfBits = 1;
    std::uint64_t m_mask = 1;
    std::uint64_t m_keys[6] = {};
};

}  // namespace wb
