// What every command of the CLI shares: its one-line errors.
#include <cstdio>

#include "Commands.h"
#include "workbench/Errors.h"

void printError(const std::string& message) {
    std::string oneLine = message;
    for (auto& ch : oneLine)
        if (ch == '\n' || ch == '\r') ch = ' ';
    std::fprintf(stderr, "%s%s\n", wb::kCliErrorPrefix, oneLine.c_str());
}
