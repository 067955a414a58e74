// One job's line of `scontrol show job -o` ("JobId=7 JobName=lstm-workbench-cell ... JobState=PENDING
// Reason=BeginTime ... Restarts=1 ... ExitCode=0:0 ..."), read as the sweep's Slurm launcher reads it: the
// scheduler's words a cell shows while it waits or runs, and the exit code it ended with.
#pragma once

#include <cctype>
#include <cstdlib>
#include <string>

namespace wb::slurmline {

// KEY's value ("" when the line has none). The line starts with a space (the launcher adds one), so that
// every field, the first one too, is found as " KEY=".
inline std::string field(const std::string& line, const std::string& key) {
    const auto at = line.find(" " + key + "=");
    if (at == std::string::npos) return {};
    const auto start = at + key.size() + 2;
    return line.substr(start, line.find(' ', start) - start);
}

// Whether JobState is one a job does not leave (PENDING, RUNNING, REQUEUED, COMPLETING... are not).
inline bool ended(const std::string& state) {
    for (const char* s : {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
                          "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"})
        if (state.rfind(s, 0) == 0) return true;
    return false;
}

// What a cell shows while its job is not ended: "pending (Resources)", "running", and for a job queued again
// (its time limit, a preemption) "requeued, pending (BeginTime)": Slurm holds it a while before it restarts.
inline std::string schedulerWords(const std::string& line) {
    std::string words = field(line, "JobState");
    for (auto& ch : words) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (const auto reason = field(line, "Reason"); !reason.empty() && reason != "None")
        words += " (" + reason + ")";
    if (const auto restarts = field(line, "Restarts"); !restarts.empty() && restarts != "0")
        words = "requeued, " + words;
    return words;
}

// An ended job's exit code: 0 when COMPLETED; else its script's code, 128 + the signal that ended it
// (ExitCode=CODE:SIGNAL), or 1 when neither says (cancelled while pending, a node's failure).
inline int exitCode(const std::string& line) {
    const std::string exit = field(line, "ExitCode");
    if (field(line, "JobState") == "COMPLETED") return 0;
    const int code = std::atoi(exit.c_str());
    const int signal = exit.find(':') == std::string::npos ? 0 : std::atoi(exit.c_str() + exit.find(':') + 1);
    return code != 0 ? code : signal != 0 ? 128 + signal : 1;
}

}  // namespace wb::slurmline
