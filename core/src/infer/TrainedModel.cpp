// Generation and classification with a trained run (see Inference.h). Generation carries the LSTM state
// from step to step: each new token costs one single-step forward, the prefix is never run again.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <optional>
#include <random>

#include "infer/HalfStepper.h"
#include "io/Safetensors.h"
#include "io/TensorIO.h"
#include "model/SequenceModel.h"
#include "train/RunState.h"
#include "train/TrainingStep.h"
#include "workbench/Errors.h"
#include "workbench/Inference.h"
#include "workbench/Meter.h"
#include "workbench/RunFolder.h"
#include "workbench/Utf8.h"

namespace fs = std::filesystem;

namespace wb {

std::string toString(PoemForm f) {
    switch (f) {
        case PoemForm::Free:
            return "free";
        case PoemForm::Quatrain5:
            return "quatrain5";
        case PoemForm::Quatrain7:
            return "quatrain7";
        case PoemForm::Regulated5:
            return "regulated5";
        case PoemForm::Regulated7:
            return "regulated7";
    }
    return "free";
}

PoemForm poemFormFromString(const std::string& s) {
    if (s == "free") return PoemForm::Free;
    if (s == "quatrain5") return PoemForm::Quatrain5;
    if (s == "quatrain7") return PoemForm::Quatrain7;
    if (s == "regulated5") return PoemForm::Regulated5;
    if (s == "regulated7") return PoemForm::Regulated7;
    throw InputError("form '" + s + "': expected free, quatrain5, quatrain7, regulated5 or regulated7");
}

std::string toString(Meter m) { return m == Meter::Strict ? "strict" : "free"; }

Meter meterFromString(const std::string& s) {
    if (s == "free") return Meter::Free;
    if (s == "strict") return Meter::Strict;
    throw InputError("meter '" + s + "': expected free or strict");
}

std::vector<std::string> textsOf(const std::vector<GeneratedText>& samples) {
    std::vector<std::string> out;
    for (const auto& s : samples) out.push_back(s.text);
    return out;
}

double GeneratedText::bitsPerToken() const {
    return tokens > 0 ? -logProbability / std::log(2.0) / static_cast<double>(tokens) : 0.0;
}

struct TrainedModel::Impl {
    ExperimentConfig config;
    Vocabulary vocabulary;
    std::vector<std::string> classes;
    SequenceModel model{nullptr};
    std::unique_ptr<HalfStepper> halfStepper;  // generation's fast CPU path (null: not applicable)
};

TrainedModel::TrainedModel() : m(std::make_unique<Impl>()) {}
TrainedModel::~TrainedModel() = default;
const ExperimentConfig& TrainedModel::config() const { return m->config; }
const Vocabulary& TrainedModel::vocabulary() const { return m->vocabulary; }
const std::vector<std::string>& TrainedModel::classes() const { return m->classes; }

std::unique_ptr<TrainedModel> TrainedModel::load(const std::string& runDir, Checkpoint checkpoint) {
    const fs::path dir(runDir);
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw InputError(runDir, 0, "not a run folder (no such folder)");
    std::unique_ptr<TrainedModel> tm(new TrainedModel());
    auto& m = *tm->m;
    const auto configPath = (dir / runfiles::kConfig).string();
    m.config = ExperimentConfig::fromJson(readFile(configPath), configPath);
    m.vocabulary = readVocabularyFile((dir / runfiles::kVocab).string(), &m.classes);
    const bool best = checkpoint == Checkpoint::Best;
    const auto modelPath = (dir / (best ? runfiles::kBestModel : runfiles::kModel)).string();
    if (!fs::exists(modelPath, ec))
        throw InputError(modelPath, 0,
                         best
                             ? "missing: this run has no best checkpoint (never validated, or trained before "
                               "best checkpoints were kept); use the last one"
                             : "missing: this run has no saved weights yet");
    const auto file = safetensors::read(modelPath);
    const auto vocab = static_cast<std::int64_t>(m.vocabulary.size());
    std::int64_t outputs = vocab;
    if (m.config.task == Task::Classifier) {
        if (m.classes.size() < 2)
            throw InputError((dir / runfiles::kVocab).string(), 0,
                             "a classifier run needs at least two classes");
        outputs = static_cast<std::int64_t>(m.classes.size());
    }
    // Shapes come from the config and vocabulary; a file that disagrees is rejected before any copy.
    for (const auto& problem : m.config.validate()) throw InputError(configPath, 0, problem);
    torch::NoGradGuard noGrad;
    m.model = SequenceModel(m.config.task, m.config.model, vocab, outputs);
    loadInto(file, namedParameters(m.model), modelPath);
    m.model->eval();
    m.halfStepper = HalfStepper::create(*m.model);
    return tm;
}

namespace {

// Picks a token from logits restricted to `allowed` (empty = all), with temperature, top-k and top-p.
// Only top-k and top-p need the candidates in order, and only top-k's first k of them.
std::int64_t sampleToken(const torch::Tensor& logits, const std::vector<char>& allowed,
                         const GenerateOptions& o, std::mt19937_64& rng) {
    const float* v = logits.data_ptr<float>();  // fp32, contiguous
    const auto n = logits.numel();
    std::vector<std::int64_t> ids;
    ids.reserve(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
        if (allowed[static_cast<std::size_t>(i)]) ids.push_back(i);
    if (ids.empty()) throw InputError("no token of the vocabulary fits here");
    const auto higher = [&](auto a, auto b) { return v[a] > v[b]; };
    const auto best = *std::min_element(ids.begin(), ids.end(), higher);
    if (o.temperature <= 0) return best;
    if (o.topK > 0 && static_cast<std::size_t>(o.topK) < ids.size()) {
        std::partial_sort(ids.begin(), ids.begin() + o.topK, ids.end(), higher);
        ids.resize(static_cast<std::size_t>(o.topK));
    } else if (o.topP < 1.0) {
        std::sort(ids.begin(), ids.end(), higher);
    }
    std::vector<double> p(ids.size());
    const double top = v[best];
    double sum = 0;
    for (std::size_t k = 0; k < ids.size(); ++k) sum += p[k] = std::exp((v[ids[k]] - top) / o.temperature);
    if (o.topP < 1.0) {
        double cumulative = 0;
        std::size_t keep = 0;
        while (keep < ids.size() && cumulative < o.topP * sum) cumulative += p[keep++];
        keep = std::max<std::size_t>(keep, 1);
        ids.resize(keep);
        p.resize(keep);
        sum = cumulative;
    }
    // Inverse-CDF draw over the kept candidates.
    double u = std::uniform_real_distribution<double>(0.0, sum)(rng);
    for (std::size_t k = 0; k < ids.size(); ++k) {
        if (u < p[k]) return ids[k];
        u -= p[k];
    }
    return ids.back();
}

}  // namespace

std::vector<GeneratedText> TrainedModel::generate(const GenerateOptions& o) const {
    if (m->config.task != Task::LanguageModel)
        throw InputError("this run is a classifier: it classifies text, it does not generate");
    if (o.samples < 1 || o.samples > 1000) throw InputError("samples must be between 1 and 1000");
    if (o.length < 0 || o.length > 100000) throw InputError("length must be between 0 and 100000");
    if (!(o.temperature >= 0) || !(o.topP > 0 && o.topP <= 1) || o.topK < 0)
        throw InputError("expected temperature >= 0, 0 < top-p <= 1 and top-k >= 0");
    const auto& vocab = m->vocabulary;
    const auto v = static_cast<std::int64_t>(vocab.size());
    auto requireToken = [&](const std::string& token, const std::string& why) {
        if (!vocab.contains(token))
            throw InputError("'" + token + "' is not in the model's vocabulary" + why);
        return vocab.id(token);
    };

    std::vector<std::int64_t> seedIds;
    for (const auto& t : vocab.tokenize(o.seedText)) seedIds.push_back(requireToken(t, " (seed text)"));
    std::vector<std::int64_t> acrostic;
    for (const auto& t : tokenizeChars(o.acrostic)) acrostic.push_back(requireToken(t, " (acrostic)"));

    // Which tokens may be sampled at all: never <pad>, <unk> or <bos>.
    std::vector<char> anyToken(static_cast<std::size_t>(v), 1);
    anyToken[Vocabulary::kPad] = anyToken[Vocabulary::kUnk] = anyToken[Vocabulary::kBos] = 0;
    std::vector<char> ideographs(static_cast<std::size_t>(v), 0);
    std::vector<char32_t> ideographOf(static_cast<std::size_t>(v), 0);  // the character, 0 if not one
    std::int64_t ideographCount = 0;
    for (std::int64_t i = Vocabulary::kNumSpecial; i < v; ++i) {
        const auto cps = decodeUtf8(vocab.token(i), "vocabulary");
        if (cps.size() == 1 && isHanCharacter(cps[0])) {
            ideographs[static_cast<std::size_t>(i)] = 1, ++ideographCount;
            ideographOf[static_cast<std::size_t>(i)] = cps[0];
        }
    }

    // A quatrain (jueju) has 4 lines, a regulated verse (lüshi) 8: two couplets or four, of 5 or 7
    // characters.
    const int lineChars = o.form == PoemForm::Quatrain5 || o.form == PoemForm::Regulated5   ? 5
                          : o.form == PoemForm::Quatrain7 || o.form == PoemForm::Regulated7 ? 7
                                                                                            : 0;
    const int lines = o.form == PoemForm::Regulated5 || o.form == PoemForm::Regulated7 ? 8 : 4;
    std::int64_t comma = -1, stop = -1;
    if (lineChars) {
        if (vocab.level() != TokenLevel::Char) throw InputError("poem forms need a character-level model");
        comma = requireToken("，", ": poem forms need a model trained on Chinese poems");
        stop = requireToken("。", ": poem forms need a model trained on Chinese poems");
        if (ideographCount == 0)
            throw InputError("the model's vocabulary has no Chinese characters for a poem");
        if (acrostic.size() > static_cast<std::size_t>(lines))
            throw InputError("an acrostic poem of this form takes at most " + std::to_string(lines) +
                             " characters (one per line)");
        if (!acrostic.empty() && !seedIds.empty())
            throw InputError("give either a seed text or an acrostic for a poem");
        if (static_cast<int>(seedIds.size()) > lineChars)
            throw InputError("the seed text is longer than the first line (" + std::to_string(lineChars) +
                             " characters)");
        for (auto id : seedIds)
            if (!ideographs[static_cast<std::size_t>(id)])
                throw InputError("a poem's seed text must be Chinese characters");
        for (auto id : acrostic)
            if (!ideographs[static_cast<std::size_t>(id)])
                throw InputError("a poem's acrostic must be Chinese characters (one per line)");
    }
    const std::int64_t newline = vocab.contains("\n") ? vocab.id("\n") : -1;

    // Strict meter: the patterns the poems may follow (those the seed fits).
    std::optional<PoemMeter> meter;
    std::vector<MeterPattern> patterns;
    if (o.meter == Meter::Strict) {
        if (!lineChars)
            throw InputError(
                "strict meter is for poems: choose a form (quatrain5, quatrain7, regulated5 or "
                "regulated7)");
        if (!o.verse)
            throw InputError(
                "strict meter needs the tone and rhyme tables of the run's corpus (tones.json "
                "and rhymes.json beside it): prepare the corpus with datasets/prepare.py");
        meter.emplace(*o.verse, ideographOf, lines, lineChars);
        std::u32string seed;
        for (auto id : seedIds) seed.push_back(ideographOf[static_cast<std::size_t>(id)]);
        if (static_cast<int>(seed.size()) == lineChars && o.verse->isKnownLine(encodeUtf8(seed)))
            throw InputError("strict meter writes no line of the corpus, and the seed text '" +
                             encodeUtf8(seed) + "' is one: shorten it or change a character");
        if (o.pattern != MeterPattern::Auto) {
            const std::string why = meter->whyNot(o.pattern, seed);
            if (!why.empty()) throw InputError("strict meter: " + why);
            patterns = {o.pattern};
        } else {
            std::string reasons;
            for (const MeterPattern p : kMeterPatterns) {
                const std::string why = meter->whyNot(p, seed);
                if (why.empty())
                    patterns.push_back(p);
                else
                    reasons += (reasons.empty() ? "" : "; ") + why;
            }
            if (patterns.empty())
                throw InputError("strict meter: the seed text fits no tonal pattern (" + reasons + ")");
        }
    }

    torch::NoGradGuard noGrad;
    std::mt19937_64 rng(o.rngSeed ? o.rngSeed : std::random_device{}());
    struct Cancelled {};
    // Feeding a token runs the LSTM only; the head (for a poems model a third of the weights read per
    // token) runs when a token is sampled or scored.
    const HalfStepper* half = o.fullPrecision ? nullptr : m->halfStepper.get();
    struct Cursor {                      // the model after the tokens fed so far
        std::optional<LstmState> state;  // LibTorch path
        HalfStepper::State halfState;    // fp16 path
        torch::Tensor hidden, logits;    // logits: computed on first use
    };
    auto feedTo = [&](Cursor& cur, std::int64_t id) {
        if (o.cancelled && o.cancelled()) throw Cancelled{};
        cur.logits = torch::Tensor();
        if (half) {
            half->feed(id, cur.halfState);
            return;
        }
        auto input = torch::tensor(std::vector<std::int64_t>{id}, torch::kInt64).view({1, -1});
        auto [hidden, next] = m->model->hiddenStep(input, cur.state);
        cur.state = next;
        cur.hidden = hidden[0][0];
    };
    auto logitsOf = [&](Cursor& cur) -> const torch::Tensor& {
        if (!cur.logits.defined())
            cur.logits = (half ? half->logits(cur.halfState) : m->model->logitsOf(cur.hidden))
                             .to(torch::kFloat32)
                             .contiguous();
        return cur.logits;
    };
    // log p(id | what was fed), at temperature 1 over the whole vocabulary.
    auto logProbabilityOf = [&](Cursor& cur, std::int64_t id) {
        const auto& logits = logitsOf(cur);
        const float* x = logits.data_ptr<float>();
        const float top = *std::max_element(x, x + logits.numel());
        double sum = 0;
        for (std::int64_t i = 0; i < logits.numel(); ++i) sum += std::exp(static_cast<double>(x[i] - top));
        return static_cast<double>(x[id] - top) - std::log(sum);
    };
    std::vector<GeneratedText> out;
    try {
        // Every sample starts as a new document would: after <eos>.
        Cursor primed;
        if (half) primed.halfState = half->initialState();
        feedTo(primed, Vocabulary::kEos);
        logitsOf(primed);  // every sample samples from it

        for (std::int64_t s = 0; s < o.samples; ++s) {
            Cursor cur = primed;
            GeneratedText sample;
            std::vector<std::int64_t> produced;
            auto feed = [&](std::int64_t id, bool keep) {
                sample.logProbability += logProbabilityOf(cur, id);
                ++sample.tokens;
                if (keep) produced.push_back(id);
                feedTo(cur, id);
            };
            if (lineChars) {
                PoemMeter::State meterState;
                if (meter) {
                    sample.pattern = patterns.size() == 1 ? patterns[0] : patterns[rng() % patterns.size()];
                    meterState = meter->start(sample.pattern);
                }
                std::string poem;
                std::vector<char> mask;
                for (int line = 0; line < lines; ++line) {
                    // A line is a depth-first search: a position with nothing left to choose (under strict
                    // meter, a line that copies the corpus bans its last character) steps back one.
                    struct Step {
                        Cursor before;
                        PoemMeter::State meterBefore;
                        std::vector<std::int64_t> banned;  // tried after this prefix, and refused
                        std::int64_t chosen = -1;
                        double logProbability = 0;
                    };
                    std::vector<Step> steps(static_cast<std::size_t>(lineChars));
                    int p = 0;
                    steps[0].before = cur;
                    steps[0].meterBefore = meterState;
                    auto stepBack = [&] {
                        if (p == 0)
                            throw InputError("strict meter: no line " + std::to_string(line + 1) +
                                             " fits the pattern without copying a line of the corpus");
                        --p;
                        auto& step = steps[static_cast<std::size_t>(p)];
                        step.banned.push_back(step.chosen);
                        cur = step.before;
                        meterState = step.meterBefore;
                    };
                    while (p < lineChars) {
                        auto& step = steps[static_cast<std::size_t>(p)];
                        std::int64_t forced = -1;
                        if (p == 0 && static_cast<std::size_t>(line) < acrostic.size())
                            forced = acrostic[static_cast<std::size_t>(line)];
                        else if (line == 0 && static_cast<std::size_t>(p) < seedIds.size())
                            forced = seedIds[static_cast<std::size_t>(p)];
                        std::int64_t id = -1;
                        if (forced >= 0) {
                            id = forced;
                        } else {
                            if (meter)
                                meter->allowedTokens(meterState, line, p, mask);
                            else
                                mask = ideographs;
                            for (const auto b : step.banned) mask[static_cast<std::size_t>(b)] = 0;
                            if (std::find(mask.begin(), mask.end(), 1) != mask.end())
                                id = sampleToken(logitsOf(cur), mask, o, rng);
                        }
                        if (id < 0 ||
                            std::find(step.banned.begin(), step.banned.end(), id) != step.banned.end()) {
                            stepBack();
                            continue;
                        }
                        step.chosen = id;
                        step.logProbability = logProbabilityOf(cur, id);
                        if (meter) meter->choose(meterState, line, p, id);
                        feedTo(cur, id);
                        if (++p < lineChars) {
                            auto& next = steps[static_cast<std::size_t>(p)];
                            next.before = cur;
                            next.meterBefore = meterState;
                            next.banned.clear();
                        } else if (meter) {
                            std::string text;
                            for (const auto& done : steps) text += vocab.token(done.chosen);
                            if (o.verse->isKnownLine(text)) stepBack();
                        }
                    }
                    for (const auto& done : steps) {
                        poem += vocab.token(done.chosen);
                        sample.logProbability += done.logProbability;
                        ++sample.tokens;
                    }
                    const auto mark = line % 2 == 0 ? comma : stop;
                    poem += vocab.token(mark);
                    feed(mark, false);
                    if (line < lines - 1) poem += '\n';
                    // The corpus puts each couplet on a line of its own; show the model the same.
                    if (line % 2 == 1 && line < lines - 1 && newline >= 0) feed(newline, false);
                }
                sample.text = std::move(poem);
                out.push_back(std::move(sample));
                continue;
            }
            // Free text: seed, then up to `length` tokens; <eos> ends the sample. An acrostic starts each
            // line.
            for (auto id : seedIds) feed(id, true);
            std::size_t nextAcrostic = 0;
            if (!acrostic.empty() && seedIds.empty()) feed(acrostic[nextAcrostic++], true);
            for (std::int64_t k = 0; k < o.length; ++k) {
                const auto id = sampleToken(logitsOf(cur), anyToken, o, rng);
                if (id == Vocabulary::kEos) break;
                feed(id, true);
                if (id == newline && nextAcrostic < acrostic.size())
                    feed(acrostic[nextAcrostic++], true);
                else if (id == newline && !acrostic.empty() && nextAcrostic >= acrostic.size())
                    break;
            }
            sample.text = vocab.decode(produced);
            out.push_back(std::move(sample));
        }
    } catch (const Cancelled&) {
        // The samples finished so far are the answer; the one in progress is dropped.
    }
    return out;
}

Classification TrainedModel::classify(const std::string& text, std::int64_t topK, bool explain) const {
    if (m->config.task != Task::Classifier)
        throw InputError("this run is a language model: it generates text, it does not classify");
    const auto& vocab = m->vocabulary;
    auto tokens = vocab.tokenize(text);
    const auto maxLen = m->config.data.seqLen;
    if (static_cast<std::int64_t>(tokens.size()) > maxLen) tokens.resize(static_cast<std::size_t>(maxLen));
    std::vector<std::int64_t> ids;
    for (const auto& t : tokens) ids.push_back(vocab.id(t));
    if (ids.empty()) ids.push_back(Vocabulary::kUnk);
    const auto len = static_cast<std::int64_t>(ids.size());

    torch::NoGradGuard noGrad;
    auto input = torch::tensor(ids, torch::kInt64).view({1, len});
    auto probs = torch::softmax(m->model->forward(input, torch::full({1}, len, torch::kInt64)), 1)[0].to(
        torch::kFloat64);
    const auto c = probs.size(0);
    std::vector<std::int64_t> order(static_cast<std::size_t>(c));
    std::iota(order.begin(), order.end(), 0);
    auto p = probs.accessor<double, 1>();
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return p[a] > p[b]; });
    Classification result;
    result.predicted = m->classes[static_cast<std::size_t>(order[0])];
    const auto k = topK > 0 ? std::min<std::int64_t>(topK, c) : c;
    for (std::int64_t i = 0; i < k; ++i)
        result.top.push_back({m->classes[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])],
                              p[order[static_cast<std::size_t>(i)]]});

    if (explain && !tokens.empty()) {
        // Occlusion: replace one token at a time with <unk>, all variants in one batch; a token's score is
        // how much the predicted class's probability drops without it.
        auto variants = input.repeat({len, 1});
        variants.diagonal().fill_(Vocabulary::kUnk);
        auto occluded = torch::softmax(m->model->forward(variants, torch::full({len}, len, torch::kInt64)), 1)
                            .select(1, order[0])
                            .to(torch::kFloat64);
        auto q = occluded.accessor<double, 1>();
        for (std::int64_t i = 0; i < len; ++i)
            result.attributions.push_back({tokens[static_cast<std::size_t>(i)], p[order[0]] - q[i]});
    }
    return result;
}

double TrainedModel::logProbability(const std::string& text, std::int64_t* tokens) const {
    if (m->config.task != Task::LanguageModel)
        throw InputError("this run is a classifier: it does not score text as a language model");
    std::vector<std::int64_t> ids{Vocabulary::kEos};
    for (const auto& t : m->vocabulary.tokenize(text)) ids.push_back(m->vocabulary.id(t));
    if (tokens) *tokens = static_cast<std::int64_t>(ids.size()) - 1;
    if (ids.size() < 2) return 0.0;
    torch::NoGradGuard noGrad;
    const auto n = static_cast<std::int64_t>(ids.size());
    const auto input = torch::tensor(ids, torch::kInt64).view({1, n});
    const auto logp = torch::log_softmax(m->model->forward(input)[0].to(torch::kFloat64), 1);  // [n, V]
    const auto next = input[0].slice(0, 1).unsqueeze(1);                                       // [n-1, 1]
    return logp.slice(0, 0, n - 1).gather(1, next).sum().item<double>();
}

std::string TrainedModel::generationPrecision() const {
    if (!m->halfStepper) return "fp32";
    return m->halfStepper->bf16() ? "bf16" : "fp16";
}

}  // namespace wb
