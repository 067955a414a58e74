// ExperimentConfig as JSON (config.json, snake_case keys), its validation with messages a user can act on,
// the per-task defaults and the docs/performance.md reference presets.
#include "workbench/Config.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include <nlohmann/json.hpp>

#include "corpus/JsonDocument.h"
#include "workbench/Errors.h"

namespace wb {
namespace {

using nlohmann::json;

std::string toString(LstmBackend v) {
    switch (v) {
        case LstmBackend::Torch:
            return "torch";
        case LstmBackend::Fused:
            return "fused";
        default:
            return "auto";
    }
}

// Reads the fields of one JSON section, keeping defaults for missing keys and naming the key
// ("data.seq_len") in every type error.
class SectionReader {
public:
    SectionReader(const json& parent, const char* section, const std::string& source)
        : m_source(source), m_prefix(section ? std::string(section) + "." : std::string()) {
        if (!section) {
            m_obj = &parent;
            return;
        }
        const auto it = parent.find(section);
        if (it == parent.end() || it->is_null()) return;
        if (!it->is_object()) fail(section, "expected an object");
        m_obj = &*it;
    }

    void integer(const char* key, std::int64_t& out) const {
        if (const json* v = find(key)) {
            if (v->is_number_integer()) {
                if (v->is_number_unsigned() && v->get<std::uint64_t>() > std::uint64_t(INT64_MAX))
                    fail(m_prefix + key, "integer out of range");
                out = v->get<std::int64_t>();
            } else if (v->is_number_float() && std::isfinite(v->get<double>()) &&
                       v->get<double>() == std::floor(v->get<double>()) &&
                       std::fabs(v->get<double>()) < 9e15) {
                out = static_cast<std::int64_t>(v->get<double>());  // 64.0 written by another tool
            } else {
                fail(m_prefix + key, "expected an integer");
            }
        }
    }
    void unsignedInteger(const char* key, std::uint64_t& out) const {
        if (const json* v = find(key)) {
            if (v->is_number_unsigned())
                out = v->get<std::uint64_t>();
            else if (v->is_number_integer() && v->get<std::int64_t>() >= 0)
                out = static_cast<std::uint64_t>(v->get<std::int64_t>());
            else
                fail(m_prefix + key, "expected a non-negative integer");
        }
    }
    void number(const char* key, double& out) const {
        if (const json* v = find(key)) {
            if (!v->is_number()) fail(m_prefix + key, "expected a number");
            out = v->get<double>();
        }
    }
    void boolean(const char* key, bool& out) const {
        if (const json* v = find(key)) {
            if (!v->is_boolean()) fail(m_prefix + key, "expected true or false");
            out = v->get<bool>();
        }
    }
    void string(const char* key, std::string& out) const {
        if (const json* v = find(key)) {
            if (!v->is_string()) fail(m_prefix + key, "expected a string");
            out = v->get<std::string>();
        }
    }
    // Enums go through their *FromString function; its message lists the accepted values.
    template <typename T, typename Parse>
    void enumeration(const char* key, T& out, Parse parse) const {
        std::string s;
        if (!find(key)) return;
        string(key, s);
        try {
            out = parse(s);
        } catch (const InputError& e) {
            fail(m_prefix + key, e.reason());
        }
    }

private:
    const json* find(const char* key) const {
        if (!m_obj) return nullptr;
        const auto it = m_obj->find(key);
        return it == m_obj->end() || it->is_null() ? nullptr : &*it;
    }
    [[noreturn]] void fail(const std::string& key, const std::string& why) const {
        throw InputError(m_source, 0, key + ": " + why);
    }
    const json* m_obj = nullptr;
    std::string m_source;
    std::string m_prefix;
};

LstmBackend backendFromString(const std::string& s) {
    if (s == "auto") return LstmBackend::Auto;
    if (s == "torch") return LstmBackend::Torch;
    if (s == "fused") return LstmBackend::Fused;
    throw InputError("unknown LSTM backend '" + s + "' (expected auto, torch or fused)");
}

}  // namespace

std::string toString(Task v) { return v == Task::Classifier ? "classify" : "lm"; }
std::string toString(Pooling v) { return v == Pooling::Mean ? "mean" : v == Pooling::Max ? "max" : "last"; }
std::string toString(OptimizerKind v) {
    return v == OptimizerKind::Sgd ? "sgd" : v == OptimizerKind::RmsProp ? "rmsprop" : "adam";
}
std::string toString(Precision v) {
    return v == Precision::Bf16 ? "bf16" : v == Precision::Fp16 ? "fp16" : "fp32";
}

Task taskFromString(const std::string& s) {
    if (s == "lm") return Task::LanguageModel;
    if (s == "classify") return Task::Classifier;
    throw InputError("unknown task '" + s + "' (expected lm or classify)");
}
Pooling poolingFromString(const std::string& s) {
    if (s == "last") return Pooling::Last;
    if (s == "mean") return Pooling::Mean;
    if (s == "max") return Pooling::Max;
    throw InputError("unknown pooling '" + s + "' (expected last, mean or max)");
}
OptimizerKind optimizerFromString(const std::string& s) {
    if (s == "adam") return OptimizerKind::Adam;
    if (s == "sgd") return OptimizerKind::Sgd;
    if (s == "rmsprop") return OptimizerKind::RmsProp;
    throw InputError("unknown optimizer '" + s + "' (expected adam, sgd or rmsprop)");
}
Precision precisionFromString(const std::string& s) {
    if (s == "fp32") return Precision::Fp32;
    if (s == "bf16") return Precision::Bf16;
    if (s == "fp16") return Precision::Fp16;
    throw InputError("unknown precision '" + s + "' (expected fp32, bf16 or fp16)");
}

std::string ExperimentConfig::toJson() const {
    json j = json::object();
    j["name"] = name;
    j["task"] = wb::toString(task);
    j["data"] = {{"corpus", data.corpus},
                 {"format", wb::toString(data.format)},
                 {"tokens", wb::toString(data.tokens)},
                 {"vocab_size", data.vocabSize},
                 {"min_count", data.minCount},
                 {"seq_len", data.seqLen},
                 {"stride", data.stride},
                 {"val_fraction", data.valFraction}};
    j["model"] = {{"embedding", model.embedding},
                  {"hidden", model.hidden},
                  {"layers", model.layers},
                  {"bidirectional", model.bidirectional},
                  {"dropout", model.dropout},
                  {"pooling", wb::toString(model.pooling)},
                  {"backend", toString(model.backend)}};
    j["train"] = {{"batch_size", train.batchSize},
                  {"learning_rate", train.learningRate},
                  {"optimizer", wb::toString(train.optimizer)},
                  {"epochs", train.epochs},
                  {"max_steps", train.maxSteps},
                  {"grad_clip", train.gradClip},
                  {"validate_every", train.validateEvery},
                  {"early_stop_patience", train.earlyStopPatience},
                  {"seed", train.seed},
                  {"warmup_steps", train.warmupSteps},
                  {"log_every", train.logEvery}};
    j["device"] = {{"device", device.device},
                   {"threads", device.threads},
                   {"precision", wb::toString(device.precision)},
                   {"processes", device.processes}};
    return j.dump(2) + "\n";
}

ExperimentConfig ExperimentConfig::fromJson(const std::string& text, const std::string& sourceName) {
    const json j = detail::parseJsonDocument(text, sourceName);
    if (!j.is_object())
        throw InputError(sourceName, 0,
                         "expected a JSON object (an experiment config), found " + detail::jsonTypeName(j));
    ExperimentConfig c;
    const SectionReader top(j, nullptr, sourceName);
    top.string("name", c.name);
    top.enumeration("task", c.task, taskFromString);

    const SectionReader d(j, "data", sourceName);
    d.string("corpus", c.data.corpus);
    d.enumeration("format", c.data.format, corpusFormatFromString);
    d.enumeration("tokens", c.data.tokens, tokenLevelFromString);
    d.integer("vocab_size", c.data.vocabSize);
    d.integer("min_count", c.data.minCount);
    d.integer("seq_len", c.data.seqLen);
    d.integer("stride", c.data.stride);
    d.number("val_fraction", c.data.valFraction);

    const SectionReader m(j, "model", sourceName);
    m.integer("embedding", c.model.embedding);
    m.integer("hidden", c.model.hidden);
    m.integer("layers", c.model.layers);
    m.boolean("bidirectional", c.model.bidirectional);
    m.number("dropout", c.model.dropout);
    m.enumeration("pooling", c.model.pooling, poolingFromString);
    m.enumeration("backend", c.model.backend, backendFromString);

    const SectionReader t(j, "train", sourceName);
    t.integer("batch_size", c.train.batchSize);
    t.number("learning_rate", c.train.learningRate);
    t.enumeration("optimizer", c.train.optimizer, optimizerFromString);
    t.integer("epochs", c.train.epochs);
    t.integer("max_steps", c.train.maxSteps);
    t.number("grad_clip", c.train.gradClip);
    t.integer("validate_every", c.train.validateEvery);
    t.integer("early_stop_patience", c.train.earlyStopPatience);
    t.unsignedInteger("seed", c.train.seed);
    t.integer("warmup_steps", c.train.warmupSteps);
    t.integer("log_every", c.train.logEvery);

    const SectionReader v(j, "device", sourceName);
    v.string("device", c.device.device);
    v.integer("threads", c.device.threads);
    v.enumeration("precision", c.device.precision, precisionFromString);
    v.integer("processes", c.device.processes);
    return c;
}

std::vector<std::string> ExperimentConfig::validate() const {
    std::vector<std::string> p;
    auto range = [&](std::int64_t v, std::int64_t lo, std::int64_t hi, const std::string& what) {
        if (v < lo)
            p.push_back(what + " must be at least " + std::to_string(lo) + " (is " + std::to_string(v) + ")");
        else if (v > hi)
            p.push_back(what + " must be at most " + std::to_string(hi) + " (is " + std::to_string(v) + ")");
    };
    if (data.corpus.empty()) p.push_back("no corpus: choose a corpus file or folder");
    range(model.embedding, 1, 8192, "embedding size");
    range(model.hidden, 1, 8192, "hidden size");
    range(model.layers, 1, 8, "number of layers");
    if (!(model.dropout >= 0 && model.dropout < 1))
        p.push_back("dropout must be in [0, 1) (is " + std::to_string(model.dropout) + ")");
    if (model.bidirectional && task == Task::LanguageModel)
        p.push_back(
            "bidirectional is for classifiers only: a bidirectional language model would see the token "
            "it must predict");
    range(data.seqLen, 2, 100000, "sequence length");
    if (data.stride < 0) p.push_back("stride must be at least 0 (0 = the sequence length)");
    if (data.vocabSize != 0 && data.vocabSize < 5)
        p.push_back("vocabulary size must be 0 (every token) or at least 5 (4 special tokens and one more)");
    if (data.minCount < 1) p.push_back("minimum count must be at least 1");
    if (!(data.valFraction >= 0 && data.valFraction <= 0.5))
        p.push_back("validation fraction must be in [0, 0.5] (is " + std::to_string(data.valFraction) + ")");
    if (train.batchSize < 1) p.push_back("batch size must be at least 1");
    if (!(train.learningRate > 0 && std::isfinite(train.learningRate)))
        p.push_back("learning rate must be a positive number");
    if (train.epochs < 0) p.push_back("epochs must be at least 0");
    if (train.maxSteps < 0) p.push_back("max steps must be at least 0 (0 = no limit)");
    if (train.epochs == 0 && train.maxSteps == 0)
        p.push_back("nothing to train: set epochs or max steps above 0");
    if (!(train.gradClip >= 0 && std::isfinite(train.gradClip)))
        p.push_back("gradient clipping must be at least 0 (0 = off)");
    if (train.validateEvery < 0) p.push_back("validate every must be at least 0 (0 = once per epoch)");
    if (train.earlyStopPatience < 0) p.push_back("early-stop patience must be at least 0 (0 = off)");
    if (train.warmupSteps < 0) p.push_back("warm-up steps must be at least 0");
    if (train.logEvery < 1) p.push_back("log every must be at least 1 step");
    if (device.threads < 0) p.push_back("threads must be at least 0 (0 = library default)");
    if (device.processes < 1 || device.processes > kMaxProcesses)
        p.push_back("processes must be between 1 and " + std::to_string(kMaxProcesses));
    else if (train.batchSize < device.processes)
        p.push_back("the batch size (" + std::to_string(train.batchSize) +
                    ") must be at least the number of processes (" + std::to_string(device.processes) +
                    "): each process trains on its share of every batch");
    const bool cuda = device.device.rfind("cuda", 0) == 0;
    if (device.precision == Precision::Fp16 && !cuda)
        p.push_back("fp16 needs a CUDA device (use bf16 or fp32 on " + device.device + ")");
    return p;
}

void ExperimentConfig::ensureValid(const std::string& sourceName) const {
    const auto problems = validate();
    if (!problems.empty()) throw InputError(sourceName, 0, problems.front());
}

ExperimentConfig defaultConfig(Task task) {
    ExperimentConfig c;
    c.task = task;
    if (task == Task::LanguageModel) {
        c.name = "Tang quatrains (char LM)";
        c.data.corpus = "tang-quatrains-7";
        c.data.format = CorpusFormat::Poems;
        c.data.tokens = TokenLevel::Char;
        c.data.seqLen = 64;
        c.model.embedding = 64;
        c.model.hidden = 256;
        c.model.layers = 2;
        c.model.dropout = 0.1;
    } else {
        c.name = "Text classifier";
        c.data.corpus = "spam-assassin";
        c.data.format = CorpusFormat::Folder;
        c.data.tokens = TokenLevel::Word;
        c.data.vocabSize = 10000;
        c.data.minCount = 2;
        c.data.seqLen = 200;
        c.model.embedding = 64;
        c.model.hidden = 64;
        c.model.layers = 1;
        c.model.bidirectional = true;
        c.model.pooling = Pooling::Mean;
    }
    c.train.batchSize = 32;
    c.train.learningRate = 2e-3;
    c.train.optimizer = OptimizerKind::Adam;
    c.train.epochs = 3;
    c.train.gradClip = 5.0;
    return c;
}

std::vector<std::string> presetNames() { return {"imdb", "charrnn", "poems"}; }

ExperimentConfig presetConfig(const std::string& name) {
    ExperimentConfig c;
    c.name = name + " preset";
    c.train.optimizer = OptimizerKind::Adam;
    if (name == "imdb") {
        c.task = Task::Classifier;
        c.data.corpus = "spam-assassin";
        c.data.format = CorpusFormat::Folder;
        c.data.tokens = TokenLevel::Word;
        c.data.vocabSize = 15000;
        c.data.seqLen = 250;
        c.model.embedding = 32;
        c.model.hidden = 100;
        c.model.layers = 1;
        c.model.bidirectional = false;
        c.model.pooling = Pooling::Last;
        c.train.batchSize = 64;
        c.train.learningRate = 1e-3;
        c.train.epochs = 20;
    } else if (name == "charrnn") {
        c.task = Task::LanguageModel;
        c.data.corpus = "fortunes-text";
        c.data.format = CorpusFormat::Text;
        c.data.tokens = TokenLevel::Char;
        c.data.seqLen = 50;
        c.model.embedding = 128;
        c.model.hidden = 128;
        c.model.layers = 2;
        c.train.batchSize = 64;
        c.train.learningRate = 2e-3;
        c.train.epochs = 10;
    } else if (name == "poems") {
        c.task = Task::LanguageModel;
        c.data.corpus = "tang-quatrains-7";
        c.data.format = CorpusFormat::Poems;
        c.data.tokens = TokenLevel::Char;
        c.data.vocabSize = 4379;
        c.data.seqLen = 73;
        c.model.embedding = 512;
        c.model.hidden = 512;
        c.model.layers = 2;
        c.train.batchSize = 32;
        c.train.learningRate = 1e-3;
        c.train.epochs = 10;
    } else {
        throw InputError("unknown preset '" + name + "' (expected imdb, charrnn or poems)");
    }
    // CPU threads (LibTorch and OpenBLAS together): the fastest count of the fused LSTM measured per preset
    // by scripts/bench-report.sh (docs/benchmarks.md, "Thread choice"). charrnn's small products lose more
    // to synchronisation than a second core gives back; imdb and poems gain from it.
    const std::int64_t measuredBest = name == "charrnn" ? 1 : 2;
    const auto cores = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
    c.device.threads = std::min(measuredBest, cores);
    return c;
}

}  // namespace wb
