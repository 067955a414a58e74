// A few generated samples at every validation of a language model, so that a user watches the poems (or
// the prose) improve beside the loss curve: generated from the checkpoint just saved, with the trained
// model's own generate(), written to samples.jsonl in the run folder (one JSON line per validation) and
// said in the training log. Poem corpora get poems of their own form, checked for tone and rhyme when the
// corpus has verse tables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workbench/domain/Config.h"
#include "workbench/domain/Corpus.h"
#include "workbench/domain/Verse.h"
#include "workbench/engine/Inference.h"

namespace wb {

// The form most of a corpus's documents have (at least 90 % of those looked at), Free when none does.
PoemForm dominantPoemForm(const Corpus& corpus);

class ValidationSamples {
public:
    // corpus may be null (then free text); a resumed run's earlier samples are kept.
    ValidationSamples(const ExperimentConfig& config, const Corpus* corpus, std::string runDir);

    bool enabled() const { return m_count > 0; }
    // After the checkpoint of a validation: generates, rewrites samples.jsonl, and returns the log lines.
    // Throws what generation or the write throws (the session turns the samples off and says why).
    std::vector<std::string> take(std::int64_t step, double wallSeconds, double valLoss);
    void disable() { m_count = 0; }
    // The last take()'s samples, each with its verse check when the corpus has tables.
    const std::vector<std::string>& lastSamples() const { return m_last; }

private:
    ExperimentConfig m_config;
    std::string m_runDir;
    PoemForm m_form = PoemForm::Free;
    std::int64_t m_count = 0;
    std::optional<VerseChecker> m_checker;
    std::vector<std::string> m_last;
    std::string m_jsonl;  // every line so far: the file is rewritten whole, atomically
};

}  // namespace wb
