// Generation and classification with a trained run (see Inference.h). Generation carries the LSTM state
// from step to step: each new token costs one single-step forward, the prefix is never run again.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>

#include <nlohmann/json.hpp>

#include "infer/GenerationSession.h"
#include "infer/HalfStepper.h"
#include "infer/OnnxExport.h"
#include "model/SequenceModel.h"
#include "tensors/TensorIO.h"
#include "train/TrainingStep.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/FormatVersion.h"
#include "workbench/domain/Meter.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/RunState.h"
#include "workbench/domain/Safetensors.h"
#include "workbench/engine/Inference.h"

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
    std::string runDir;
    Checkpoint checkpoint = Checkpoint::Last;
    ExperimentConfig config;
    Vocabulary vocabulary;
    std::vector<std::string> classes;
    std::vector<std::string> warnings;  // what loading met and read past (unknown fields)
    SequenceModel model{nullptr};
    std::unique_ptr<HalfStepper> halfStepper;  // generation's fast CPU path (null: not applicable)
};

TrainedModel::TrainedModel() : m(std::make_unique<Impl>()) {}
TrainedModel::~TrainedModel() = default;
const ExperimentConfig& TrainedModel::config() const { return m->config; }
const Vocabulary& TrainedModel::vocabulary() const { return m->vocabulary; }
const std::vector<std::string>& TrainedModel::classes() const { return m->classes; }
const std::vector<std::string>& TrainedModel::warnings() const { return m->warnings; }

std::unique_ptr<TrainedModel> TrainedModel::load(const std::string& runDir, Checkpoint checkpoint) {
    const fs::path dir(runDir);
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw InputError(runDir, 0, "not a run folder (no such folder)");
    std::unique_ptr<TrainedModel> tm(new TrainedModel());
    auto& m = *tm->m;
    m.runDir = runDir;
    m.checkpoint = checkpoint;
    const auto configPath = (dir / runfiles::kConfig).string();
    m.config = ExperimentConfig::fromJson(readFile(configPath), configPath, &m.warnings);
    m.vocabulary = readVocabularyFile((dir / runfiles::kVocab).string(), &m.classes, &m.warnings);
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

std::vector<GeneratedText> TrainedModel::generate(const GenerateOptions& o) const {
    if (m->config.task != Task::LanguageModel)
        throw InputError("this run is a classifier: it classifies text, it does not generate");
    return GenerationSession(m->model, m->halfStepper.get(), m->vocabulary, o).run();
}

namespace {

// A text as a classifier reads it: its tokens' ids, cut at the run's sequence length; <unk> for no token.
std::vector<std::int64_t> classifierIds(const Vocabulary& vocab, const std::vector<std::string>& tokens,
                                        std::int64_t maxLen) {
    std::vector<std::int64_t> ids;
    for (const auto& t : tokens) {
        if (static_cast<std::int64_t>(ids.size()) == maxLen) break;
        ids.push_back(vocab.id(t));
    }
    if (ids.empty()) ids.push_back(Vocabulary::kUnk);
    return ids;
}

// One row of class probabilities as the top k, most probable first.
Classification ranked(const torch::Tensor& probs, const std::vector<std::string>& classes,
                      std::int64_t topK) {
    const auto c = probs.size(0);
    std::vector<std::int64_t> order(static_cast<std::size_t>(c));
    std::iota(order.begin(), order.end(), 0);
    auto p = probs.accessor<double, 1>();
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return p[a] > p[b]; });
    Classification result;
    result.predicted = classes[static_cast<std::size_t>(order[0])];
    const auto k = topK > 0 ? std::min<std::int64_t>(topK, c) : c;
    for (std::int64_t i = 0; i < k; ++i)
        result.top.push_back({classes[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])],
                              p[order[static_cast<std::size_t>(i)]]});
    return result;
}

}  // namespace

Classification TrainedModel::classify(const std::string& text, std::int64_t topK, bool explain) const {
    if (m->config.task != Task::Classifier)
        throw InputError("this run is a language model: it generates text, it does not classify");
    const auto& vocab = m->vocabulary;
    auto tokens = vocab.tokenize(text);
    const auto maxLen = m->config.data.seqLen;
    if (static_cast<std::int64_t>(tokens.size()) > maxLen) tokens.resize(static_cast<std::size_t>(maxLen));
    const auto ids = classifierIds(vocab, tokens, maxLen);
    const auto len = static_cast<std::int64_t>(ids.size());

    torch::NoGradGuard noGrad;
    auto input = torch::tensor(ids, torch::kInt64).view({1, len});
    auto probs = torch::softmax(m->model->forward(input, torch::full({1}, len, torch::kInt64)), 1)[0].to(
        torch::kFloat64);
    Classification result = ranked(probs, m->classes, topK);
    const auto predicted =
        std::find(m->classes.begin(), m->classes.end(), result.predicted) - m->classes.begin();

    if (explain && !tokens.empty()) {
        // Occlusion: replace one token at a time with <unk>, all variants in one batch; a token's score is
        // how much the predicted class's probability drops without it.
        auto variants = input.repeat({len, 1});
        variants.diagonal().fill_(Vocabulary::kUnk);
        auto occluded = torch::softmax(m->model->forward(variants, torch::full({len}, len, torch::kInt64)), 1)
                            .select(1, predicted)
                            .to(torch::kFloat64);
        auto q = occluded.accessor<double, 1>();
        const auto p = probs[predicted].item<double>();
        for (std::int64_t i = 0; i < len; ++i)
            result.attributions.push_back({tokens[static_cast<std::size_t>(i)], p - q[i]});
    }
    return result;
}

std::vector<Classification> TrainedModel::classifyBatch(const std::vector<std::string>& texts,
                                                        std::int64_t topK, std::int64_t batchSize) const {
    if (m->config.task != Task::Classifier)
        throw InputError("this run is a language model: it generates text, it does not classify");
    if (batchSize < 1) throw InputError("classify: the batch size must be at least 1");
    const auto maxLen = m->config.data.seqLen;
    std::vector<Classification> results;
    results.reserve(texts.size());
    torch::NoGradGuard noGrad;
    for (std::size_t first = 0; first < texts.size(); first += static_cast<std::size_t>(batchSize)) {
        const auto last = std::min(texts.size(), first + static_cast<std::size_t>(batchSize));
        std::vector<std::vector<std::int64_t>> rows;
        std::int64_t steps = 1;
        for (auto i = first; i < last; ++i) {
            rows.push_back(classifierIds(m->vocabulary, m->vocabulary.tokenize(texts[i]), maxLen));
            steps = std::max(steps, static_cast<std::int64_t>(rows.back().size()));
        }
        auto input = torch::zeros({static_cast<std::int64_t>(rows.size()), steps}, torch::kInt64);  // <pad> 0
        std::vector<std::int64_t> lengths;
        for (std::size_t r = 0; r < rows.size(); ++r) {
            const auto n = static_cast<std::int64_t>(rows[r].size());
            input[static_cast<std::int64_t>(r)].narrow(0, 0, n).copy_(torch::tensor(rows[r], torch::kInt64));
            lengths.push_back(n);
        }
        const auto probs = torch::softmax(m->model->forward(input, torch::tensor(lengths, torch::kInt64)), 1)
                               .to(torch::kFloat64);
        for (std::int64_t r = 0; r < probs.size(0); ++r)
            results.push_back(ranked(probs[r], m->classes, topK));
    }
    return results;
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

std::vector<float> TrainedModel::logits(const std::vector<std::vector<std::int64_t>>& rows) const {
    if (rows.empty() || rows[0].empty()) throw InputError("logits: no ids");
    const auto steps = static_cast<std::int64_t>(rows[0].size());
    const auto vocab = static_cast<std::int64_t>(m->vocabulary.size());
    std::vector<std::int64_t> flat, lengths;
    for (const auto& row : rows) {
        if (static_cast<std::int64_t>(row.size()) != steps)
            throw InputError("logits: rows of different lengths");
        std::int64_t real = 0;
        for (auto id : row) {
            if (id < 0 || id >= vocab)
                throw InputError("logits: id " + std::to_string(id) + " outside the vocabulary");
            real += id != Vocabulary::kPad;
        }
        flat.insert(flat.end(), row.begin(), row.end());
        lengths.push_back(std::max<std::int64_t>(real, 1));
    }
    torch::NoGradGuard noGrad;
    const auto input =
        torch::tensor(flat, torch::kInt64).view({static_cast<std::int64_t>(rows.size()), steps});
    const auto out =
        m->model->forward(input, torch::tensor(lengths, torch::kInt64)).to(torch::kFloat32).contiguous();
    return {out.data_ptr<float>(), out.data_ptr<float>() + out.numel()};
}

namespace {

// A check batch for an exported model: a few rows of ids over the whole vocabulary (a language model's
// starting after <eos>, as generation does; a classifier's second row padded), the same on every run.
std::vector<std::vector<std::int64_t>> checkBatch(Task task, std::int64_t vocab) {
    const std::int64_t rows = 3, steps = 12,
                       spread = std::max<std::int64_t>(vocab - Vocabulary::kNumSpecial, 1);
    std::vector<std::vector<std::int64_t>> batch(rows);
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t t = 0; t < steps; ++t)
            batch[r].push_back(Vocabulary::kNumSpecial + (r * 7919 + t * 104729) % spread);
    if (task == Task::LanguageModel)
        for (auto& row : batch) row[0] = Vocabulary::kEos;
    else
        std::fill(batch[1].begin() + steps / 2, batch[1].end(), Vocabulary::kPad);
    return batch;
}

// What a program that has only the .onnx file needs to use it: the vocabulary (tokens by id, the level that
// says how text splits into them), the classes, and which format of this program wrote it.
std::vector<std::pair<std::string, std::string>> onnxMetadata(const ExperimentConfig& c,
                                                              const Vocabulary& vocabulary,
                                                              const std::vector<std::string>& classes,
                                                              const std::string& run,
                                                              const std::string& checkpoint) {
    std::vector<std::pair<std::string, std::string>> metadata{
        {"format_version", toString(kFormatVersion)},
        {"written_by", writtenBy()},
        {"run", run},
        {"checkpoint", checkpoint},
        {"task", toString(c.task)},
        {"level", toString(vocabulary.level())},
        {"tokens", nlohmann::json(vocabulary.tokens()).dump()},
        {"seq_len", std::to_string(c.data.seqLen)}};
    if (c.task == Task::Classifier) metadata.emplace_back("classes", nlohmann::json(classes).dump());
    return metadata;
}

}  // namespace

OnnxExport TrainedModel::exportOnnx(const std::string& path) const {
    const auto& c = m->config;
    const bool lm = c.task == Task::LanguageModel;
    const auto checkpoint = m->checkpoint == Checkpoint::Best ? "best" : "last";
    const auto runName = fs::path(m->runDir).filename().string().empty()
                             ? fs::path(m->runDir).parent_path().filename().string()
                             : fs::path(m->runDir).filename().string();
    const std::string doc = "LSTM Workbench run " + runName + " (" + checkpoint + " checkpoint), " +
                            toString(c.task) + ": " + c.name;
    OnnxExport out;
    out.modelPath = path;
    const auto bytes = onnxModelBytes(*m->model, c.task, c.model, doc,
                                      onnxMetadata(c, m->vocabulary, m->classes, runName, checkpoint));
    const fs::path p(path);
    out.vocabularyPath = (p.parent_path() / (p.stem().string() + ".vocab.json")).string();

    const auto vocab = static_cast<std::int64_t>(m->vocabulary.size());
    const auto batch = checkBatch(c.task, vocab);
    const auto all = logits(batch);
    // A language model's logits at each row's last step (they depend on every step before it): the whole
    // [rows, steps, vocabulary] would be megabytes of JSON for a large vocabulary.
    const auto width = lm ? vocab : static_cast<std::int64_t>(m->classes.size());
    const auto steps = static_cast<std::int64_t>(batch[0].size());
    nlohmann::json expected = nlohmann::json::array();
    for (std::size_t r = 0; r < batch.size(); ++r) {
        const auto begin = lm ? (static_cast<std::int64_t>(r) * steps + steps - 1) * width
                              : static_cast<std::int64_t>(r) * width;
        expected.push_back(std::vector<float>(all.begin() + begin, all.begin() + begin + width));
    }
    nlohmann::json j = {
        {"format", "lstm-workbench onnx vocabulary 1"},
        {"format_version", toString(kFormatVersion)},
        {"written_by", writtenBy()},
        {"model", p.filename().string()},
        {"run", runName},
        {"checkpoint", checkpoint},
        {"task", toString(c.task)},
        {"level", toString(m->vocabulary.level())},
        {"tokens", m->vocabulary.tokens()},
        {"special_ids",
         {{"pad", Vocabulary::kPad},
          {"unk", Vocabulary::kUnk},
          {"bos", Vocabulary::kBos},
          {"eos", Vocabulary::kEos}}},
        {"tokenizer", m->vocabulary.level() == TokenLevel::Char
                          ? "one token per Unicode code point"
                          : "lower-cased ASCII words and numbers, each other punctuation mark and each CJK "
                            "character on its own; whitespace separates; unknown tokens are <unk>"},
        {"inputs",
         {{"input_ids", "int64 [batch, steps]"},
          {"h0", "float [layers * directions, batch, hidden], optional (zeros)"},
          {"c0", "float [layers * directions, batch, hidden], optional (zeros)"}}},
        {"outputs",
         {{"logits", lm ? "float [batch, steps, vocabulary]" : "float [batch, classes]"},
          {"h_n", "float [layers * directions, batch, hidden]"},
          {"c_n", "float [layers * directions, batch, hidden]"}}},
        {"check",
         {{"input_ids", batch},
          {"logits", expected},
          {"logits_of", lm ? "each row's last step" : "each row"}}}};
    if (lm)
        j["generation"] =
            "feed <eos> first (a document starts after one), then the seed text's ids; at each step feed "
            "the chosen id with the last h_n, c_n as h0, c0; never choose <pad>, <unk> or <bos>; "
            "<eos> ends a document";
    else {
        j["classes"] = m->classes;
        j["seq_len"] = c.data.seqLen;
        j["classification"] =
            "one row of a text's ids (cut to seq_len tokens; none: [<unk>]), or rows padded with "
            "<pad> at the end; softmax over the logits";
    }
    writeFileAtomic(path, bytes);
    writeFileAtomic(out.vocabularyPath, j.dump(1) + "\n");
    out.modelBytes = bytes.size();
    out.howToRun =
        "python3 -c \"import onnxruntime as ort, numpy as np; s = ort.InferenceSession('" + path +
        "'); print(s.run(['logits'], {'input_ids': np.array([[3, 4, 5]], dtype=np.int64)})[0].shape)\"";
    return out;
}

}  // namespace wb
