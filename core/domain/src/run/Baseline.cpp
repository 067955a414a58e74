// baseline.json: the n-gram baseline of a language model run (workbench/domain/Baseline.h).
#include "workbench/domain/Baseline.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "io/JsonDocument.h"
#include "workbench/domain/CorpusCatalog.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"

namespace wb {

using json = nlohmann::json;

namespace {

double bits(const json& value, const std::string& what, const std::string& source) {
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0)
        throw InputError(source, 0, what + ": expected a number of bits, at least 0");
    return value.get<double>();
}

std::int64_t count(const json& j, const char* key, const std::string& source) {
    const json& value = detail::requiredMember(j, key, source);
    if (!value.is_number_integer() || value.get<std::int64_t>() < 0)
        throw InputError(source, 0, std::string(key) + ": expected a count, at least 0");
    return value.get<std::int64_t>();
}

}  // namespace

std::string NgramBaseline::toJson() const {
    const json j = {{"method", method},
                    {"order", order},
                    {"split", "validation"},
                    {"bits_per_token", bitsPerToken},
                    {"bits_per_token_by_order", bitsPerTokenByOrder},
                    {"train_tokens", trainTokens},
                    {"train_split_tokens", trainSplitTokens},
                    {"fitted_on", trainSplitTokens > trainTokens ? "a sample of the training split"
                                                                 : "the training split"},
                    {"validation_sampled", validationSampled},
                    {"validation_targets", validationTargets},
                    {"vocabulary", vocabulary},
                    {"seconds", seconds},
                    {"cached", cached}};
    return j.dump(2) + "\n";
}

NgramBaseline NgramBaseline::fromJson(const std::string& text, const std::string& sourceName) {
    const json j = detail::parseJsonDocument(text, sourceName);
    if (!j.is_object())
        throw InputError(sourceName, 0,
                         "expected a JSON object (baseline), found " + detail::jsonTypeName(j));
    NgramBaseline b;
    if (const auto it = j.find("method"); it != j.end() && it->is_string()) b.method = it->get<std::string>();
    const json& order = detail::requiredMember(j, "order", sourceName);
    const auto orderValue = detail::jsonInteger(order, 1, 16);  // 2^32 + 1 would narrow to 1
    if (!orderValue || !order.is_number_integer())
        throw InputError(sourceName, 0, "order: expected an integer from 1 to 16");
    b.order = static_cast<int>(*orderValue);
    b.bitsPerToken =
        bits(detail::requiredMember(j, "bits_per_token", sourceName), "bits_per_token", sourceName);
    if (const auto it = j.find("bits_per_token_by_order"); it != j.end()) {
        if (!it->is_array()) throw InputError(sourceName, 0, "bits_per_token_by_order: expected an array");
        for (const auto& v : *it)
            b.bitsPerTokenByOrder.push_back(bits(v, "bits_per_token_by_order", sourceName));
    }
    b.trainTokens = count(j, "train_tokens", sourceName);
    if (j.contains("train_split_tokens")) b.trainSplitTokens = count(j, "train_split_tokens", sourceName);
    if (const auto it = j.find("validation_sampled"); it != j.end() && it->is_boolean())
        b.validationSampled = it->get<bool>();
    b.validationTargets = count(j, "validation_targets", sourceName);
    b.vocabulary = count(j, "vocabulary", sourceName);
    if (const auto it = j.find("seconds"); it != j.end() && it->is_number()) b.seconds = it->get<double>();
    if (const auto it = j.find("cached"); it != j.end() && it->is_boolean()) b.cached = it->get<bool>();
    return b;
}

std::string baselineCacheDir() {
    if (const char* dir = std::getenv("LSTM_WORKBENCH_BASELINE_CACHE")) return dir;
    return (std::filesystem::path(corporaCacheDir()) / ".baselines").string();
}

std::optional<NgramBaseline> loadBaseline(const std::string& runDir) {
    const auto path = (std::filesystem::path(runDir) / runfiles::kBaseline).string();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    return NgramBaseline::fromJson(readFile(path), path);
}

}  // namespace wb
