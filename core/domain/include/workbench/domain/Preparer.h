// The corpus preparer (datasets/prepare.py): where this installation has it, how to run it, and the command a
// user should type. A package installs it as PREFIX/share/lstm-workbench/prepare.py, next to the binaries'
// PREFIX/bin, and `lstm-workbench-cli prepare` runs it; a build from source uses the source tree's script.
// Messages that tell the user to prepare a corpus come from prepareCommand(), so they name a command that
// exists where the user is.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace wb {

struct Preparer {
    enum class Origin {
        Environment,  // $LSTM_WORKBENCH_PREPARER
        Installed,    // PREFIX/share/lstm-workbench/prepare.py beside the running PREFIX/bin/…
        SourceTree,   // the checkout this binary was built from
    };
    std::string script;  // absolute path of prepare.py
    Origin origin = Origin::Installed;
};

// The preparer for a binary at `executable`, built from `sourceDir` (empty: none known): the environment's,
// else the installed one relative to the executable, else the source tree's; nullopt when none exists.
std::optional<Preparer> findPreparerFor(const std::string& executable, const std::string& sourceDir);
// The same for the running process (/proc/self/exe and the source folder this library was built from).
std::optional<Preparer> findPreparer();

// What a user types to run the preparer with `args` ("NAME", "--force NAME", "--list"): the source tree's
// `python3 datasets/prepare.py …` when the preparer is the source tree's, the product's
// `lstm-workbench-cli prepare …` otherwise (also when none is found: the package has it).
std::string prepareCommand(const std::string& args);

// The program and arguments that run `preparer` with `args`: the system's python3 and the script.
std::vector<std::string> preparerArgv(const Preparer& preparer, const std::vector<std::string>& args);

// Set in the preparer's environment by the CLI and the app: the name its usage and error lines start with.
inline constexpr const char* kPreparerProgVariable = "LSTM_WORKBENCH_PREPARE_PROG";

}  // namespace wb
