// Progress of long work on the terminal: a redrawn bar when stderr is a terminal, plain lines otherwise
// (logs, CI, pipes), so scripts never see carriage returns.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "workbench/Training.h"

class ProgressPrinter {
public:
    explicit ProgressPrinter(bool quiet);
    void update(const wb::TrainingProgress& p);
    // A corpus being tokenized into its store: done of total bytes, over its two passes.
    void tokenizing(const std::string& corpus, std::uint64_t done, std::uint64_t total);
    void line(const std::string& text);  // a log line; keeps the bar below it
    void finish();

private:
    void drawBar(double fraction, const char* stats);  // the redrawn terminal line

    bool m_tty = false;
    bool m_quiet = false;
    bool m_barShown = false;
    std::chrono::steady_clock::time_point m_lastPlain{};
    std::chrono::steady_clock::time_point m_tokenizingSince{};
};
