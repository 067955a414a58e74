// Encoded corpora, splits and batches (see TextDatasets.h).
#include "data/TextDatasets.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

#include "io/MemoryBudget.h"
#include "workbench/Errors.h"
#include "workbench/Format.h"

namespace wb {

Batch Batch::to(const torch::Device& device) const {
    if (device.is_cpu()) return *this;
    Batch b;
    b.inputs = inputs.to(device, /*non_blocking=*/true);
    b.targets = targets.to(device, true);
    if (lengths.defined()) b.lengths = lengths.to(device, true);
    return b;
}

EncodedSplit EncodedSplit::languageModel(torch::Tensor stream, std::int64_t seqLen, std::int64_t stride) {
    EncodedSplit s;
    s.m_lm = true;
    s.m_seqLen = seqLen;
    s.m_stride = stride;
    s.m_stream = stream;
    if (stream.numel() >= seqLen + 1) {
        s.m_windows = stream.unfold(0, seqLen + 1, stride);
        s.m_size = s.m_windows.size(0);
    } else {
        s.m_windows = torch::empty({0, seqLen + 1}, stream.options());
    }
    return s;
}

EncodedSplit EncodedSplit::classifier(torch::Tensor tokens, torch::Tensor lengths, torch::Tensor labels) {
    EncodedSplit s;
    s.m_lm = false;
    s.m_size = tokens.size(0);
    s.m_tokens = std::move(tokens);
    s.m_lengths = std::move(lengths);
    s.m_labels = std::move(labels);
    return s;
}

EncodedSplit EncodedSplit::to(const torch::Device& device) const {
    if (m_lm) {
        // Move the stream, not the windows: windows overlap, and copying them would materialise each token
        // up to seqLen times.
        return languageModel(m_stream.to(device), m_seqLen, m_stride);
    }
    return classifier(m_tokens.to(device), m_lengths.to(device), m_labels.to(device));
}

std::int64_t EncodedSplit::tokensPerSample() const {
    return m_lm ? m_windows.size(1) - 1 : (m_tokens.defined() ? m_tokens.size(1) : 0);
}

Batch EncodedSplit::batch(const torch::Tensor& indices) const {
    Batch b;
    if (m_lm) {
        auto rows = m_windows.index_select(0, indices);
        const auto t = rows.size(1) - 1;
        b.inputs = rows.narrow(1, 0, t).contiguous();
        b.targets = rows.narrow(1, 1, t).contiguous();
    } else {
        b.inputs = m_tokens.index_select(0, indices);
        b.lengths = m_lengths.index_select(0, indices);
        b.targets = m_labels.index_select(0, indices);
    }
    return b;
}

Batch EncodedSplit::range(std::int64_t begin, std::int64_t end) const {
    return batch(torch::arange(
        begin, end,
        torch::TensorOptions(torch::kInt64).device(m_lm ? m_windows.device() : m_tokens.device())));
}

torch::Tensor seededPermutation(std::int64_t n, std::uint64_t seed) {
    std::vector<std::int64_t> p(static_cast<std::size_t>(n));
    std::iota(p.begin(), p.end(), 0);
    std::mt19937_64 rng(seed);
    for (std::int64_t i = n - 1; i > 0; --i) {
        const auto j = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(i + 1));
        std::swap(p[i], p[j]);
    }
    return torch::tensor(p, torch::kInt64);
}

std::size_t effectiveVocabularyLimit(const DataConfig& data) {
    if (data.vocabSize > 0) return static_cast<std::size_t>(data.vocabSize);
    return data.tokens == TokenLevel::Word ? 15000 : 0;
}

// Training holds every token of the corpus as an int64 (8 bytes; the corpus's text takes 1 to 3 bytes a
// character), which loadCorpus's memory guard does not count. This refuses an encoding that would not fit,
// as that guard does for loading, before it runs the machine out of memory.
class TokenBudget {
public:
    explicit TokenBudget(std::string source)
        : m_source(std::move(source)), m_available(availableMemoryBytes()) {}
    void check(std::size_t tokens, std::size_t bytesPerToken) const {
        const double needed = static_cast<double>(tokens) * static_cast<double>(bytesPerToken);
        if (m_available == 0 || needed <= static_cast<double>(m_available)) return;
        throw InputError(m_source, 0,
                         "encoding it for training needs more than " + humanBytes(needed) + " for its " +
                             std::to_string(tokens) + " tokens, " +
                             humanBytes(static_cast<double>(m_available)) +
                             " available: train on a part of the corpus");
    }

private:
    std::string m_source;
    std::uint64_t m_available;
};
// The language model's token stream while it grows (a vector, which may double its capacity) and the
// tensor it is copied into.
constexpr std::size_t kBytesPerStreamToken = 3 * sizeof(std::int64_t);

static std::vector<std::size_t> shuffledOrder(std::size_t n, std::uint64_t seed) {
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(seed);
    for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
    return order;
}

static PreparedData prepareLanguageModel(const ExperimentConfig& config, const Corpus& corpus,
                                         PreparedData d) {
    // Documents (shuffled, except running text whose order is its meaning) joined with <eos>; the last
    // valFraction of the stream is the validation split, so no window straddles the two.
    std::vector<std::size_t> order(corpus.documents.size());
    std::iota(order.begin(), order.end(), 0);
    if (corpus.format != CorpusFormat::Text) order = shuffledOrder(order.size(), config.train.seed);
    std::vector<std::int64_t> stream;
    const TokenBudget budget(corpus.source);
    for (auto i : order) {
        auto ids = d.vocabulary.encode(corpus.documents[i].text);
        stream.insert(stream.end(), ids.begin(), ids.end());
        stream.push_back(Vocabulary::kEos);
        budget.check(stream.size(), kBytesPerStreamToken);
    }
    const auto total = static_cast<std::int64_t>(stream.size());
    const auto t = config.data.seqLen;
    if (total < t + 1)
        throw InputError(corpus.source, 0,
                         "the corpus has " + std::to_string(total) +
                             " tokens, fewer than one window of sequence length " + std::to_string(t) +
                             " + 1: lower the sequence length");
    auto all = torch::tensor(stream, torch::kInt64);
    std::int64_t valTokens = static_cast<std::int64_t>(static_cast<double>(total) * config.data.valFraction);
    if (valTokens > 0 && valTokens < t + 1) valTokens = 0;  // too short to hold one validation window
    if (total - valTokens < t + 1) valTokens = 0;
    const auto stride = config.data.stride > 0 ? config.data.stride : t;
    // data_fraction: the first share of the training stream (at least one window); validation is unchanged.
    const auto trainTokens =
        std::max<std::int64_t>(std::min<std::int64_t>(t + 1, total - valTokens),
                               static_cast<std::int64_t>(std::llround(static_cast<double>(total - valTokens) *
                                                                      config.data.dataFraction)));
    d.train = EncodedSplit::languageModel(all.narrow(0, 0, trainTokens), t, stride);
    // Validation windows never overlap: each token is scored once.
    d.validation = EncodedSplit::languageModel(all.narrow(0, total - valTokens, valTokens), t, t);
    d.corpusTokens = total;
    return d;
}

static PreparedData prepareClassifier(const ExperimentConfig& config, const Corpus& corpus, PreparedData d) {
    if (!corpus.labelled())
        throw InputError(
            corpus.source, 0,
            "a classifier needs labelled text (TSV/CSV with label and text, or one folder per class)");
    d.classes = corpus.classes;
    const auto t = config.data.seqLen;
    // Stratified split: each class gives valFraction of its documents, so every class is validated.
    std::vector<std::vector<std::size_t>> byClass(d.classes.size());
    for (std::size_t i = 0; i < corpus.documents.size(); ++i) {
        const int c = corpus.classIndex(corpus.documents[i].label);
        if (c < 0)
            throw InputError(corpus.source, 0,
                             "document with unknown label '" + corpus.documents[i].label + "'");
        byClass[static_cast<std::size_t>(c)].push_back(i);
    }
    std::vector<std::size_t> trainIdx, valIdx;
    for (std::size_t c = 0; c < byClass.size(); ++c) {
        auto order = shuffledOrder(byClass[c].size(), config.train.seed + 7919 * (c + 1));
        const auto nVal =
            static_cast<std::size_t>(static_cast<double>(order.size()) * config.data.valFraction);
        // data_fraction keeps a share of each class's training documents (at least one), so the subset stays
        // stratified; validation is unchanged.
        const auto nTrain = std::max<std::size_t>(
            order.size() > nVal ? 1 : 0,
            static_cast<std::size_t>(
                std::llround(static_cast<double>(order.size() - nVal) * config.data.dataFraction)));
        for (std::size_t k = 0; k < order.size(); ++k) {
            if (k < nVal)
                valIdx.push_back(byClass[c][order[k]]);
            else if (k - nVal < nTrain)
                trainIdx.push_back(byClass[c][order[k]]);
        }
    }
    // Both splits' [n, T] token tensors, before one is allocated.
    TokenBudget(corpus.source)
        .check(corpus.documents.size() * static_cast<std::size_t>(t), sizeof(std::int64_t));
    auto encodeSet = [&](const std::vector<std::size_t>& idx) {
        const auto n = static_cast<std::int64_t>(idx.size());
        auto tokens = torch::zeros({n, t}, torch::kInt64);
        auto lengths = torch::ones({n}, torch::kInt64);
        auto labels = torch::zeros({n}, torch::kInt64);
        auto tok = tokens.accessor<std::int64_t, 2>();
        auto len = lengths.accessor<std::int64_t, 1>();
        auto lab = labels.accessor<std::int64_t, 1>();
        for (std::int64_t r = 0; r < n; ++r) {
            const auto& doc = corpus.documents[idx[static_cast<std::size_t>(r)]];
            auto ids = d.vocabulary.encode(doc.text);
            const auto keep = std::min<std::int64_t>(static_cast<std::int64_t>(ids.size()), t);
            for (std::int64_t k = 0; k < keep; ++k) tok[r][k] = ids[static_cast<std::size_t>(k)];
            if (keep == 0) tok[r][0] = Vocabulary::kUnk;  // an empty text still has one (unknown) token
            len[r] = std::max<std::int64_t>(keep, 1);
            lab[r] = corpus.classIndex(doc.label);
            d.corpusTokens += keep;
        }
        return EncodedSplit::classifier(tokens, lengths, labels);
    };
    // Training order is shuffled per epoch by the trainer; the split itself is kept in a stable order.
    d.train = encodeSet(trainIdx);
    d.validation = encodeSet(valIdx);
    if (d.train.size() == 0)
        throw InputError(corpus.source, 0, "no training documents left after the validation split");
    return d;
}

PreparedData prepareData(const ExperimentConfig& config, const Corpus& corpus, const Vocabulary* vocabulary) {
    PreparedData d;
    d.task = config.task;
    d.seqLen = config.data.seqLen;
    if (corpus.documents.empty()) throw InputError(corpus.source, 0, "the corpus has no documents");
    if (vocabulary) {
        d.vocabulary = *vocabulary;
    } else {
        std::vector<std::string> texts;
        texts.reserve(corpus.documents.size());
        for (const auto& doc : corpus.documents) texts.push_back(doc.text);
        d.vocabulary = Vocabulary::build(texts, config.data.tokens, effectiveVocabularyLimit(config.data),
                                         static_cast<std::size_t>(config.data.minCount));
    }
    if (config.task == Task::LanguageModel) return prepareLanguageModel(config, corpus, std::move(d));
    return prepareClassifier(config, corpus, std::move(d));
}

}  // namespace wb
