// `lstm-workbench-cli inspect CORPUS`: a corpus's statistics and first documents (its overview), and a
// prepared corpus's manifest.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "Commands.h"
#include "ProgressPrinter.h"
#include "workbench/domain/CorpusCatalog.h"
#include "workbench/domain/CorpusOverview.h"
#include "workbench/domain/RunFolder.h"

using nlohmann::json;

namespace {

// A run folder: what it is, its state as derived from its owner's lock (interrupted when nobody trains it but
// run.json still says running), how far it got and its best validation ("none" before the first).
int inspectRun(const InspectOptions& o) {
    const auto run = wb::loadRunFolder(o.corpus);
    const auto& s = run.info.summary;
    if (o.json) {
        json out = {{"run_dir", run.dir},
                    {"name", run.name()},
                    {"status", wb::toString(run.info.status)},
                    {"status_text", run.statusText()},
                    {"device", run.label()},
                    {"steps", s.steps},
                    {"has_checkpoint", run.hasCheckpoint},
                    {"summary", json::parse(s.toJson())}};
        if (run.info.status == wb::RunStatus::Interrupted) {
            out["interrupted_at_step"] = run.interruptedAt;
            out["resume_from"] = run.resumeFromCheckpoint ? "checkpoint" : json();
        }
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    std::printf("%s (run folder)\n", run.dir.c_str());
    std::printf("  name        %s\n", run.name().c_str());
    std::printf("  status      %s\n", run.statusText().c_str());
    if (const auto detail = run.statusDetail(); !detail.empty())
        std::printf("              %s\n", detail.c_str());
    std::printf("  device      %s\n", run.label().c_str());
    std::printf("  steps       %lld\n", static_cast<long long>(s.steps));
    if (s.validated())
        std::printf("  best val    loss %.4f, accuracy %.3f\n", s.bestValLoss, s.bestValAccuracy);
    else
        std::printf("  best val    none (never validated)\n");
    return 0;
}

}  // namespace

int runInspect(const InspectOptions& o) {
    if (wb::isRunFolder(o.corpus)) return inspectRun(o);
    const auto path = wb::resolveCorpusPath(o.corpus);
    // Plain text is read streamed on every core (a corpus larger than memory is inspected too), with a bar.
    ProgressPrinter progress(o.json);
    const auto overview =
        wb::readCorpusOverview(path, wb::corpusFormatFromString(o.format),
                               static_cast<std::size_t>(std::max<std::int64_t>(o.preview, 0)), 200,
                               [&](std::uint64_t done, std::uint64_t total) {
                                   progress.reading(o.corpus, done, total);
                                   return true;
                               });
    progress.finish();
    const auto& stats = overview.stats;
    const auto& preview = overview.preview;
    if (o.json) {
        json docs = json::array();
        for (const auto& d : preview)
            docs.push_back({{"text", d.text}, {"label", d.label}, {"title", d.title}, {"author", d.author}});
        json out = {{"path", path},
                    {"format", wb::toString(overview.format)},
                    {"documents", stats.documents},
                    {"characters", stats.characters},
                    {"distinct_characters", stats.distinctCharacters},
                    {"words", stats.words},
                    {"distinct_words", stats.distinctWords},
                    {"min_document_chars", stats.minDocumentChars},
                    {"max_document_chars", stats.maxDocumentChars},
                    {"mean_document_chars", stats.meanDocumentChars},
                    {"classes", stats.classCounts},
                    {"preview", docs}};
        if (auto entry = wb::findPreparedCorpus(o.corpus))
            out["manifest"] = json::parse(entry->manifestJson, nullptr, false);
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    std::printf("%s (%s)\n", path.c_str(), wb::toString(overview.format).c_str());
    std::printf("  documents   %lld\n", static_cast<long long>(stats.documents));
    std::printf("  characters  %lld (%lld distinct)\n", static_cast<long long>(stats.characters),
                static_cast<long long>(stats.distinctCharacters));
    std::printf("  words       %lld (%lld distinct)\n", static_cast<long long>(stats.words),
                static_cast<long long>(stats.distinctWords));
    std::printf("  document length  min %lld, mean %.1f, max %lld characters\n",
                static_cast<long long>(stats.minDocumentChars), stats.meanDocumentChars,
                static_cast<long long>(stats.maxDocumentChars));
    for (const auto& [label, count] : stats.classCounts)
        std::printf("  class %-20s %lld (%.1f%%)\n", label.c_str(), static_cast<long long>(count),
                    100.0 * static_cast<double>(count) /
                        static_cast<double>(std::max<std::int64_t>(stats.documents, 1)));
    for (const auto& d : preview) {
        std::string text = d.text;
        for (auto& ch : text)
            if (ch == '\n') ch = ' ';
        std::printf("  > %s%s\n", d.label.empty() ? "" : ("[" + d.label + "] ").c_str(), text.c_str());
    }
    return 0;
}
