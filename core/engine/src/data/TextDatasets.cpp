// Encoded corpora, splits and batches (see TextDatasets.h).
#include "data/TextDatasets.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

#include "workbench/domain/Errors.h"

namespace wb {

Batch Batch::to(const torch::Device& device) const {
    if (device.is_cpu()) return *this;
    Batch b;
    b.inputs = inputs.to(device, /*non_blocking=*/true);
    b.targets = targets.to(device, true);
    if (lengths.defined()) b.lengths = lengths.to(device, true);
    return b;
}

DocumentStream::DocumentStream(std::shared_ptr<const TokenStore> store, std::vector<std::int64_t> order,
                               std::vector<std::int64_t> remap)
    : m_store(std::move(store)), m_order(std::move(order)), m_remap(std::move(remap)) {
    if (m_order.empty()) {
        m_size = m_store->tokenCount();
        return;
    }
    m_starts.reserve(m_order.size() + 1);
    m_starts.push_back(0);
    for (const auto doc : m_order)
        m_starts.push_back(m_starts.back() + m_store->documentEnd(doc) - m_store->documentBegin(doc));
    m_size = m_starts.back();
}

void DocumentStream::copy(std::int64_t begin, std::int64_t count, std::int64_t* out) const {
    if (m_order.empty()) {
        m_store->copy(begin, count, out);
    } else {
        // The document holding `begin`, then as many after it as the count reaches into.
        auto k = static_cast<std::size_t>(std::upper_bound(m_starts.begin(), m_starts.end(), begin) -
                                          m_starts.begin() - 1);
        std::int64_t offset = begin - m_starts[k];
        for (std::int64_t left = count, *to = out; left > 0; ++k, offset = 0) {
            const auto doc = m_order[k];
            const auto n = std::min(left, m_store->documentEnd(doc) - m_store->documentBegin(doc) - offset);
            m_store->copy(m_store->documentBegin(doc) + offset, n, to);
            to += n;
            left -= n;
        }
    }
    if (!m_remap.empty())
        for (std::int64_t i = 0; i < count; ++i) out[i] = m_remap[static_cast<std::size_t>(out[i])];
}

EncodedSplit EncodedSplit::languageModel(std::shared_ptr<const DocumentStream> stream, std::int64_t begin,
                                         std::int64_t end, std::int64_t seqLen, std::int64_t stride) {
    EncodedSplit s;
    s.m_lm = true;
    s.m_stream = std::move(stream);
    s.m_begin = begin;
    s.m_end = end;
    s.m_seqLen = seqLen;
    s.m_stride = stride;
    s.m_size = end - begin >= seqLen + 1 ? (end - begin - (seqLen + 1)) / stride + 1 : 0;
    return s;
}

EncodedSplit EncodedSplit::classifier(std::shared_ptr<const DocumentStream> stream,
                                      std::vector<std::int64_t> rows, std::int64_t seqLen) {
    EncodedSplit s;
    s.m_lm = false;
    s.m_stream = std::move(stream);
    s.m_rows = std::move(rows);
    s.m_seqLen = seqLen;
    s.m_size = static_cast<std::int64_t>(s.m_rows.size());
    return s;
}

EncodedSplit EncodedSplit::to(const torch::Device& device) const {
    EncodedSplit s = *this;
    s.m_device = device;
    return s;
}

EncodedSplit EncodedSplit::sample(std::int64_t n, std::uint64_t seed) const {
    EncodedSplit s = *this;
    s.m_picked.clear();
    if (n <= 0 || n >= m_size) return s;
    const SeededOrder order(m_size, seed);
    s.m_picked.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) s.m_picked[static_cast<std::size_t>(i)] = order[i];
    std::sort(s.m_picked.begin(), s.m_picked.end());
    return s;
}

Batch EncodedSplit::batch(const torch::Tensor& indices) const {
    const auto idx = indices.to(torch::kCPU, torch::kInt64).contiguous();
    const auto* at = idx.data_ptr<std::int64_t>();
    const auto b = idx.numel();
    const auto t = m_seqLen;
    Batch out;
    if (m_lm) {
        auto rows = torch::empty({b, t + 1}, torch::kInt64);
        auto* data = rows.data_ptr<std::int64_t>();
        for (std::int64_t i = 0; i < b; ++i)
            m_stream->copy(m_begin + sampleIndex(at[i]) * m_stride, t + 1, data + i * (t + 1));
        out.inputs = rows.narrow(1, 0, t).contiguous();
        out.targets = rows.narrow(1, 1, t).contiguous();
    } else {
        out.inputs = torch::zeros({b, t}, torch::kInt64);  // kPad
        out.lengths = torch::ones({b}, torch::kInt64);
        out.targets = torch::zeros({b}, torch::kInt64);
        auto* tok = out.inputs.data_ptr<std::int64_t>();
        auto* len = out.lengths.data_ptr<std::int64_t>();
        auto* lab = out.targets.data_ptr<std::int64_t>();
        const auto& store = m_stream->store();
        for (std::int64_t i = 0; i < b; ++i) {
            const auto doc = m_rows[static_cast<std::size_t>(sampleIndex(at[i]))];
            const auto begin = store.documentBegin(doc);
            const auto keep = std::min(store.documentEnd(doc) - 1 - begin, t);  // its <eos> left out
            m_stream->copy(begin, keep, tok + i * t);
            if (keep == 0) tok[i * t] = Vocabulary::kUnk;  // an empty text still has one (unknown) token
            len[i] = std::max<std::int64_t>(keep, 1);
            lab[i] = store.label(doc);
        }
    }
    return out.to(m_device);
}

Batch EncodedSplit::range(std::int64_t begin, std::int64_t end) const {
    return batch(torch::arange(begin, end, torch::kInt64));
}

std::vector<std::int64_t> EncodedSplit::windowIds() const {
    std::vector<std::int64_t> ids(static_cast<std::size_t>(size() * (m_seqLen + 1)));
    for (std::int64_t i = 0; i < size(); ++i)
        m_stream->copy(m_begin + sampleIndex(i) * m_stride, m_seqLen + 1, ids.data() + i * (m_seqLen + 1));
    return ids;
}

std::vector<std::int64_t> EncodedSplit::streamIds(std::int64_t maxIds, std::int64_t pieces) const {
    const auto total = m_end - m_begin;
    if (total <= maxIds) pieces = 1, maxIds = total;
    const auto piece = maxIds / std::max<std::int64_t>(pieces, 1);
    std::vector<std::int64_t> ids(static_cast<std::size_t>(piece * pieces));
    for (std::int64_t k = 0; k < pieces; ++k) {
        const auto at = m_begin + (pieces == 1 ? 0 : (total - piece) * k / (pieces - 1));
        m_stream->copy(at, piece, ids.data() + k * piece);
    }
    return ids;
}

namespace {
std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
}  // namespace

SeededOrder::SeededOrder(std::int64_t n, std::uint64_t seed) : m_n(std::max<std::int64_t>(n, 0)) {
    int bits = 0;  // bits of n - 1, the largest value
    while (bits < 62 && (std::uint64_t{1} << bits) < static_cast<std::uint64_t>(m_n)) ++bits;
    m_halfBits = std::max(1, (bits + 1) / 2);
    m_mask = (std::uint64_t{1} << m_halfBits) - 1;
    std::uint64_t key = splitmix64(seed);
    for (auto& k : m_keys) k = key = splitmix64(key);
}

std::uint64_t SeededOrder::round(int r, std::uint64_t half) const {
    return splitmix64(m_keys[r] ^ half) & m_mask;
}

std::int64_t SeededOrder::operator[](std::int64_t position) const {
    auto x = static_cast<std::uint64_t>(position);
    do {
        std::uint64_t left = x >> m_halfBits, right = x & m_mask;
        for (int r = 0; r < 6; ++r) {
            const std::uint64_t next = left ^ round(r, right);
            left = right;
            right = next;
        }
        x = (left << m_halfBits) | right;
    } while (x >= static_cast<std::uint64_t>(m_n));
    return static_cast<std::int64_t>(x);
}

torch::Tensor SeededOrder::slice(std::int64_t begin, std::int64_t count) const {
    auto out = torch::empty({count}, torch::kInt64);
    auto* p = out.data_ptr<std::int64_t>();
    for (std::int64_t i = 0; i < count; ++i) p[i] = (*this)[begin + i];
    return out;
}

std::size_t effectiveVocabularyLimit(const DataConfig& data) {
    if (data.vocabSize > 0) return static_cast<std::size_t>(data.vocabSize);
    return data.tokens == TokenLevel::Word ? 15000 : 0;
}

static std::vector<std::size_t> shuffledOrder(std::size_t n, std::uint64_t seed) {
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(seed);
    for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
    return order;
}

// The validation sample: its own seed, so that it does not move with the training order's.
static std::uint64_t validationSeed(const ExperimentConfig& config) { return config.train.seed * 31 + 17; }

static PreparedData prepareLanguageModel(const ExperimentConfig& config,
                                         std::shared_ptr<const DocumentStream> stream, PreparedData d) {
    // Documents (shuffled, except running text whose order is its meaning) joined with <eos>; the last
    // valFraction of the stream is the validation split, so no window straddles the two.
    const auto total = stream->size();
    const auto t = config.data.seqLen;
    if (total < t + 1)
        throw InputError(stream->store().info().source, 0,
                         "the corpus has " + std::to_string(total) +
                             " tokens, fewer than one window of sequence length " + std::to_string(t) +
                             " + 1: lower the sequence length");
    std::int64_t valTokens = static_cast<std::int64_t>(static_cast<double>(total) * config.data.valFraction);
    if (valTokens > 0 && valTokens < t + 1) valTokens = 0;  // too short to hold one validation window
    if (total - valTokens < t + 1) valTokens = 0;
    const auto stride = config.data.stride > 0 ? config.data.stride : t;
    // data_fraction: the first share of the training stream (at least one window); validation is unchanged.
    const auto trainTokens =
        std::max<std::int64_t>(std::min<std::int64_t>(t + 1, total - valTokens),
                               static_cast<std::int64_t>(std::llround(static_cast<double>(total - valTokens) *
                                                                      config.data.dataFraction)));
    d.train = EncodedSplit::languageModel(stream, 0, trainTokens, t, stride);
    // Validation windows never overlap: each token is scored once (in the sample, each sampled one).
    d.validation = EncodedSplit::languageModel(stream, total - valTokens, total, t, t)
                       .sample(config.data.valSize, validationSeed(config));
    d.corpusTokens = total;
    return d;
}

static PreparedData prepareClassifier(const ExperimentConfig& config,
                                      std::shared_ptr<const DocumentStream> stream, PreparedData d) {
    const auto& store = stream->store();
    const auto& source = store.info().source;
    if (store.classes().empty())
        throw InputError(
            source, 0,
            "a classifier needs labelled text (TSV/CSV with label and text, or one folder per class)");
    d.classes = store.classes();
    const auto t = config.data.seqLen;
    // Stratified split: each class gives valFraction of its documents, so every class is validated.
    std::vector<std::vector<std::int64_t>> byClass(d.classes.size());
    for (std::int64_t i = 0; i < store.documentCount(); ++i) {
        const int c = store.label(i);
        if (c < 0 || c >= static_cast<int>(d.classes.size()))
            throw InputError(source, 0, "document " + std::to_string(i + 1) + " has no known label");
        byClass[static_cast<std::size_t>(c)].push_back(i);
    }
    std::vector<std::int64_t> trainIdx, valIdx;
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
    for (const auto& rows : {&trainIdx, &valIdx})
        for (const auto doc : *rows)
            d.corpusTokens += std::min(store.documentEnd(doc) - 1 - store.documentBegin(doc), t);
    d.indexBytes += (trainIdx.size() + valIdx.size()) * sizeof(std::int64_t);
    // Training order is shuffled per epoch by the trainer; the split itself is kept in a stable order.
    d.train = EncodedSplit::classifier(stream, std::move(trainIdx), t);
    d.validation = EncodedSplit::classifier(stream, std::move(valIdx), t)
                       .sample(config.data.valSize, validationSeed(config));
    if (d.train.size() == 0)
        throw InputError(source, 0, "no training documents left after the validation split");
    return d;
}

PreparedData prepareData(const ExperimentConfig& config, std::shared_ptr<const TokenStore> store,
                         const Vocabulary* vocabulary) {
    PreparedData d;
    d.task = config.task;
    d.seqLen = config.data.seqLen;
    if (store->documentCount() == 0) throw InputError(store->info().source, 0, "the corpus has no documents");
    // A vocabulary given that is not the store's (rank 0's on another machine, a resumed run's whose corpus
    // changed): the store's ids are read as the given vocabulary's, unknown tokens as <unk>.
    std::vector<std::int64_t> remap;
    if (vocabulary && !(*vocabulary == store->vocabulary())) {
        const auto& own = store->vocabulary();
        remap.resize(own.size());
        for (std::size_t id = 0; id < own.size(); ++id)
            remap[id] = id < static_cast<std::size_t>(Vocabulary::kNumSpecial)
                            ? static_cast<std::int64_t>(id)
                            : vocabulary->id(own.token(static_cast<std::int64_t>(id)));
    }
    d.vocabulary = vocabulary ? *vocabulary : store->vocabulary();
    // Running text keeps its order; the documents of other formats are shuffled from the seed.
    std::vector<std::int64_t> order;
    if (config.task == Task::LanguageModel && store->format() != CorpusFormat::Text) {
        const auto shuffled =
            shuffledOrder(static_cast<std::size_t>(store->documentCount()), config.train.seed);
        order.assign(shuffled.begin(), shuffled.end());
    }
    auto stream = std::make_shared<const DocumentStream>(store, std::move(order), std::move(remap));
    d.indexBytes = stream->indexBytes();
    d.store = store;
    if (config.task == Task::LanguageModel)
        return prepareLanguageModel(config, std::move(stream), std::move(d));
    return prepareClassifier(config, std::move(stream), std::move(d));
}

PreparedData prepareData(const ExperimentConfig& config, const Corpus& corpus, const Vocabulary* vocabulary) {
    if (corpus.documents.empty()) throw InputError(corpus.source, 0, "the corpus has no documents");
    auto store = vocabulary ? TokenStore::fromCorpus(corpus, *vocabulary)
                            : TokenStore::fromCorpus(corpus, config.data);
    return prepareData(config, std::move(store), nullptr);
}

}  // namespace wb
