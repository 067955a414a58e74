// Finds the corpus preparer: $LSTM_WORKBENCH_PREPARER, else the installed copy relative to the executable
// (so an unpacked or relocated package finds its own), else the source tree's. See
// workbench/domain/Preparer.h.
#include "workbench/domain/Preparer.h"

#include <cstdlib>
#include <filesystem>

#include <unistd.h>

namespace fs = std::filesystem;

namespace wb {
namespace {

bool isFile(const fs::path& path) {
    std::error_code ec;
    return fs::is_regular_file(path, ec);
}

fs::path normalised(const fs::path& path) {
    std::error_code ec;
    fs::path result = fs::weakly_canonical(path, ec);
    return ec ? fs::absolute(path, ec) : result;
}

}  // namespace

std::optional<Preparer> findPreparerFor(const std::string& executable, const std::string& sourceDir) {
    if (const char* env = std::getenv("LSTM_WORKBENCH_PREPARER"); env && *env) {
        // Named on purpose: returned even when missing, so that running it says what is wrong.
        return Preparer{normalised(env).string(), Preparer::Origin::Environment};
    }
    if (!executable.empty()) {
        const fs::path installed =
            fs::path(executable).parent_path().parent_path() / "share" / "lstm-workbench" / "prepare.py";
        if (isFile(installed)) return Preparer{normalised(installed).string(), Preparer::Origin::Installed};
    }
    if (!sourceDir.empty()) {
        const fs::path script = fs::path(sourceDir) / "datasets" / "prepare.py";
        if (isFile(script)) return Preparer{normalised(script).string(), Preparer::Origin::SourceTree};
    }
    return std::nullopt;
}

std::optional<Preparer> findPreparer() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
#ifdef WORKBENCH_SOURCE_DIR
    const std::string sourceDir = WORKBENCH_SOURCE_DIR;
#else
    const std::string sourceDir;
#endif
    return findPreparerFor(ec ? std::string() : self.string(), sourceDir);
}

std::string prepareCommand(const std::string& args) {
    const auto preparer = findPreparer();
    if (preparer && preparer->origin == Preparer::Origin::SourceTree)
        return "python3 datasets/prepare.py " + args;
    return "lstm-workbench-cli prepare " + args;
}

std::vector<std::string> preparerArgv(const Preparer& preparer, const std::vector<std::string>& args) {
    // The script uses the standard library only and is written for Debian's python3; a python3 first on
    // PATH (a virtual environment) would do too, but the system's is the one the package depends on.
    std::vector<std::string> argv{access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3",
                                  preparer.script};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
}

}  // namespace wb
