// The n-gram baseline of a language model run: an interpolated Kneser-Ney model of orders 1 to 5 fitted on
// the run's training stream and scored on its validation windows, so a user can see whether the network has
// learned more than n-gram statistics ("LSTM 2.31 bpc vs 5-gram 2.52 bpc"). A run writes it to
// baseline.json when training starts; the app and the CLI read it from there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workbench/domain/Config.h"

namespace wb {

struct NgramBaseline {
    std::string method = "interpolated Kneser-Ney";
    int order = 5;            // the highest order; bitsPerToken is this order's
    double bitsPerToken = 0;  // on the validation targets (bits per character for char tokens)
    std::vector<double> bitsPerTokenByOrder;  // [0] unigram ... [order - 1] = bitsPerToken
    std::int64_t trainTokens = 0;             // tokens the counts came from
    // The training split's tokens: more than trainTokens when the counts came from a sample of it (runs
    // spread evenly over the split, a bounded fit on a large corpus); 0 in a baseline.json from before
    // samples.
    std::int64_t trainSplitTokens = 0;
    // The validation windows scored: all of the split's, or the run's fixed sample of them (data.val_size).
    bool validationSampled = false;
    std::int64_t validationTargets = 0;  // tokens scored
    std::int64_t vocabulary = 0;
    double seconds = 0;  // time to fit and score (0 when it came from the cache)
    bool cached = false;

    std::string toJson() const;
    // Throws InputError(sourceName, ...) when malformed.
    static NgramBaseline fromJson(const std::string& json, const std::string& sourceName);
};

// The run folder's baseline.json; nullopt when there is none (a classifier, a run from before baselines).
// Throws InputError when it is malformed.
std::optional<NgramBaseline> loadBaseline(const std::string& runDir);

// Where fitted baselines are kept, one small JSON file per corpus and split: $LSTM_WORKBENCH_BASELINE_CACHE
// when set (empty: no cache; the tests point it into the build tree), else ".baselines" in the prepared
// corpora's folder.
std::string baselineCacheDir();

// Bits per token from a loss in nats per token: a character model's "bpc" metric.
inline double bitsFromNats(double nats) { return nats / 0.6931471805599453; }

// Runs whose tokens are characters: they get the "bpc" metric and the n-gram baseline. (A word model's
// bits per word would read as bits per character next to them; its perplexity is its metric.)
inline bool hasBitsPerCharacter(const ExperimentConfig& config) {
    return config.task == Task::LanguageModel && config.data.tokens == TokenLevel::Char;
}

}  // namespace wb
