// See SlurmCommands.h.
#include "slurm/SlurmCommands.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "process/ChildProcess.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"

namespace fs = std::filesystem;

namespace wb {

std::string onPath(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');)
        if (!dir.empty() && access((fs::path(dir) / name).c_str(), X_OK) == 0)
            return (fs::path(dir) / name).string();
    return {};
}

std::string slurmCommand(const std::vector<std::string>& argv, const std::string& scratch, bool endsThisJob) {
    ChildSpec spec;
    spec.argv = argv;
    spec.ignoresTerm = endsThisJob;
    spec.stdoutFile = scratch + ".out";
    spec.stderrFile = scratch + ".err";
    const int code = waitChild(spawnChild(spec, argv[0])).code;
    std::string out, err;
    try {
        out = readFile(spec.stdoutFile);
        err = readFile(spec.stderrFile);
    } catch (const std::exception&) {
    }
    std::error_code ec;
    fs::remove(spec.stdoutFile, ec);
    fs::remove(spec.stderrFile, ec);
    if (code != 0)
        throw TrainingError(fs::path(argv[0]).filename().string() + " failed (exit " + std::to_string(code) +
                            "): " + err.substr(0, err.find('\n')));
    return out;
}

}  // namespace wb
