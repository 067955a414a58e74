// Terminal progress bar or plain progress lines (see ProgressPrinter.h).
#include "ProgressPrinter.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "workbench/domain/Format.h"

namespace {
std::string duration(double s) {
    if (s < 0) return "--:--";
    const long t = std::lround(s);
    char buf[32];
    if (t >= 3600)
        std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
    else
        std::snprintf(buf, sizeof buf, "%02ld:%02ld", t / 60, t % 60);
    return buf;
}
}  // namespace

ProgressPrinter::ProgressPrinter(bool quiet) : m_tty(isatty(STDERR_FILENO) == 1), m_quiet(quiet) {}

void ProgressPrinter::drawBar(double fraction, const char* stats) {
    const int width = 30, filled = static_cast<int>(fraction * width);
    std::fprintf(stderr, "\r\033[K[%s%s] %3.0f%%  %s",
                 std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - filled), '.').c_str(), fraction * 100, stats);
    std::fflush(stderr);
    m_barShown = true;
}

void ProgressPrinter::update(const wb::TrainingProgress& p) {
    if (m_quiet) return;
    const double fraction =
        p.totalSteps > 0 ? std::min(1.0, static_cast<double>(p.step) / static_cast<double>(p.totalSteps)) : 0;
    // Before the first train-loss record (every log_every steps) there is no loss yet, and before the
    // throughput window opens (after the warm-up steps) no rate: a dash, not a 0 that reads as a
    // measurement. A recorded loss is a mean cross-entropy, never 0.
    char loss[32] = "loss -", rate[32] = "- samples/s";
    if (p.step > 0 && p.lastTrainLoss > 0) std::snprintf(loss, sizeof loss, "loss %.4f", p.lastTrainLoss);
    if (p.samplesPerSecond > 0) std::snprintf(rate, sizeof rate, "%.0f samples/s", p.samplesPerSecond);
    char stats[160];
    std::snprintf(stats, sizeof stats, "step %lld/%lld  epoch %.2f  %s  %s  ETA %s",
                  static_cast<long long>(p.step), static_cast<long long>(p.totalSteps), p.epoch, loss, rate,
                  duration(p.etaSeconds).c_str());
    if (m_tty) {
        drawBar(fraction, stats);
        return;
    }
    // Plain lines: at most one every 5 seconds, plus phase changes that matter.
    const auto now = std::chrono::steady_clock::now();
    if (p.phase == "training" && now - m_lastPlain < std::chrono::seconds(5)) return;
    if (p.phase != "training" && p.phase != "done") return;
    m_lastPlain = now;
    std::fprintf(stderr, "%3.0f%%  %s\n", fraction * 100, stats);
}

void ProgressPrinter::tokenizing(const std::string& corpus, std::uint64_t done, std::uint64_t total) {
    sourceBar("tokenizing", 2, corpus, done, total);
}

void ProgressPrinter::reading(const std::string& corpus, std::uint64_t done, std::uint64_t total) {
    sourceBar("reading", 1, corpus, done, total);
}

void ProgressPrinter::sourceBar(const char* verb, int passes, const std::string& corpus, std::uint64_t done,
                                std::uint64_t total) {
    if (m_quiet || total == 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (m_tokenizingSince == std::chrono::steady_clock::time_point{}) m_tokenizingSince = now;
    const double fraction = static_cast<double>(done) / static_cast<double>(total);
    const double seconds = std::chrono::duration<double>(now - m_tokenizingSince).count();
    // A corpus read in a moment shows nothing; a terminal gets the bar after a second, a log a line every 5
    // seconds.
    if (seconds < (m_tty ? 1.0 : 5.0)) return;
    // Each pass reads the whole source: its bytes per second are the bytes done over the passes.
    const double bytes = static_cast<double>(done) / passes, size = static_cast<double>(total) / passes;
    const double rate = seconds > 0 ? bytes / seconds : 0;
    char pass[32] = "";
    if (passes > 1)
        std::snprintf(pass, sizeof pass, "pass %d of %d, ",
                      std::min(passes, 1 + static_cast<int>(fraction * passes)), passes);
    char stats[200];
    std::snprintf(stats, sizeof stats, "%s %s: %s%s of %s, %s/s  ETA %s", verb, corpus.c_str(), pass,
                  wb::humanBytes(bytes).c_str(), wb::humanBytes(size).c_str(), wb::humanBytes(rate).c_str(),
                  duration(fraction > 0 ? seconds / fraction - seconds : -1).c_str());
    if (m_tty) {
        drawBar(fraction, stats);
        return;
    }
    if (now - m_lastPlain < std::chrono::seconds(5)) return;
    m_lastPlain = now;
    std::fprintf(stderr, "%3.0f%%  %s\n", fraction * 100, stats);
}

void ProgressPrinter::line(const std::string& text) {
    if (m_quiet) return;
    if (m_barShown) std::fprintf(stderr, "\r\033[K");
    std::fprintf(stderr, "%s\n", text.c_str());
}

void ProgressPrinter::finish() {
    if (m_barShown) std::fprintf(stderr, "\n");
    m_barShown = false;
}
