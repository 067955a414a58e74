// ExperimentConfig as JSON (config.json, snake_case keys), its validation with messages a user can act on,
// the per-task defaults and the docs/performance.md reference presets. The fields themselves (keys, types,
// ranges, defaults) come from the table in ConfigFields.cpp.
#include "workbench/domain/Config.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "io/FormatVersion.h"
#include "io/JsonDocument.h"
#include "workbench/domain/ConfigFields.h"
#include "workbench/domain/DeviceSpec.h"
#include "workbench/domain/Errors.h"

namespace wb {
namespace {

using nlohmann::json;

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
    // Choices go through the field's setter, whose message lists the accepted values.
    void choice(const char* key, const std::function<void(const std::string&)>& set) const {
        if (!find(key)) return;
        std::string s;
        string(key, s);
        try {
            set(s);
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

}  // namespace

std::string toString(Task v) { return v == Task::Classifier ? "classify" : "lm"; }
std::string toString(Pooling v) { return v == Pooling::Mean ? "mean" : v == Pooling::Max ? "max" : "last"; }
std::string toString(OptimizerKind v) {
    return v == OptimizerKind::Sgd ? "sgd" : v == OptimizerKind::RmsProp ? "rmsprop" : "adam";
}
std::string toString(Precision v) {
    return v == Precision::Bf16   ? "bf16"
           : v == Precision::Fp16 ? "fp16"
           : v == Precision::Auto ? "auto"
                                  : "fp32";
}

std::string toString(ThreadSplit v) { return v == ThreadSplit::Ops ? "ops" : "batch"; }
std::string toString(GradCompression v) { return v == GradCompression::Fp16 ? "fp16" : "none"; }
std::string toString(LstmBackend v) {
    return v == LstmBackend::Torch ? "torch" : v == LstmBackend::Fused ? "fused" : "auto";
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
std::string toString(LrSchedule v) { return v == LrSchedule::Cosine ? "cosine" : "constant"; }
LrSchedule lrScheduleFromString(const std::string& s) {
    if (s == "constant") return LrSchedule::Constant;
    if (s == "cosine") return LrSchedule::Cosine;
    throw InputError("unknown learning-rate schedule '" + s + "' (expected constant or cosine)");
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
    if (s == "auto") return Precision::Auto;
    throw InputError("unknown precision '" + s + "' (expected fp32, bf16, fp16 or auto)");
}
GradCompression gradCompressionFromString(const std::string& s) {
    if (s == "none") return GradCompression::None;
    if (s == "fp16") return GradCompression::Fp16;
    throw InputError("unknown gradient compression '" + s + "' (expected none or fp16)");
}
LstmBackend lstmBackendFromString(const std::string& s) {
    if (s == "auto") return LstmBackend::Auto;
    if (s == "torch") return LstmBackend::Torch;
    if (s == "fused") return LstmBackend::Fused;
    throw InputError("unknown LSTM backend '" + s + "' (expected auto, torch or fused)");
}
std::string toString(CudaGraphMode v) { return v == CudaGraphMode::Off ? "off" : "auto"; }
CudaGraphMode cudaGraphModeFromString(const std::string& s) {
    if (s == "auto") return CudaGraphMode::Auto;
    if (s == "off") return CudaGraphMode::Off;
    throw InputError("unknown CUDA graph setting '" + s + "' (expected auto or off)");
}
ThreadSplit threadSplitFromString(const std::string& s) {
    if (s == "batch") return ThreadSplit::Batch;
    if (s == "ops") return ThreadSplit::Ops;
    throw InputError("unknown thread split '" + s + "' (expected batch or ops)");
}

std::string ExperimentConfig::toJson() const {
    json j = json::object();
    for (const auto& f : configFields()) {
        json& slot = f.section.empty() ? j[f.key] : j[f.section][f.key];
        auto& c = const_cast<ExperimentConfig&>(*this);
        switch (f.type) {
            case FieldType::Integer:
                slot = f.integer(c);
                break;
            case FieldType::UnsignedInteger:
                slot = f.unsignedInteger(c);
                break;
            case FieldType::Number:
                slot = f.number(c);
                break;
            case FieldType::Boolean:
                slot = f.boolean(c);
                break;
            case FieldType::Choice:
            case FieldType::Text:
                slot = f.get(*this);
                break;
        }
    }
    detail::stampFormatVersion(j);
    return j.dump(2) + "\n";
}

namespace {

// The fields of the table, by section ("" for the top level), and the sections themselves among the top
// level's keys: what a config.json may hold.
std::map<std::string, std::vector<std::string>> knownConfigKeys() {
    std::map<std::string, std::vector<std::string>> known;
    for (const auto& f : configFields()) {
        known[f.section].push_back(f.key);
        if (!f.section.empty()) known[""].push_back(f.section);
    }
    return known;
}

bool hasField(const json& j, const ConfigField& f) {
    const json* obj = &j;
    if (!f.section.empty()) {
        const auto it = j.find(f.section);
        if (it == j.end() || !it->is_object()) return false;
        obj = &*it;
    }
    const auto it = obj->find(f.key);
    return it != obj->end() && !it->is_null();
}

}  // namespace

ExperimentConfig ExperimentConfig::fromJson(const std::string& text, const std::string& sourceName,
                                            std::vector<std::string>* warnings) {
    const json j = detail::parseJsonDocument(text, sourceName);
    if (!j.is_object())
        throw InputError(sourceName, 0,
                         "expected a JSON object (an experiment config), found " + detail::jsonTypeName(j));
    const auto version = detail::readFormatVersion(j, sourceName);
    static const auto known = knownConfigKeys();
    for (const auto& [section, keys] : known)
        detail::noteUnknownFields(section.empty() ? j : j.value(section, json::object()), keys, section,
                                  sourceName, warnings);
    if (version.major >= 2)
        for (const auto& f : configFields())
            if (f.shapesModel && !hasField(j, f))
                throw InputError(sourceName, 0,
                                 f.path() + ": missing; format " + toString(version) +
                                     " holds every field that changes what the model computes, and the " +
                                     f.label + " does (add it, or remove format_version to read the file " +
                                     "as format 1.0, whose missing fields take their initial values)");
    ExperimentConfig c;
    for (const auto& f : configFields()) {
        const SectionReader r(j, f.section.empty() ? nullptr : f.section.c_str(), sourceName);
        const char* key = f.key.c_str();
        switch (f.type) {
            case FieldType::Integer:
                r.integer(key, f.integer(c));
                break;
            case FieldType::UnsignedInteger:
                r.unsignedInteger(key, f.unsignedInteger(c));
                break;
            case FieldType::Number:
                r.number(key, f.number(c));
                break;
            case FieldType::Boolean:
                r.boolean(key, f.boolean(c));
                break;
            case FieldType::Text:
                if (f.parseText)
                    r.choice(key, [&](const std::string& v) { f.parseText(c, v); });
                else
                    r.string(key, f.text(c));
                break;
            case FieldType::Choice:
                r.choice(key, [&](const std::string& v) { f.setChoice(c, v); });
                break;
        }
    }
    return c;
}

std::vector<std::string> ExperimentConfig::validate() const {
    std::vector<std::string> p;
    if (data.corpus.empty()) p.push_back("no corpus: choose a corpus file or folder");
    for (const auto& f : configFields())
        if (auto problem = f.rangeProblem(*this); !problem.empty()) p.push_back(std::move(problem));
    // Rules that a range cannot say.
    if (model.bidirectional && task == Task::LanguageModel)
        p.push_back(
            "bidirectional is for classifiers only: a bidirectional language model would see the token "
            "it must predict");
    if (data.vocabSize != 0 && data.vocabSize < 5)
        p.push_back("vocabulary size must be 0 (every token) or at least 5 (4 special tokens and one more)");
    if (train.epochs == 0 && train.maxSteps == 0)
        p.push_back("nothing to train: set epochs or max steps above 0");
    if (device.spec.processes >= 1 && train.batchSize < device.spec.processes)
        p.push_back("the batch size (" + std::to_string(train.batchSize) +
                    ") must be at least the number of processes (" + std::to_string(device.spec.processes) +
                    "): each process trains on its share of every batch");
    if (device.precision == Precision::Fp16 && !device.spec.isCuda())
        p.push_back("fp16 needs a CUDA device (use bf16 or fp32 on " + device.spec.id() + ")");
    return p;
}

void ExperimentConfig::ensureValid(const std::string& sourceName) const {
    const auto problems = validate();
    if (!problems.empty()) throw InputError(sourceName, 0, problems.front());
}

ExperimentConfig defaultConfig(Task task) {
    ExperimentConfig c;
    for (const auto& f : configFields()) {
        const auto& value = task == Task::LanguageModel ? f.lmDefault : f.classifierDefault;
        if (!value.empty()) f.set(c, value);
    }
    c.name = task == Task::LanguageModel ? "Tang quatrains (char LM)" : "Text classifier";
    return c;
}

std::vector<std::string> presetNames() {
    std::vector<std::string> names;
    for (const auto& p : presets()) names.push_back(p.name);
    return names;
}

ExperimentConfig presetConfig(const std::string& name) {
    const auto& all = presets();
    const auto preset = std::find_if(all.begin(), all.end(), [&](const Preset& p) { return p.name == name; });
    if (preset == all.end())
        throw InputError("unknown preset '" + name + "' (expected imdb, charrnn or poems)");
    ExperimentConfig c;
    c.name = name + " preset";
    for (const auto& [key, value] : preset->values) configField(key).set(c, value);
    // CPU threads: the fastest count measured per preset by scripts/bench-threads.sh (docs/benchmarks.md,
    // "Two threads"). With the batch split over threads (the default) two threads beat one on every preset
    // (1.37x to 1.78x); splitting every operation lost on imdb and charrnn.
    const std::int64_t measuredBest = 2;
    const auto cores = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
    c.device.spec.threads = std::min(measuredBest, cores);
    return c;
}

}  // namespace wb
