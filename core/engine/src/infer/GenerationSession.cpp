// Generation in parts: the plan (checks and masks), the cursor over the model, free text and poems.
#include "infer/GenerationSession.h"

#include <algorithm>
#include <cmath>

#include "workbench/domain/Errors.h"
#include "workbench/domain/Utf8.h"

namespace wb {

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

std::int64_t requireToken(const Vocabulary& vocab, const std::string& token, const std::string& why) {
    if (!vocab.contains(token)) throw InputError("'" + token + "' is not in the model's vocabulary" + why);
    return vocab.id(token);
}

}  // namespace

GenerationPlan::GenerationPlan(const Vocabulary& vocab, const GenerateOptions& o) {
    if (o.samples < 1 || o.samples > 1000) throw InputError("samples must be between 1 and 1000");
    if (o.length < 0 || o.length > 100000) throw InputError("length must be between 0 and 100000");
    if (!(o.temperature >= 0) || !(o.topP > 0 && o.topP <= 1) || o.topK < 0)
        throw InputError("expected temperature >= 0, 0 < top-p <= 1 and top-k >= 0");
    for (const auto& t : vocab.tokenize(o.seedText)) seed.push_back(requireToken(vocab, t, " (seed text)"));
    for (const auto& t : tokenizeChars(o.acrostic)) acrostic.push_back(requireToken(vocab, t, " (acrostic)"));

    const auto v = static_cast<std::int64_t>(vocab.size());
    anyToken.assign(static_cast<std::size_t>(v), 1);
    anyToken[Vocabulary::kPad] = anyToken[Vocabulary::kUnk] = anyToken[Vocabulary::kBos] = 0;
    ideographs.assign(static_cast<std::size_t>(v), 0);
    ideographOf.assign(static_cast<std::size_t>(v), 0);
    std::int64_t ideographCount = 0;
    for (std::int64_t i = Vocabulary::kNumSpecial; i < v; ++i) {
        const auto cps = decodeUtf8(vocab.token(i), "vocabulary");
        if (cps.size() == 1 && isHanCharacter(cps[0])) {
            ideographs[static_cast<std::size_t>(i)] = 1, ++ideographCount;
            ideographOf[static_cast<std::size_t>(i)] = cps[0];
        }
    }
    resolvePoemForm(vocab, o, ideographCount);
    newline = vocab.contains("\n") ? vocab.id("\n") : -1;
    resolveMeter(o);
}

void GenerationPlan::resolvePoemForm(const Vocabulary& vocab, const GenerateOptions& o,
                                     std::int64_t ideographCount) {
    // A quatrain (jueju) has 4 lines, a regulated verse (lüshi) 8: two couplets or four, of 5 or 7
    // characters.
    lineChars = o.form == PoemForm::Quatrain5 || o.form == PoemForm::Regulated5   ? 5
                : o.form == PoemForm::Quatrain7 || o.form == PoemForm::Regulated7 ? 7
                                                                                  : 0;
    lines = o.form == PoemForm::Regulated5 || o.form == PoemForm::Regulated7 ? 8 : 4;
    if (!lineChars) return;
    if (vocab.level() != TokenLevel::Char) throw InputError("poem forms need a character-level model");
    comma = requireToken(vocab, "，", ": poem forms need a model trained on Chinese poems");
    stop = requireToken(vocab, "。", ": poem forms need a model trained on Chinese poems");
    if (ideographCount == 0) throw InputError("the model's vocabulary has no Chinese characters for a poem");
    if (acrostic.size() > static_cast<std::size_t>(lines))
        throw InputError("an acrostic poem of this form takes at most " + std::to_string(lines) +
                         " characters (one per line)");
    if (!acrostic.empty() && !seed.empty())
        throw InputError("give either a seed text or an acrostic for a poem");
    if (static_cast<int>(seed.size()) > lineChars)
        throw InputError("the seed text is longer than the first line (" + std::to_string(lineChars) +
                         " characters)");
    for (auto id : seed)
        if (!ideographs[static_cast<std::size_t>(id)])
            throw InputError("a poem's seed text must be Chinese characters");
    for (auto id : acrostic)
        if (!ideographs[static_cast<std::size_t>(id)])
            throw InputError("a poem's acrostic must be Chinese characters (one per line)");
}

// Strict meter: the patterns the poems may follow (those the seed fits).
void GenerationPlan::resolveMeter(const GenerateOptions& o) {
    if (o.meter != Meter::Strict) return;
    if (!lineChars)
        throw InputError(
            "strict meter is for poems: choose a form (quatrain5, quatrain7, regulated5 or regulated7)");
    if (!o.verse)
        throw InputError(
            "strict meter needs tone and rhyme tables for the run's corpus, and this machine has none: they "
            "come with any prepared Tang corpus (lstm-workbench-cli prepare tang-quatrains-7), and then "
            "serve "
            "every Chinese poem corpus");
    meter.emplace(*o.verse, ideographOf, lines, lineChars);
    std::u32string firstLine;
    for (auto id : seed) firstLine.push_back(ideographOf[static_cast<std::size_t>(id)]);
    if (static_cast<int>(firstLine.size()) == lineChars && o.verse->isKnownLine(encodeUtf8(firstLine)))
        throw InputError("strict meter writes no line of the corpus, and the seed text '" +
                         encodeUtf8(firstLine) + "' is one: shorten it or change a character");
    if (o.pattern != MeterPattern::Auto) {
        const std::string why = meter->whyNot(o.pattern, firstLine);
        if (!why.empty()) throw InputError("strict meter: " + why);
        patterns = {o.pattern};
        return;
    }
    std::string reasons;
    for (const MeterPattern p : kMeterPatterns) {
        const std::string why = meter->whyNot(p, firstLine);
        if (why.empty())
            patterns.push_back(p);
        else
            reasons += (reasons.empty() ? "" : "; ") + why;
    }
    if (patterns.empty())
        throw InputError("strict meter: the seed text fits no tonal pattern (" + reasons + ")");
}

ModelCursor::ModelCursor(SequenceModel& model, const HalfStepper* half,
                         const std::function<bool()>* cancelled)
    : m_model(&model), m_half(half), m_cancelled(cancelled) {
    if (m_half) m_halfState = m_half->initialState();
}

void ModelCursor::feed(std::int64_t id) {
    if (*m_cancelled && (*m_cancelled)()) throw Cancelled{};
    m_logits = torch::Tensor();
    if (m_half) {
        m_half->feed(id, m_halfState);
        return;
    }
    auto input = torch::tensor(std::vector<std::int64_t>{id}, torch::kInt64).view({1, -1});
    auto [hidden, next] = (*m_model)->hiddenStep(input, m_state);
    m_state = next;
    m_hidden = hidden[0][0];
}

const torch::Tensor& ModelCursor::logits() {
    if (!m_logits.defined())
        m_logits = (m_half ? m_half->logits(m_halfState) : (*m_model)->logitsOf(m_hidden))
                       .to(torch::kFloat32)
                       .contiguous();
    return m_logits;
}

double ModelCursor::logProbability(std::int64_t id) {
    const auto& l = logits();
    const float* x = l.data_ptr<float>();
    const float top = *std::max_element(x, x + l.numel());
    double sum = 0;
    for (std::int64_t i = 0; i < l.numel(); ++i) sum += std::exp(static_cast<double>(x[i] - top));
    return static_cast<double>(x[id] - top) - std::log(sum);
}

GenerationSession::GenerationSession(SequenceModel& model, const HalfStepper* half, const Vocabulary& vocab,
                                     const GenerateOptions& options)
    : m_model(model),
      m_half(options.fullPrecision ? nullptr : half),
      m_vocab(vocab),
      m_options(options),
      m_plan(vocab, options),
      m_rng(options.rngSeed ? options.rngSeed : std::random_device{}()) {}

std::vector<GeneratedText> GenerationSession::run() {
    torch::NoGradGuard noGrad;
    std::vector<GeneratedText> out;
    try {
        // Every sample starts as a new document would: after <eos>.
        ModelCursor primed(m_model, m_half, &m_options.cancelled);
        primed.feed(Vocabulary::kEos);
        primed.logits();  // every sample samples from it
        for (std::int64_t s = 0; s < m_options.samples; ++s)
            out.push_back(m_plan.lineChars ? poem(primed) : freeText(primed));
    } catch (const ModelCursor::Cancelled&) {
        // The samples finished so far are the answer; the one in progress is dropped.
    }
    return out;
}

void GenerationSession::feedFixed(ModelCursor& cursor, GeneratedText& sample, std::int64_t id) {
    sample.logProbability += cursor.logProbability(id);
    ++sample.tokens;
    cursor.feed(id);
}

// Free text: seed, then `length` tokens; <eos> ends the sample, or (unless stopAtDocumentEnd) is shown as a
// blank line while the model, fed it as in training, starts the next document. An acrostic starts each line.
GeneratedText GenerationSession::freeText(ModelCursor cursor) {
    GeneratedText sample;
    std::string text;  // the documents the model ended
    std::vector<std::int64_t> produced;
    const auto feed = [&](std::int64_t id) {
        produced.push_back(id);
        feedFixed(cursor, sample, id);
    };
    const auto& acrostic = m_plan.acrostic;
    for (auto id : m_plan.seed) feed(id);
    std::size_t nextAcrostic = 0;
    if (!acrostic.empty() && m_plan.seed.empty()) feed(acrostic[nextAcrostic++]);
    for (std::int64_t k = 0; k < m_options.length; ++k) {
        const auto id = sampleToken(cursor.logits(), m_plan.anyToken, m_options, m_rng);
        if (id == Vocabulary::kEos) {
            // The blank line is two of the sample's `length` tokens.
            if (m_options.stopAtDocumentEnd || k + 2 > m_options.length) break;
            feedFixed(cursor, sample, id);
            text += m_vocab.decode(produced) + "\n\n";  // the vocabulary may have no line break of its own
            produced.clear();
            ++k;
            continue;
        }
        feed(id);
        if (id == m_plan.newline && nextAcrostic < acrostic.size())
            feed(acrostic[nextAcrostic++]);
        else if (id == m_plan.newline && !acrostic.empty() && nextAcrostic >= acrostic.size())
            break;
    }
    sample.text = text + m_vocab.decode(produced);
    return sample;
}

GeneratedText GenerationSession::poem(ModelCursor cursor) {
    GeneratedText sample;
    PoemMeter::State meterState;
    if (m_plan.meter) {
        const auto& patterns = m_plan.patterns;
        sample.pattern = patterns.size() == 1 ? patterns[0] : patterns[m_rng() % patterns.size()];
        meterState = m_plan.meter->start(sample.pattern);
    }
    std::string text;
    for (int line = 0; line < m_plan.lines; ++line) poemLine(line, cursor, meterState, sample, text);
    sample.text = std::move(text);
    return sample;
}

void GenerationSession::poemLine(int line, ModelCursor& cursor, PoemMeter::State& meterState,
                                 GeneratedText& sample, std::string& text) {
    const int lineChars = m_plan.lineChars;
    const std::optional<PoemMeter>& meter = m_plan.meter;
    // A line is a depth-first search: a position with nothing left to choose (under strict meter, a line
    // that copies the corpus bans its last character) steps back one.
    struct Step {
        ModelCursor before;
        PoemMeter::State meterBefore;
        std::vector<std::int64_t> banned;  // tried after this prefix, and refused
        std::int64_t chosen = -1;
        double logProbability = 0;
    };
    std::vector<Step> steps(static_cast<std::size_t>(lineChars), Step{cursor, meterState, {}, -1, 0});
    int p = 0;
    const auto stepBack = [&] {
        if (p == 0)
            throw InputError("strict meter: no line " + std::to_string(line + 1) +
                             " fits the pattern without copying a line of the corpus");
        --p;
        auto& step = steps[static_cast<std::size_t>(p)];
        step.banned.push_back(step.chosen);
        cursor = step.before;
        meterState = step.meterBefore;
    };
    std::vector<char> mask;
    while (p < lineChars) {
        auto& step = steps[static_cast<std::size_t>(p)];
        std::int64_t forced = -1;
        if (p == 0 && static_cast<std::size_t>(line) < m_plan.acrostic.size())
            forced = m_plan.acrostic[static_cast<std::size_t>(line)];
        else if (line == 0 && static_cast<std::size_t>(p) < m_plan.seed.size())
            forced = m_plan.seed[static_cast<std::size_t>(p)];
        std::int64_t id = forced;
        if (forced < 0) {
            if (meter)
                meter->allowedTokens(meterState, line, p, mask);
            else
                mask = m_plan.ideographs;
            for (const auto b : step.banned) mask[static_cast<std::size_t>(b)] = 0;
            if (std::find(mask.begin(), mask.end(), 1) != mask.end())
                id = sampleToken(cursor.logits(), mask, m_options, m_rng);
        }
        if (id < 0 || std::find(step.banned.begin(), step.banned.end(), id) != step.banned.end()) {
            stepBack();
            continue;
        }
        step.chosen = id;
        step.logProbability = cursor.logProbability(id);
        if (meter) meter->choose(meterState, line, p, id);
        cursor.feed(id);
        if (++p < lineChars) {
            auto& next = steps[static_cast<std::size_t>(p)];
            next.before = cursor;
            next.meterBefore = meterState;
            next.banned.clear();
        } else if (meter) {
            std::string written;
            for (const auto& done : steps) written += m_vocab.token(done.chosen);
            if (m_options.verse->isKnownLine(written)) stepBack();
        }
    }
    for (const auto& done : steps) {
        text += m_vocab.token(done.chosen);
        sample.logProbability += done.logProbability;
        ++sample.tokens;
    }
    const auto mark = line % 2 == 0 ? m_plan.comma : m_plan.stop;
    text += m_vocab.token(mark);
    feedFixed(cursor, sample, mark);
    if (line < m_plan.lines - 1) text += '\n';
    // The corpus puts each couplet on a line of its own; show the model the same.
    if (line % 2 == 1 && line < m_plan.lines - 1 && m_plan.newline >= 0)
        feedFixed(cursor, sample, m_plan.newline);
}

}  // namespace wb
