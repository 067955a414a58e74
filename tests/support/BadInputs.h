// The catalogue of malformed inputs the project writes itself (the reliability issue's "bad input" list),
// shared by the core suite (tests/core/reliability/BadInputCatalogTest.cpp, through the API) and the e2e
// suite (tests/e2e/BadInputCliTest.cpp, through lstm-workbench-cli). Every case writes its input into a
// fresh temporary folder; a bad input must give one InputError / one stderr line naming the file (and the
// line where it applies), exit code 2 on the CLI, and leave the folder exactly as it was. A few cases are
// inputs a user expects to work (a UTF-8 BOM, CRLF or lone-CR line endings, a 100 MB line, a symlink
// loop of folders): those must load, and say what they loaded.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "workbench/domain/Config.h"

namespace wbtest {

// Where a case enters the product: a CLI subcommand and the core API call(s) that do the same work.
enum class Entry {
    Inspect,  // CLI: inspect CORPUS --json               API: resolveCorpusPath + loadCorpus + computeStats
    Train,  // CLI: train CORPUS --out OUT <tiny flags>  API: TrainingJob(tinyTrainConfig(CORPUS), OUT).run()
    TrainConfig,   // CLI: train CORPUS --config CFG --out OUT  API: ExperimentConfig::fromJson +
                   // ensureValid(CFG)
                   //                                               + TrainingJob(config, OUT).run()
    Resume,        // CLI: resume RUN                           API: TrainingJob::resume(RUN)->run()
    Generate,      // CLI: generate RUN --length 5              API: TrainedModel::load(RUN)->generate()
    GeneratePoem,  // CLI: generate RUN --form quatrain7 --meter strict
                   // API: TrainedModel::load(RUN) + verseCheckerForCorpus(its corpus) + generate()
    Classify,      // CLI: classify RUN (--text|--file F)       API: TrainedModel::load(RUN)->classify(text)
    Compare,       // CLI: compare RUN --csv OUT.csv            API: loadRunFolder(RUN) + compareRuns
    Sweep,         // CLI: sweep SWEEP_DIR --quiet (resume)     API: loadSweep(SWEEP_DIR)
};
std::string cliCommand(Entry e);  // "inspect", "train", "train --config", …
std::string apiCall(Entry e);     // "loadCorpus", "TrainingJob", …

// Where a rejected corpus case (Inspect, Train) is refused: by the corpus loader (loadCorpus, the app's
// drop), or only when training prepares the data (the loader reads a valid corpus that this experiment
// cannot train on: one class for a classifier, a budget the tokens exceed). The app's drop test relies on
// it: a Load case must be refused at the drop, a Training case must load there and fail at Train.
enum class FailsAt { Load, Training };

// What a case's write() made inside its temporary folder.
struct BadInput {
    std::string path;          // the corpus, the run folder or (TrainConfig) the config file
    std::string corpus;        // TrainConfig: the corpus the config is trained on
    std::string classifyFile;  // Classify: the --file argument (empty: --text "a good film")
    std::string out;           // Train/TrainConfig: the run folder that must NOT appear
};

struct BadInputCase {
    std::string name;  // a GoogleTest-safe identifier
    Entry entry = Entry::Inspect;
    std::string description;  // one line for docs/reliability.md
    std::function<BadInput(const std::filesystem::path& dir)> write;
    // Fragments the one-line error must contain; the first is the file name (or the flag/key where no file
    // applies). Empty: the input is accepted.
    std::vector<std::string> expected;
    std::int64_t line = 0;  // > 0: the error must say "FILE:LINE:" and InputError::line() must match
    std::map<std::string, std::string> env;   // environment for the call (e.g. the memory limit)
    wb::Task task = wb::Task::LanguageModel;  // Train: which tiny model
    // Accepted cases: the document count and the first document's first characters.
    std::int64_t documents = -1;
    std::string firstText;
    std::vector<std::string> classes;
    FailsAt failsAt = FailsAt::Load;  // rejected Inspect/Train cases: the stage that refuses the input

    bool accepted() const { return expected.empty(); }
};

const std::vector<BadInputCase>& badInputCatalog();
// GoogleTest prints a case by its name (not as 256 bytes).
void PrintTo(const BadInputCase& c, std::ostream* os);

// The tiny experiment the Train entry uses (API) and the equivalent CLI flags.
wb::ExperimentConfig tinyTrainConfig(const std::string& corpus, wb::Task task);
std::string tinyTrainFlags(wb::Task task);

// A finished tiny run (language model or classifier) copied to dest; the runs are trained once per process.
void copyTinyRun(wb::Task task, const std::filesystem::path& dest);

// Every entry under root with its size and (for files up to 1 MiB) its content, to prove a call changed
// nothing: same names, same bytes, no temporary file left.
std::map<std::string, std::string> snapshotTree(const std::filesystem::path& root);

// Sets environment variables for the lifetime of the object (the API side of a case's env).
class ScopedEnv {
public:
    explicit ScopedEnv(const std::map<std::string, std::string>& vars);
    ~ScopedEnv();
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    std::vector<std::pair<std::string, std::pair<bool, std::string>>> m_saved;
};

}  // namespace wbtest
