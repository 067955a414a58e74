// Progress of long work on the terminal: a redrawn bar when stderr is a terminal, plain lines otherwise
// (logs, CI, pipes), so scripts never see carriage returns.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "workbench/engine/Training.h"

class ProgressPrinter {
public:
    explicit ProgressPrinter(bool quiet);
    void update(const wb::TrainingProgress& p);
    // A corpus being tokenized into its store: done of total bytes, over its two passes.
    void tokenizing(const std::string& corpus, std::uint64_t done, std::uint64_t total);
    // A corpus read once for its overview (inspect): its bar, as tokenizing's.
    void reading(const std::string& corpus, std::uint64_t done, std::uint64_t total);
    void line(const std::string& text);  // a log line; keeps the bar below it
    void finish();

private:
    void drawBar(double fraction, const char* stats);  // the redrawn terminal line
    // A source read in `passes` passes, `done` of `total` bytes over them all.
    void sourceBar(const char* verb, int passes, const std::string& corpus, std::uint64_t done,
                   std::uint64_t total);

    bool m_tty = false;
    bool m_quiet = false;
    bool m_barShown = false;
    std::chrono::steady_clock::time_point m_lastPlain{};
    std::chrono::steady_clock::time_point m_tokenizingSince{};
};
