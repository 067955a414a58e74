// `lstm-workbench-cli compare RUN...`: runs side by side, in groups of comparable runs, each timed to its
// group's target, with speed-ups against a baseline; the table, a CSV of their metrics and the Compare tab's
// chart as a picture.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "Commands.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/Utf8.h"

#ifdef WORKBENCH_HAVE_CHARTS
#include "workbench/graphics/HeadlessExport.h"
#endif

using nlohmann::json;

namespace {

// "2.314 (5-gram 2.520)": a character model's bits per character next to its n-gram baseline's.
std::string bitsVersusBaseline(double bpc, double baseline) {
    char buf[64];
    if (bpc < 0 && baseline < 0) return "-";
    if (baseline < 0)
        std::snprintf(buf, sizeof buf, "%.3f", bpc);
    else if (bpc < 0)
        std::snprintf(buf, sizeof buf, "- (5-gram %.3f)", baseline);
    else
        std::snprintf(buf, sizeof buf, "%.3f (5-gram %.3f)", bpc, baseline);
    return buf;
}

// The target loss, and --baseline as the index of its run among the RUN_DIRs.
wb::CompareOptions comparisonOptions(const CompareOptions& o) {
    wb::CompareOptions options;
    options.targetLoss = o.targetLoss;
    if (!o.baseline.empty()) {
        const auto it = std::find(o.runDirs.begin(), o.runDirs.end(), o.baseline);
        if (it == o.runDirs.end())
            throw wb::InputError("--baseline " + o.baseline + " is not one of the RUN_DIRs given");
        options.baseline = int(it - o.runDirs.begin());
    }
    return options;
}

// --png: the Compare tab's chart, drawn by the app's own code offscreen. 0, or the exit code of a failure
// (already printed).
int drawComparisonPicture([[maybe_unused]] const CompareOptions& o) {  // unused without Qt
#ifdef WORKBENCH_HAVE_CHARTS
    std::string error;
    const int rc = wbui::exportComparison(o.runDirs, o.png, "", &error);
    if (rc != 0) {
        printError(error);
        return rc;
    }
#else
    throw wb::InputError("--png needs the GUI libraries: this lstm-workbench-cli was built without Qt");
#endif
    return 0;
}

json comparisonJson(const std::vector<wb::ComparisonRow>& rows) {
    json list = json::array();
    for (const auto& r : rows)
        list.push_back({{"run_id", r.runId},
                        {"name", r.name},
                        {"label", r.label},
                        {"device", r.device},
                        {"group", r.group},
                        {"group_label", r.groupLabel},
                        {"baseline", r.baseline},
                        {"samples_per_second", r.samplesPerSecond},
                        {"us_per_sample", r.usPerSample},
                        {"target", r.target},
                        {"seconds_to_target", r.secondsToTarget},
                        {"status", r.status},
                        {"missed_target", r.missed.empty() ? json() : json(r.missed)},
                        {"best_val_loss", r.validated ? json(r.bestValLoss) : json()},
                        {"best_val_accuracy", r.validated ? json(r.bestValAccuracy) : json()},
                        {"best_val_bpc", r.bestValBpc >= 0 ? json(r.bestValBpc) : json()},
                        {"baseline_bpc", r.baselineBpc >= 0 ? json(r.baselineBpc) : json()},
                        {"speedup", r.speedup},
                        {"note", r.note}});
    return json{{"runs", list}};
}

// One group's block of the table: its label and header, a line per run, the group's target.
void printGroup(const std::vector<wb::ComparisonRow>& rows, int g, int nameWidth) {
    bool first = true;
    // A character model's group also says how far each run got in bits per character, next to its
    // n-gram baseline (the same split for every run of the group).
    bool bits = false;
    for (const auto& r : rows) bits = bits || (r.group == g && (r.bestValBpc >= 0 || r.baselineBpc >= 0));
    for (const auto& r : rows) {
        if (r.group != g) continue;
        if (first) {
            std::printf("%s%s\n", g > 0 ? "\n" : "", r.groupLabel.c_str());
            std::printf("  %-*s  %-26s %11s %11s %10s %13s %9s%s\n", nameWidth, "run", "device", "samples/s",
                        "us/sample", "best val", "to target", "speed-up", bits ? "   val bpc (5-gram)" : "");
            first = false;
        }
        char target[32] = "-", best[32] = "none";
        if (r.secondsToTarget >= 0) std::snprintf(target, sizeof target, "%.1f s", r.secondsToTarget);
        if (!r.missed.empty()) std::snprintf(target, sizeof target, "%s", r.missed.c_str());
        if (r.validated) std::snprintf(best, sizeof best, "%.4f", r.bestValLoss);
        // printf pads by bytes; "·" is two, so pad the name by its characters.
        const int pad = nameWidth - int(wb::countCodePoints(r.name));
        std::string quality;
        if (bits) quality = "   " + bitsVersusBaseline(r.bestValBpc, r.baselineBpc);
        std::printf("  %s%*s  %-26s %11.1f %11.1f %10s %13s %8.2fx%s%s\n", r.name.c_str(), pad, "",
                    r.label.c_str(), r.samplesPerSecond, r.usPerSample, best, target, r.speedup,
                    quality.c_str(), r.baseline ? " (baseline)" : "");
        // A run that did not end as planned says so: its numbers are those of a part of the run.
        if (r.status != "completed") std::printf("    status: %s\n", r.status.c_str());
        if (!r.note.empty()) std::printf("    note: %s\n", r.note.c_str());
    }
    for (const auto& r : rows)
        if (r.group == g && !r.target.empty()) {
            std::printf("  target: %s\n", r.target.c_str());
            break;
        }
}

// One block per group of comparable runs: speed-ups and targets never cross groups.
void printComparison(const std::vector<wb::ComparisonRow>& rows) {
    const int groups =
        rows.empty() ? 0 : 1 + std::max_element(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
                                   return a.group < b.group;
                               })->group;
    int nameWidth = 8;
    for (const auto& r : rows) nameWidth = std::max(nameWidth, int(wb::countCodePoints(r.name)));
    for (int g = 0; g < groups; ++g) printGroup(rows, g, nameWidth);
}

}  // namespace

int runCompare(const CompareOptions& o) {
    std::vector<wb::RunRecord> runs;
    for (const auto& dir : o.runDirs) runs.push_back(wb::loadRunFolder(dir));
    const auto rows = wb::compareRuns(runs, comparisonOptions(o));
    if (!o.csv.empty()) wb::writeFileAtomic(o.csv, wb::comparisonCsv(runs));
    if (!o.png.empty())
        if (const int rc = drawComparisonPicture(o); rc != 0) return rc;
    if (o.json) {
        std::cout << comparisonJson(rows).dump(2) << "\n";
        return 0;
    }
    printComparison(rows);
    return 0;
}
