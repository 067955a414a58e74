// Using a trained run: generate text from a language model (state carried between steps, the prefix is
// never re-run) or classify text with probabilities and per-token attributions.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "workbench/domain/Config.h"
#include "workbench/domain/Meter.h"
#include "workbench/domain/Vocabulary.h"

namespace wb {

// Quatrains (4 lines) and regulated verse (8 lines; the reference's 56-character poem is regulated7) of 5
// or 7 characters a line; each couplet ends with "，" then "。".
enum class PoemForm { Free, Quatrain5, Quatrain7, Regulated5, Regulated7 };
std::string toString(PoemForm f);  // "free" | "quatrain5" | "quatrain7" | "regulated5" | "regulated7"
PoemForm poemFormFromString(const std::string& s);

// How a poem's characters are chosen. Free: as the model samples them. Strict: only among the characters a
// tonal pattern and the poem's rhyme allow at each position (PoemMeter), never completing a line of the
// corpus (a line that would copy one is redone, stepping back a character at a time), so that every poem
// passes the verse checker.
enum class Meter { Free, Strict };
std::string toString(Meter m);  // "free" | "strict"
Meter meterFromString(const std::string& s);

struct GenerateOptions {
    std::string seedText;       // primes the state; part of the output
    std::int64_t length = 100;  // tokens to generate (free form)
    // Free form: where the model ends a document (<eos>), the sample ends too (true), or a blank line
    // follows and it goes on to `length` tokens with the next document (false: what `length` promises; a
    // model of 33-character quatrains otherwise gave samples of 2 to 14 characters at length 120).
    bool stopAtDocumentEnd = false;
    double temperature = 1.0;  // 0 = greedy
    std::int64_t topK = 0;     // 0 = off
    double topP = 1.0;         // 1 = off
    PoemForm form = PoemForm::Free;
    std::string acrostic;  // one character per line (quatrains: up to 4)
    std::int64_t samples = 1;
    std::uint64_t rngSeed = 0;  // 0 = random
    // Polled before every token (from the generating thread); true ends the generation at once with the
    // samples finished so far. The app sets it when its window closes during a long generation.
    std::function<bool()> cancelled;
    // On the CPU a language model generates from fp16 copies of its weights (half the memory traffic of
    // a memory-bound step; products still accumulate in fp32). true: every product in fp32 through LibTorch.
    bool fullPrecision = false;
    // Strict meter needs a poem form and the tables of the run's corpus (verseCheckerForCorpus); `verse`
    // must outlive the call. pattern: the tonal pattern every poem follows (Auto: one the seed fits, drawn
    // for each poem).
    Meter meter = Meter::Free;
    MeterPattern pattern = MeterPattern::Auto;
    const VerseChecker* verse = nullptr;
};

struct GeneratedText {
    std::string text;
    // The model's probability of the text, as a natural log: every token of it after a document start
    // (seed, acrostic and the punctuation a form puts in included), at temperature 1 over the whole
    // vocabulary. What a restriction costs shows in it: bitsPerToken() compares with the run's bits per
    // character.
    double logProbability = 0;
    std::int64_t tokens = 0;
    MeterPattern pattern = MeterPattern::Auto;  // the pattern a strict poem follows; Auto otherwise
    double bitsPerToken() const;
};
std::vector<std::string> textsOf(const std::vector<GeneratedText>& samples);

struct ClassProbability {
    std::string label;
    double probability = 0;
};
struct TokenAttribution {
    std::string token;
    double score = 0;  // > 0 pushed toward the predicted class
};
struct Classification {
    std::string predicted;
    std::vector<ClassProbability> top;           // sorted, top-k
    std::vector<TokenAttribution> attributions;  // one per input token (when explained)
};

// What TrainedModel::exportOnnx wrote.
struct OnnxExport {
    std::string modelPath;       // the ONNX model
    std::string vocabularyPath;  // beside it: <name>.vocab.json
    std::uint64_t modelBytes = 0;
    std::string howToRun;  // a command line that runs it with ONNX Runtime
};

class TrainedModel {
public:
    enum class Checkpoint { Last, Best };
    // Loads config, vocabulary and weights (bounds-checked) from a run folder; runs on the CPU. Best: the
    // weights of the validation with the lowest loss (best-model.safetensors) instead of the last ones.
    static std::unique_ptr<TrainedModel> load(const std::string& runDir,
                                              Checkpoint checkpoint = Checkpoint::Last);
    ~TrainedModel();

    const ExperimentConfig& config() const;
    const Vocabulary& vocabulary() const;
    const std::vector<std::string>& classes() const;
    // What loading read past, one line each: fields of config.json or vocab.json this program does not know
    // (a newer minor format, or a hand edit). A caller shows them (the CLI on stderr).
    const std::vector<std::string>& warnings() const;

    // Throws InputError when the options do not fit the model (a classifier, a seed or acrostic character
    // outside the vocabulary, a quatrain from a model that never saw the punctuation, strict meter without
    // tables or with a seed that fits no pattern).
    std::vector<GeneratedText> generate(const GenerateOptions& options) const;
    Classification classify(const std::string& text, std::int64_t topK = 5, bool explain = false) const;
    // Many texts at once, in batches of `batchSize` padded to each batch's longest text (as validation
    // batches them); each text's answer is the one classify() gives it alone: padding changes nothing.
    std::vector<Classification> classifyBatch(const std::vector<std::string>& texts, std::int64_t topK = 5,
                                              std::int64_t batchSize = 64) const;
    // A language model's log-probability (natural log) of a text read from a document start, in fp32
    // through LibTorch, as GeneratedText::logProbability counts it (for a poem: of its text with one couplet
    // to a line, as generation feeds it and the corpus has it, where GeneratedText::text breaks every line);
    // tokens outside the vocabulary count as <unk>. `tokens`: how many tokens were scored.
    double logProbability(const std::string& text, std::int64_t* tokens = nullptr) const;
    // What generate() computes in by default: "bf16" (bf16 weights, AVX512_BF16), "fp16" (fp16 weights) or
    // "fp32" (LibTorch, also what GenerateOptions::fullPrecision asks for).
    std::string generationPrecision() const;

    // The logits of a batch in fp32 through LibTorch, as evaluation computes them: rows of ids of one length
    // (a classifier's rows padded with <pad> at the end; its lengths are the rows' other tokens). Flat, row
    // by row: [rows, steps, vocabulary] for a language model, [rows, classes] for a classifier.
    std::vector<float> logits(const std::vector<std::vector<std::int64_t>>& rows) const;
    // The network as an ONNX model at `path` (docs/user-guide.md "Use a run elsewhere": token ids in,
    // logits out, the LSTM state as optional inputs and outputs) and its vocabulary beside it as JSON, with
    // a check batch: ids and the logits this model gives them. Both written atomically; InputError naming
    // the file when it cannot be written.
    OnnxExport exportOnnx(const std::string& path) const;

private:
    TrainedModel();
    struct Impl;
    std::unique_ptr<Impl> m;
};

}  // namespace wb
