// `lstm-workbench-cli prepare`: runs the corpus preparer this installation has (workbench/domain/Preparer.h)
// in place of this process, so its output, its exit code (0 done, 1 failed, 2 bad usage, 3 registry
// unreachable) and Ctrl+C (it cleans up its half-built folder) are the preparer's own.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "Commands.h"
#include "workbench/domain/Preparer.h"

std::vector<std::string> prepareArguments(const PrepareOptions& o) {
    std::vector<std::string> args;
    if (o.list) args.push_back("--list");
    if (o.json) args.push_back("--json");
    for (const auto& name : o.verify) args.insert(args.end(), {"--verify", name});
    if (!o.dest.empty()) args.insert(args.end(), {"--dest", o.dest});
    if (!o.offlineSource.empty()) args.insert(args.end(), {"--offline-source", o.offlineSource});
    if (o.latest) args.push_back("--latest");
    if (o.force) args.push_back("--force");
    if (!o.chinese.empty()) args.insert(args.end(), {"--chinese", o.chinese});
    if (!o.names.empty()) args.push_back("--");  // a name is never taken for an option
    args.insert(args.end(), o.names.begin(), o.names.end());
    return args;
}

int runPrepare(const PrepareOptions& o) {
    const auto preparer = wb::findPreparer();
    if (!preparer) {
        printError(
            "the corpus preparer is not installed (expected share/lstm-workbench/prepare.py next to this "
            "program's bin/ folder); reinstall the lstm-workbench package");
        return 1;
    }
    const auto argv = wb::preparerArgv(*preparer, prepareArguments(o));
    std::vector<char*> cargv;
    for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
    cargv.push_back(nullptr);
    ::setenv(wb::kPreparerProgVariable, "lstm-workbench-cli prepare", 1);
    ::execvp(cargv[0], cargv.data());
    const int error = errno;
    printError("cannot run " + argv[0] + " " + preparer->script + ": " + std::strerror(error) +
               (error == ENOENT ? " (the corpus preparer needs python3: apt install python3)" : ""));
    return 1;
}
