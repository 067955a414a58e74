// Which run is which and what may be compared with what: the user's name, notes and tags of a run
// (annotations.json), the default name, the comparability groups and the comparison table built on them.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "io/JsonDocument.h"
#include "workbench/domain/ConfigFields.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Format.h"
#include "workbench/domain/RemoveAll.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/RunLock.h"

namespace fs = std::filesystem;

namespace wb {
namespace {

using nlohmann::json;

// "2026-11-24T13:05:12Z" (UTC) as "11-24 14:05" in local time; "" when it does not parse.
std::string localStart(const std::string& iso, const char* format = "%m-%d %H:%M") {
    std::tm tm{};
    if (iso.size() < 19 || std::sscanf(iso.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon,
                                       &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
        return "";
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    const std::time_t t = timegm(&tm);
    std::tm local{};
    if (t == -1 || !localtime_r(&t, &local)) return "";
    char out[32];
    std::strftime(out, sizeof out, format, &local);
    return out;
}

std::string taskWord(Task task) { return task == Task::Classifier ? "classifier" : "LM"; }

double firstTime(const std::vector<MetricRecord>& series, bool (*reached)(double, double), double target) {
    for (const auto& r : series)
        if (std::isfinite(r.value) && reached(r.value, target)) return r.wallSeconds;
    return -1;
}

}  // namespace

std::string RunAnnotations::toJson() const {
    return json{{"name", name}, {"notes", notes}, {"tags", tags}}.dump(2) + "\n";
}

RunAnnotations RunAnnotations::fromJson(const std::string& text, const std::string& sourceName) {
    const json j = detail::parseJsonDocument(text, sourceName);
    if (!j.is_object())
        throw InputError(sourceName, 0,
                         "expected a JSON object (name, notes, tags), found " + detail::jsonTypeName(j));
    RunAnnotations a;
    auto text_of = [&](const char* key, std::string& out) {
        const auto it = j.find(key);
        if (it == j.end() || it->is_null()) return;
        if (!it->is_string()) throw InputError(sourceName, 0, std::string(key) + ": expected a string");
        out = it->get<std::string>();
    };
    text_of("name", a.name);
    text_of("notes", a.notes);
    if (const auto it = j.find("tags"); it != j.end() && !it->is_null()) {
        if (!it->is_array()) throw InputError(sourceName, 0, "tags: expected an array of strings");
        for (const auto& t : *it) {
            if (!t.is_string()) throw InputError(sourceName, 0, "tags: expected an array of strings");
            a.tags.push_back(t.get<std::string>());
        }
    }
    return a;
}

RunAnnotations readRunAnnotations(const std::string& dir) {
    const fs::path path = fs::path(dir) / runfiles::kAnnotations;
    std::error_code ec;
    if (!fs::exists(path, ec)) return {};
    return RunAnnotations::fromJson(readFile(path.string()), path.string());
}

namespace {

// Tags as a set: theirs, less the ones the editor removed, plus the ones it added (in the editor's order).
std::vector<std::string> mergedTags(const std::vector<std::string>& base,
                                    const std::vector<std::string>& edited,
                                    const std::vector<std::string>& theirs) {
    const auto has = [](const std::vector<std::string>& list, const std::string& tag) {
        return std::find(list.begin(), list.end(), tag) != list.end();
    };
    std::vector<std::string> out;
    for (const auto& tag : theirs)
        if (!(has(base, tag) && !has(edited, tag)) && !has(out, tag)) out.push_back(tag);
    for (const auto& tag : edited)
        if (!has(base, tag) && !has(out, tag)) out.push_back(tag);
    return out;
}

// Annotations are written only under the lock, so that a read-modify-write of one process never interleaves
// with another's (two windows on one runs folder, the CLI beside the app).
template <typename Change>
void underAnnotationsLock(const std::string& dir, Change change) {
    if (!isRunFolder(dir))
        throw InputError(dir, 0, "not a run folder (expected config.json and run.json in it)");
    const ScopedFileLock lock((fs::path(dir) / runfiles::kAnnotationsLock).string());
    const RunAnnotations now = readRunAnnotations(dir);
    writeFileAtomic((fs::path(dir) / runfiles::kAnnotations).string(), change(now).toJson());
}

}  // namespace

AnnotationsSaved saveRunAnnotations(const std::string& dir, const RunAnnotations& base,
                                    const RunAnnotations& edited) {
    AnnotationsSaved saved;
    underAnnotationsLock(dir, [&](const RunAnnotations& theirs) {
        RunAnnotations out = theirs;
        // A text field the editor changed is the editor's; one it left alone keeps the file's.
        const auto field = [&](const char* name, std::string RunAnnotations::*member) {
            if (edited.*member == base.*member) return;
            if (theirs.*member != base.*member && theirs.*member != edited.*member) {
                saved.overwritten.push_back(name);
                saved.theirs.*member = theirs.*member;
            }
            out.*member = edited.*member;
        };
        field("name", &RunAnnotations::name);
        field("notes", &RunAnnotations::notes);
        out.tags = mergedTags(base.tags, edited.tags, theirs.tags);
        saved.annotations = out;
        return out;
    });
    return saved;
}

void writeRunAnnotations(const std::string& dir, const RunAnnotations& annotations) {
    underAnnotationsLock(dir, [&](const RunAnnotations&) { return annotations; });
}

void removeRunFolder(const std::string& dir) {
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(dir, ec)))
        throw InputError(dir, 0, "is a symbolic link; delete the run folder it points to instead");
    if (!isRunFolder(dir))
        throw InputError(dir, 0, "not a run folder (expected config.json and run.json in it)");
    wb::removeAll(dir, ec);
    if (ec) throw TrainingError("cannot delete " + dir + ": " + ec.message());
}

std::string RunRecord::corpusName() const {
    fs::path corpus(config.data.corpus);
    if (corpus.empty()) return "corpus";
    // A prepared corpus's data sits in a folder of its name: ~/.cache/…/corpora/tang-quatrains-7/….json.
    std::string stem =
        corpus.filename().empty() ? corpus.parent_path().filename().string() : corpus.stem().string();
    return stem.empty() ? corpus.string() : stem;
}

std::string RunRecord::numberPrefix() const {
    return info.number > 0 ? "run " + std::to_string(info.number) + " · " : "";
}

std::string RunRecord::defaultName() const {
    std::string out = numberPrefix() + corpusName() + " " + taskWord(config.task) + " · " + label();
    if (const std::string start = localStart(info.startedAt); !start.empty()) out += " · " + start;
    return out;
}

// The config's own name is the experiment's (a preset's title, the app's folder id), shared by every run of
// it, so it does not tell runs apart.
// A name the user gave keeps the run's number before it (issue #63: a named run lost its "run N", the one
// thing every list, chart and bar shares).
std::string RunRecord::name() const {
    return annotations.name.empty() ? defaultName() : numberPrefix() + annotations.name;
}

std::string RunRecord::shortName() const {
    if (!annotations.name.empty()) return numberPrefix() + annotations.name;
    const std::string start = localStart(info.startedAt, "%m-%d %H:%M:%S");
    return numberPrefix() + (start.empty() ? corpusName() : start + " · " + corpusName());
}

std::string RunRecord::comparabilityKey() const {
    const ModelConfig& m = config.model;
    return toString(config.task) + "|" + corpusName() + "|" + configField("tokens").get(config) + "|" +
           std::to_string(m.embedding) + "|" + std::to_string(m.hidden) + "|" + std::to_string(m.layers) +
           "|" + (m.bidirectional ? "bi" : "uni");
}

std::string RunRecord::comparabilityLabel() const {
    const ModelConfig& m = config.model;
    return corpusName() + " · " + taskWord(config.task) + " · " + std::to_string(m.layers) + "×" +
           std::to_string(m.hidden) + (m.bidirectional ? " bidirectional" : "") + ", emb " +
           std::to_string(m.embedding) + ", " + configField("tokens").get(config) + " tokens";
}

namespace {

// A run's row before its group is known: throughput, best validation, bits per character.
ComparisonRow rowOf(const RunRecord& run) {
    ComparisonRow row;
    row.runId = run.info.id;
    row.label = run.label();
    row.name = run.name();
    row.device = run.info.device.empty() ? run.config.device.spec.id() : run.info.device;
    const RunSummary& s = run.info.summary;
    row.samplesPerSecond = s.samplesPerSecond;
    row.usPerSample =
        s.usPerSample > 0 ? s.usPerSample : (s.samplesPerSecond > 0 ? 1e6 / s.samplesPerSecond : 0);
    row.bestValLoss = s.bestValLoss;
    row.bestValAccuracy = s.bestValAccuracy;
    // Runs written before the summary was final (stopped, failed) may still have curves.
    if (row.bestValLoss == 0)
        for (const auto& r : seriesOf(run.metrics, "val", "loss"))
            if (std::isfinite(r.value) && (row.bestValLoss == 0 || r.value < row.bestValLoss))
                row.bestValLoss = r.value;
    if (row.bestValAccuracy == 0)
        for (const auto& r : seriesOf(run.metrics, "val", "accuracy"))
            if (std::isfinite(r.value)) row.bestValAccuracy = std::max(row.bestValAccuracy, r.value);
    // An old run.json says 0.0 for "never validated": with no val loss in its metrics either, it was not.
    row.validated = row.bestValLoss > 0;
    if (!row.validated) row.bestValAccuracy = 0;
    row.status = run.statusText();
    if (hasBitsPerCharacter(run.config)) {
        if (row.validated) row.bestValBpc = bitsFromNats(row.bestValLoss);
        if (run.baseline) row.baselineBpc = run.baseline->bitsPerToken;
    }
    return row;
}

// Speed-ups against the group's baseline: the chosen run when it is in this group, else the group's slowest
// measured run.
void markSpeedups(std::vector<ComparisonRow>& rows, const std::vector<std::size_t>& members, int group,
                  const CompareOptions& options) {
    long baseline = -1;
    const auto chosen = std::size_t(options.baseline);
    if (options.baseline >= 0 && chosen < rows.size() && rows[chosen].group == group &&
        rows[chosen].samplesPerSecond > 0) {
        baseline = options.baseline;
    } else {
        for (std::size_t i : members)
            if (rows[i].samplesPerSecond > 0 &&
                (baseline < 0 || rows[i].samplesPerSecond < rows[std::size_t(baseline)].samplesPerSecond))
                baseline = long(i);
    }
    for (std::size_t i : members) {
        rows[i].speedup = baseline >= 0 && rows[i].samplesPerSecond > 0
                              ? rows[i].samplesPerSecond / rows[std::size_t(baseline)].samplesPerSecond
                              : 0;
        rows[i].baseline = long(i) == baseline;
    }
}

// The loss curve a run's time to a loss target is read from: its val loss, or its train loss when it was
// never validated.
std::vector<MetricRecord> lossCurve(const RunRecord& run, bool* train = nullptr) {
    auto series = seriesOf(run.metrics, "val", "loss");
    if (train) *train = series.empty();
    return series.empty() ? seriesOf(run.metrics, "train", "loss") : series;
}

// The target every run of the group can be timed to: a loss the user chose, else per task the level
// the slowest-learning run reached (a language model's worst best val loss, a classifier's lowest
// best val accuracy), so "time to target" compares how fast each run got to the same place.
void timeToTarget(const std::vector<RunRecord>& runs, std::vector<ComparisonRow>& rows,
                  const std::vector<std::size_t>& members, const CompareOptions& options) {
    const bool classifier = runs[members.front()].config.task == Task::Classifier;
    double level = 0;
    if (options.targetLoss <= 0) {
        for (std::size_t i : members) {
            // The best of the curve the time is read from (metrics.csv rounds what run.json keeps exact),
            // so that every run surely reaches the level on its own curve.
            const auto series = seriesOf(runs[i].metrics, "val", classifier ? "accuracy" : "loss");
            double best = 0;
            for (const auto& r : series)
                if (std::isfinite(r.value) && r.value > 0)
                    best = best == 0 ? r.value
                                     : (classifier ? std::max(best, r.value) : std::min(best, r.value));
            if (best > 0)
                level = level == 0 ? best : (classifier ? std::min(level, best) : std::max(level, best));
        }
    }
    for (std::size_t i : members) {
        const auto& metrics = runs[i].metrics;
        if (options.targetLoss > 0) {
            bool train = false;
            const auto series = lossCurve(runs[i], &train);
            rows[i].target =
                std::string(train ? "train" : "val") + " loss ≤ " + formatNumber("%.3f", options.targetLoss);
            rows[i].secondsToTarget = firstTime(
                series, [](double v, double t) { return v <= t; }, options.targetLoss);
        } else if (level > 0 && classifier) {
            rows[i].target = "val accuracy ≥ " + formatNumber("%.1f %%", level * 100);
            rows[i].secondsToTarget = firstTime(
                seriesOf(metrics, "val", "accuracy"), [](double v, double t) { return v >= t - 1e-12; },
                level);
        } else if (level > 0) {
            rows[i].target = "val loss ≤ " + formatNumber("%.3f", level);
            rows[i].secondsToTarget = firstTime(
                seriesOf(metrics, "val", "loss"), [](double v, double t) { return v <= t + 1e-12; }, level);
        }
        // The group's level is the one every validated run reached: a run without validation has no curve to
        // reach it on, which is not the same as being too slow.
        if (rows[i].secondsToTarget < 0 && !rows[i].target.empty())
            rows[i].missed = options.targetLoss <= 0 && !rows[i].validated ? "not validated" : "not reached";
    }
}

// More threads or processes but slower than a run with fewer, on a machine that was busy when it
// started: the cores were not all ours, which the comparison should say rather than hide.
void noteBusyMachine(const std::vector<RunRecord>& runs, std::vector<ComparisonRow>& rows,
                     const std::vector<std::size_t>& members) {
    for (std::size_t i : members) {
        const RunInfo& info = runs[i].info;
        const std::int64_t workers = std::max<std::int64_t>(1, info.threads) * info.worldSize;
        if (info.loadAverage < 0 || info.hostCpus <= 0 ||
            info.loadAverage + double(workers) <= double(info.hostCpus) + 0.5)
            continue;
        for (std::size_t j : members) {
            const RunInfo& other = runs[j].info;
            const std::int64_t otherWorkers = std::max<std::int64_t>(1, other.threads) * other.worldSize;
            if (otherWorkers < workers && rows[j].samplesPerSecond > rows[i].samplesPerSecond &&
                rows[i].samplesPerSecond > 0) {
                rows[i].note = "the machine was busy when it started (load " +
                               formatNumber("%.1f", info.loadAverage) + " on " +
                               std::to_string(info.hostCpus) + " CPUs): its " + std::to_string(workers) +
                               " workers shared cores with other work";
                break;
            }
        }
    }
}

// Seconds since the epoch of an ISO 8601 UTC time ("2026-11-24T13:05:12Z"); -1 when it does not parse.
double epochSeconds(const std::string& iso) {
    std::tm tm{};
    if (iso.size() < 19 || std::sscanf(iso.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon,
                                       &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    const std::time_t t = timegm(&tm);
    return t == -1 ? -1 : static_cast<double>(t);
}

// Runs that trained at the same time on one host shared its cores: neither speed is the run's own, whatever
// their thread counts. Each such run names the others in its note.
void noteOverlaps(const std::vector<RunRecord>& runs, std::vector<ComparisonRow>& rows) {
    const auto overlaps = overlappingRuns(runs);
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (overlaps[i].empty()) continue;
        std::string names;
        for (const std::size_t j : overlaps[i]) names += (names.empty() ? "" : ", ") + runs[j].name();
        const std::string note = "trained at the same time as " + names + " on " + runs[i].info.host +
                                 ": they shared its cores, so its speed is not its own";
        rows[i].note = rows[i].note.empty() ? note : rows[i].note + "; " + note;
        rows[i].overlapped = true;
    }
}

}  // namespace

std::vector<std::vector<std::size_t>> overlappingRuns(const std::vector<RunRecord>& runs) {
    std::vector<std::vector<std::size_t>> out(runs.size());
    const double now = static_cast<double>(std::time(nullptr));
    const auto interval = [&](const RunInfo& info) {
        const double start = epochSeconds(info.startedAt);
        const double end = info.endedAt.empty() ? (info.status == RunStatus::Running ? now : -1)
                                                : epochSeconds(info.endedAt);
        return std::pair<double, double>{start, end};
    };
    for (std::size_t i = 0; i < runs.size(); ++i)
        for (std::size_t j = i + 1; j < runs.size(); ++j) {
            const RunInfo &a = runs[i].info, &b = runs[j].info;
            if (a.host.empty() || a.host != b.host) continue;
            const auto [aStart, aEnd] = interval(a);
            const auto [bStart, bEnd] = interval(b);
            if (aStart < 0 || aEnd < 0 || bStart < 0 || bEnd < 0) continue;
            // Whole seconds: one run starting in the second the other ended did not share the cores.
            if (aStart < bEnd && bStart < aEnd) {
                out[i].push_back(j);
                out[j].push_back(i);
            }
        }
    return out;
}

double commonLossTarget(const std::vector<RunRecord>& runs) {
    double target = 0;
    for (const auto& run : runs) {
        double best = 0;
        for (const auto& r : lossCurve(run))
            if (std::isfinite(r.value) && r.value > 0) best = best == 0 ? r.value : std::min(best, r.value);
        target = std::max(target, best);
    }
    return target;
}

std::vector<ComparisonRow> compareRuns(const std::vector<RunRecord>& runs, const CompareOptions& options) {
    std::vector<ComparisonRow> rows;
    std::map<std::string, int> groupOf;
    for (const auto& run : runs) {
        ComparisonRow row = rowOf(run);
        const auto [it, added] = groupOf.emplace(run.comparabilityKey(), int(groupOf.size()));
        row.group = it->second;
        row.groupLabel = run.comparabilityLabel();
        rows.push_back(std::move(row));
    }
    for (int g = 0; g < int(groupOf.size()); ++g) {
        std::vector<std::size_t> members;
        for (std::size_t i = 0; i < rows.size(); ++i)
            if (rows[i].group == g) members.push_back(i);
        markSpeedups(rows, members, g, options);
        timeToTarget(runs, rows, members, options);
        noteBusyMachine(runs, rows, members);
    }
    noteOverlaps(runs, rows);
    return rows;
}

}  // namespace wb
