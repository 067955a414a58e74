// The interpolated Kneser-Ney baseline (see KneserNey.h).
#include "baseline/KneserNey.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"

namespace wb {

namespace {
constexpr int kBitsPerToken = 24;
constexpr std::int64_t kTokenMask = (std::int64_t{1} << kBitsPerToken) - 1;

std::uint64_t fnv1a(std::uint64_t hash, const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) hash = (hash ^ p[i]) * 0x100000001b3ULL;
    return hash;
}
}  // namespace

void KneserNeyModel::Level::finish() {
    std::int64_t once = 0, twice = 0;
    for (const auto& [key, c] : counts) {
        auto& stats = contexts[key >> kBitsPerToken];
        stats.total += c;
        stats.types += 1;
        once += c == 1;
        twice += c == 2;
    }
    // Chen & Goodman's estimate of the best absolute discount; kept inside (0, 1) when the counts are too
    // few to say (every level must pass some mass down, and none may pass all of it).
    discount = once + 2 * twice > 0 ? static_cast<double>(once) / static_cast<double>(once + 2 * twice) : 0.5;
    discount = std::clamp(discount, 0.05, 0.95);
}

KneserNeyModel::KneserNeyModel(const std::vector<std::int64_t>& tokens, std::int64_t vocabulary, int order)
    : m_order(order), m_vocabulary(vocabulary) {
    if (order < 1 || order > kMaxOrder)
        throw InputError("n-gram baseline: the order must be from 1 to " + std::to_string(kMaxOrder));
    if (vocabulary < 1 || vocabulary > kTokenMask)
        throw InputError("n-gram baseline: the vocabulary must have from 1 to " + std::to_string(kTokenMask) +
                         " tokens");
    m_raw.resize(static_cast<std::size_t>(order));
    m_continuing.resize(static_cast<std::size_t>(order));
    const std::size_t n = tokens.size();
    for (std::size_t i = 0; i < n; ++i) {
        Key key = 0;
        for (int k = 1; k <= order && i + static_cast<std::size_t>(k) <= n; ++k) {
            const std::int64_t t = tokens[i + static_cast<std::size_t>(k) - 1];
            if (t < 0 || t >= vocabulary)
                throw InputError("n-gram baseline: token id " + std::to_string(t) +
                                 " outside the vocabulary");
            key = (key << kBitsPerToken) | static_cast<Key>(t);
            ++m_raw[static_cast<std::size_t>(k) - 1].counts[key];
        }
    }
    // Continuation counts of the k-grams: the distinct tokens seen before them, one per (k+1)-gram type.
    for (int k = 1; k < order; ++k) {
        const Key suffixMask = (Key{1} << (kBitsPerToken * k)) - 1;
        auto& continuing = m_continuing[static_cast<std::size_t>(k) - 1].counts;
        for (const auto& entry : m_raw[static_cast<std::size_t>(k)].counts)
            ++continuing[entry.first & suffixMask];
    }
    for (int k = 1; k <= order; ++k) {
        m_raw[static_cast<std::size_t>(k) - 1].finish();
        if (k < order) m_continuing[static_cast<std::size_t>(k) - 1].finish();
    }
}

double KneserNeyModel::probability(const std::int64_t* context, std::size_t contextLength, std::int64_t token,
                                   int maxOrder) const {
    const int top = std::min<int>(maxOrder > 0 ? std::min(maxOrder, m_order) : m_order,
                                  static_cast<int>(std::min<std::size_t>(contextLength, kMaxOrder)) + 1);
    double p = 1.0 / static_cast<double>(m_vocabulary);
    if (token < 0 || token >= m_vocabulary) return 0;
    for (int k = 1; k <= top; ++k) {
        const Level& level =
            k == top ? m_raw[static_cast<std::size_t>(k) - 1] : m_continuing[static_cast<std::size_t>(k) - 1];
        Key ctx = 0;
        for (std::size_t j = contextLength - static_cast<std::size_t>(k - 1); j < contextLength; ++j)
            ctx = (ctx << kBitsPerToken) | static_cast<Key>(context[j] & kTokenMask);
        const auto stats = level.contexts.find(ctx);
        // A context never seen at this order passes everything down: the lower order's estimate stands.
        if (stats == level.contexts.end() || stats->second.total == 0) continue;
        const auto found = level.counts.find((ctx << kBitsPerToken) | static_cast<Key>(token));
        const double count = found == level.counts.end() ? 0.0 : static_cast<double>(found->second);
        const double total = static_cast<double>(stats->second.total);
        p = std::max(count - level.discount, 0.0) / total +
            level.discount * static_cast<double>(stats->second.types) / total * p;
    }
    return p;
}

NgramBaseline scoreBaseline(const KneserNeyModel& model, const std::vector<std::int64_t>& validation,
                            std::int64_t seqLen, std::int64_t windowStride) {
    const std::int64_t step = windowStride > 0 ? windowStride : seqLen;
    NgramBaseline b;
    b.order = model.order();
    b.vocabulary = model.vocabulary();
    const auto n = static_cast<std::int64_t>(validation.size());
    std::vector<double> bits(static_cast<std::size_t>(model.order()), 0.0);
    for (std::int64_t start = 0; seqLen > 0 && start + seqLen + 1 <= n; start += step) {
        for (std::int64_t j = 1; j <= seqLen; ++j) {
            const std::int64_t* window = validation.data() + start;
            for (int o = 1; o <= model.order(); ++o)
                bits[static_cast<std::size_t>(o) - 1] -=
                    std::log2(model.probability(window, static_cast<std::size_t>(j), window[j], o));
        }
        b.validationTargets += seqLen;
    }
    for (auto& total : bits)
        b.bitsPerTokenByOrder.push_back(b.validationTargets > 0 ? total / b.validationTargets : 0);
    b.bitsPerToken = b.bitsPerTokenByOrder.back();
    return b;
}

NgramBaseline computeBaseline(const std::vector<std::int64_t>& train,
                              const std::vector<std::int64_t>& validation, std::int64_t vocabulary,
                              std::int64_t seqLen, const std::string& cacheDir, int order,
                              std::int64_t windowStride) {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    const std::int64_t header[] = {vocabulary, seqLen, order, static_cast<std::int64_t>(train.size()),
                                   static_cast<std::int64_t>(validation.size())};
    hash = fnv1a(hash, header, sizeof header);
    // A sample's windows (one after another) read differently from the split's stream of the same length.
    if (windowStride > 0 && windowStride != seqLen) hash = fnv1a(hash, &windowStride, sizeof windowStride);
    hash = fnv1a(hash, train.data(), train.size() * sizeof(std::int64_t));
    hash = fnv1a(hash, validation.data(), validation.size() * sizeof(std::int64_t));
    char name[40];
    std::snprintf(name, sizeof name, "kn%d-%016llx.json", order, static_cast<unsigned long long>(hash));
    const auto path = cacheDir.empty() ? std::filesystem::path() : std::filesystem::path(cacheDir) / name;
    std::error_code ec;
    if (!path.empty() && std::filesystem::exists(path, ec)) {
        try {
            auto b = NgramBaseline::fromJson(readFile(path.string()), path.string());
            b.cached = true;
            return b;
        } catch (const InputError&) {
            // A damaged cache entry is recomputed and replaced below.
        }
    }
    const auto t0 = std::chrono::steady_clock::now();
    const KneserNeyModel model(train, vocabulary, order);
    NgramBaseline b = scoreBaseline(model, validation, seqLen, windowStride);
    b.trainTokens = static_cast<std::int64_t>(train.size());
    b.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!path.empty()) {
        try {
            std::filesystem::create_directories(path.parent_path());
            writeFileAtomic(path.string(), b.toJson());
        } catch (const std::exception&) {
            // The cache only saves time: a read-only or full disk must not stop a run.
        }
    }
    return b;
}

}  // namespace wb
