// An interpolated Kneser-Ney n-gram model over token ids (Chen & Goodman's formulation, one absolute
// discount per order from the count-of-counts): the baseline every language model run is measured against.
//
// The highest order of a query counts n-grams; every lower order counts continuation counts (in how many
// distinct contexts a sequence was seen), and each level passes the discounted mass down, ending in the
// uniform distribution over the vocabulary, so P(. | context) sums to 1 over the vocabulary for any context,
// seen or not.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "workbench/domain/Baseline.h"

namespace wb {

class KneserNeyModel {
public:
    // tokens: the training stream (ids in [0, vocabulary)); order from 1 to kMaxOrder.
    KneserNeyModel(const std::vector<std::int64_t>& tokens, std::int64_t vocabulary, int order);

    static constexpr int kMaxOrder = 5;

    int order() const { return m_order; }
    std::int64_t vocabulary() const { return m_vocabulary; }
    // P(token | context): `context` holds the tokens before it, oldest first (only the last order-1 count);
    // `maxOrder` (<= order(); 0 = order()) scores as the model of that order would.
    double probability(const std::int64_t* context, std::size_t contextLength, std::int64_t token,
                       int maxOrder = 0) const;

private:
    using Key = unsigned __int128;  // up to kMaxOrder ids of kBitsPerToken bits each
    struct KeyHash {
        std::size_t operator()(Key k) const noexcept {
            const auto lo = static_cast<std::uint64_t>(k), hi = static_cast<std::uint64_t>(k >> 64);
            return std::hash<std::uint64_t>()(lo ^ (hi * 0x9E3779B97F4A7C15ULL));
        }
    };
    struct ContextStats {
        std::int64_t total = 0;  // sum of the counts of the context's continuations
        std::int64_t types = 0;  // distinct tokens seen after it
    };
    // One kind of count (raw or continuation) at one order.
    struct Level {
        std::unordered_map<Key, std::int64_t, KeyHash> counts;    // n-gram -> count
        std::unordered_map<Key, ContextStats, KeyHash> contexts;  // its first n-1 ids -> stats
        double discount = 0.5;
        void finish();  // fills contexts and the discount from counts
    };

    int m_order;
    std::int64_t m_vocabulary;
    std::vector<Level> m_raw;         // [k-1]: k-grams, counted
    std::vector<Level> m_continuing;  // [k-1]: k-grams, by distinct left neighbours (k < order)
};

// Bits per token of the validation windows as the run's validator scores them: windows of seqLen + 1
// tokens every windowStride tokens (seqLen: the split's stream, whose windows share their edge tokens;
// seqLen + 1: a sample's windows, one after another), each predicting its last seqLen tokens from those
// before it in the window. `model.order()` and every lower order are scored at once (bitsPerTokenByOrder).
NgramBaseline scoreBaseline(const KneserNeyModel& model, const std::vector<std::int64_t>& validation,
                            std::int64_t seqLen, std::int64_t windowStride = 0);

// The run's baseline: fitted on `train`, scored on `validation`. Cached under `cacheDir` (keyed by a hash
// of both streams, the vocabulary size, the order and seqLen) when cacheDir is not empty; a cache file that
// cannot be read is recomputed and replaced.
NgramBaseline computeBaseline(const std::vector<std::int64_t>& train,
                              const std::vector<std::int64_t>& validation, std::int64_t vocabulary,
                              std::int64_t seqLen, const std::string& cacheDir,
                              int order = KneserNeyModel::kMaxOrder, std::int64_t windowStride = 0);

}  // namespace wb
