// What a cell's `lstm-workbench-cli train` said when it failed, for both launchers (LocalLauncher.cpp,
// SlurmLauncher.cpp): the first line of its error file, without the CLI's error prefix; "" when none.
#pragma once

#include <string>

#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"

namespace wb {

inline std::string cellErrorLine(const std::string& errorFile) {
    std::string err;
    try {
        err = readFile(errorFile);
    } catch (const std::exception&) {
        return {};
    }
    const auto line = err.substr(0, err.find('\n'));
    const std::string prefix = kCliErrorPrefix;
    return line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : line;
}

}  // namespace wb
