// One call of TrainedModel::generate, in named parts the way TrainingSession splits a run: the request is
// checked and resolved against the vocabulary once (GenerationPlan: seed, acrostic, the token masks, the
// poem's layout, the strict meter's patterns); a ModelCursor feeds tokens through the model and scores
// them; then each sample is written as free text or as a poem, line by line, where a line is a depth-first
// search that steps back when nothing fits (strict meter bans a line of the corpus).
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "infer/HalfStepper.h"
#include "model/SequenceModel.h"
#include "workbench/domain/Meter.h"
#include "workbench/domain/Vocabulary.h"
#include "workbench/engine/Inference.h"

namespace wb {

// What a generation request asks of this vocabulary, checked (InputError names what does not fit).
struct GenerationPlan {
    GenerationPlan(const Vocabulary& vocab, const GenerateOptions& o);

    std::vector<std::int64_t> seed, acrostic;
    std::vector<char> anyToken;          // may be sampled at all: never <pad>, <unk> or <bos>
    std::vector<char> ideographs;        // one Chinese character
    std::vector<char32_t> ideographOf;   // the character, 0 if not one
    int lineChars = 0;                   // 5 or 7 for a poem form, 0 for free text
    int lines = 4;                       // a quatrain has 4, a regulated verse 8
    std::int64_t comma = -1, stop = -1;  // the marks after odd and even lines
    std::int64_t newline = -1;           // -1 when the vocabulary has none
    std::optional<PoemMeter> meter;      // strict meter only
    std::vector<MeterPattern> patterns;  // those the seed fits

private:
    void resolvePoemForm(const Vocabulary& vocab, const GenerateOptions& o, std::int64_t ideographCount);
    void resolveMeter(const GenerateOptions& o);
};

// The model after the tokens fed so far, on LibTorch or on the fp16 CPU path. Feeding a token runs the LSTM
// only; the head (for a poems model a third of the weights read per token) runs when a token is sampled or
// scored.
class ModelCursor {
public:
    struct Cancelled {};
    ModelCursor(SequenceModel& model, const HalfStepper* half, const std::function<bool()>* cancelled);
    void feed(std::int64_t id);  // throws Cancelled when the caller cancelled
    const torch::Tensor& logits();
    // log p(id | what was fed), at temperature 1 over the whole vocabulary.
    double logProbability(std::int64_t id);

private:
    SequenceModel* m_model;
    const HalfStepper* m_half;
    const std::function<bool()>* m_cancelled;
    std::optional<LstmState> m_state;  // LibTorch path
    HalfStepper::State m_halfState;    // fp16 path
    torch::Tensor m_hidden, m_logits;  // logits: computed on first use
};

class GenerationSession {
public:
    GenerationSession(SequenceModel& model, const HalfStepper* half, const Vocabulary& vocab,
                      const GenerateOptions& options);
    // The samples; fewer when cancelled (the one in progress is dropped).
    std::vector<GeneratedText> run();

private:
    GeneratedText freeText(ModelCursor cursor);
    GeneratedText poem(ModelCursor cursor);
    // Writes line `line` of a poem into `text` and the sample's score, its mark and couplet break after it.
    void poemLine(int line, ModelCursor& cursor, PoemMeter::State& meterState, GeneratedText& sample,
                  std::string& text);
    // Appends a token the sample did not choose freely (seed, acrostic, punctuation) and scores it.
    void feedFixed(ModelCursor& cursor, GeneratedText& sample, std::int64_t id);

    SequenceModel& m_model;
    const HalfStepper* m_half;
    const Vocabulary& m_vocab;
    const GenerateOptions& m_options;
    GenerationPlan m_plan;
    std::mt19937_64 m_rng;
};

}  // namespace wb
