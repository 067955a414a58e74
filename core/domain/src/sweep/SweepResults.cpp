// A sweep's results and its column table (see SweepResults.h).
#include "workbench/domain/SweepResults.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <sstream>

#include "run/CsvText.h"

namespace fs = std::filesystem;

namespace wb {

namespace {

double mean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0 : s / static_cast<double>(v.size());
}

double stddev(const std::vector<double>& v) {  // sample standard deviation; 0 for one value
    if (v.size() < 2) return 0;
    const double m = mean(v);
    double s = 0;
    for (double x : v) s += (x - m) * (x - m);
    return std::sqrt(s / static_cast<double>(v.size() - 1));
}

// Counts (samples, threads) whole; measurements to six significant digits.
std::string resultNumber(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
        return std::to_string(static_cast<std::int64_t>(v));
    return csv::number(v, 6);
}

std::optional<double> when(bool present, double value) {
    return present ? std::optional<double>(value) : std::nullopt;
}

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

// Declarative table
std::vector<SweepColumn>& sweepColumns() {
    using V = const SweepRunView&;
    static std::vector<SweepColumn> columns{
        {"samples_per_s", "samples/s", 0, true, true, true, [](V r) { return r.compared.samplesPerSecond; }},
        {"us_per_sample", "µs/sample", 0, true, true, true, [](V r) { return r.compared.usPerSample; }},
        {"seconds_to_target", "s to loss {target}", 1, true, false, true,
         [](V r) { return when(r.compared.secondsToTarget >= 0, r.compared.secondsToTarget); }},
        {"best_val_loss", "best val loss", 3, true, false, true,
         [](V r) { return when(r.compared.validated, r.compared.bestValLoss); }},
        {"best_val_accuracy", "best val acc", 3, true, false, true,
         [](V r) { return when(r.compared.validated, r.compared.bestValAccuracy); }},
        {"best_val_bpc", "val bits/char", 3, true, false, true,
         [](V r) { return when(r.compared.bestValBpc >= 0, r.compared.bestValBpc); }},
        {"baseline_bpc", "5-gram bits/char", 3, true, false, true,
         [](V r) { return when(r.compared.baselineBpc >= 0, r.compared.baselineBpc); }},
        {"train_seconds", "train s", 1, true, false, true,
         [](V r) { return r.record.info.summary.trainSeconds; }},
        {"samples", "samples", 0, false, false, false,
         [](V r) { return static_cast<double>(r.record.info.summary.samples); }},
        {"peak_rss_mb", "peak RSS, MB", 0, false, false, true,
         [](V r) { return static_cast<double>(r.cell.peakRssBytes) / kMiB; }},
        {"peak_gpu_mb", "peak GPU, MB", 0, false, false, false,
         [](V r) { return static_cast<double>(r.record.info.peakGpuMemoryBytes) / kMiB; }},
        {"threads", "threads", 0, false, false, true,
         [](V r) { return static_cast<double>(r.record.info.threads); }},
        {"processes", "processes", 0, false, false, true,
         [](V r) { return static_cast<double>(r.record.info.worldSize); }},
    };
    return columns;
}

SweepMeasure SweepResultRow::measure(const std::string& key) const {
    const auto it = measures.find(key);
    return it == measures.end() ? SweepMeasure{} : it->second;
}

const SweepResultRow* SweepResults::runOf(int cell, int repeat) const {
    for (const auto& r : runs)
        if (r.cell == cell && r.repeat == repeat + 1) return &r;
    return nullptr;
}

std::string SweepResults::title(const SweepColumn& column) const {
    std::string text = column.title;
    const auto at = text.find("{target}");
    if (at != std::string::npos) text.replace(at, 8, csv::number(targetLoss, 3));
    return text;
}

namespace {

std::vector<std::string> axisValues(const SweepCell& c) {
    std::vector<std::string> v;
    for (const auto& kv : c.setting) v.push_back(kv.second);
    return v;
}

SweepResultRow runRow(const SweepCell& c, const SweepRunView& view, const std::vector<SweepColumn>& columns) {
    SweepResultRow row;
    row.cell = c.index;
    row.repeat = c.repeat + 1;
    row.values = axisValues(c);
    row.status = "done";
    row.runs = 1;
    for (const auto& column : columns)
        if (const auto value = column.read(view)) row.measures[column.key] = {*value, 0, true};
    if (view.compared.overlapped) row.overlap = view.compared.note;
    row.runDir = c.runDir;
    return row;
}

// The cell's grid point: each column's mean and standard deviation over the repeats that finished.
SweepResultRow cellRow(const Sweep& sweep, const SweepCell& c, const std::vector<SweepResultRow>& runs,
                       const std::vector<SweepColumn>& columns) {
    int planned = 0, failed = 0;
    for (const auto& other : sweep.cells)
        if (other.index == c.index) {
            ++planned;
            failed += other.state == CellState::Failed;
        }
    std::vector<const SweepResultRow*> rows;
    for (const auto& r : runs)
        if (r.cell == c.index) rows.push_back(&r);
    SweepResultRow row;
    row.aggregate = true;
    row.cell = c.index;
    row.values = axisValues(c);
    row.runs = static_cast<int>(rows.size());
    row.status = row.runs == planned ? "done" : failed ? "failed" : "incomplete";
    for (const auto& column : columns) {
        std::vector<double> v;
        for (const auto* r : rows)
            if (const auto m = r->measure(column.key); m.present) v.push_back(m.mean);
        if (!v.empty()) row.measures[column.key] = {mean(v), stddev(v), true};
    }
    for (const auto* r : rows)
        if (row.overlap.empty()) row.overlap = r->overlap;
    return row;
}

}  // namespace

SweepResults sweepResults(const std::string& dir, const Sweep& sweep) {
    SweepResults out;
    out.columns = sweepColumns();
    for (const auto& a : sweep.axes) out.axes.push_back(a.field);
    std::vector<RunRecord> records;
    std::vector<const SweepCell*> finished;
    for (const auto& c : sweep.cells) {
        if (c.state != CellState::Done) continue;
        records.push_back(loadRunFolder((fs::path(dir) / c.runDir).string()));
        finished.push_back(&c);
    }
    // The loss every run reached, read as Compare reads it: time to target is then defined once.
    out.targetLoss = sweep.targetLoss > 0 ? sweep.targetLoss : commonLossTarget(records);
    const auto compared = compareRuns(records, out.targetLoss);
    for (std::size_t i = 0; i < finished.size(); ++i)
        out.runs.push_back(runRow(*finished[i], {*finished[i], records[i], compared[i]}, out.columns));
    for (const auto& c : sweep.cells)
        if (c.repeat == 0) out.cells.push_back(cellRow(sweep, c, out.runs, out.columns));
    return out;
}

std::string SweepResults::toCsv() const {
    std::ostringstream out;
    out << "kind,cell,repeat";
    for (const auto& a : axes) out << "," << csv::field(a);
    out << ",status,runs";
    for (const auto& column : columns)
        out << "," << column.key << (column.spread ? "," + column.key + "_std" : "");
    out << ",run_dir\n";
    // A run row leaves the std columns empty; a measure a row does not have is empty.
    const auto row = [&](const SweepResultRow& r) {
        out << (r.aggregate ? "cell," : "run,") << r.cell << ","
            << (r.aggregate ? std::string() : std::to_string(r.repeat));
        for (const auto& v : r.values) out << "," << csv::field(v);
        out << "," << r.status << "," << r.runs;
        for (const auto& column : columns) {
            const auto m = r.measure(column.key);
            out << "," << (m.present ? resultNumber(m.mean) : "");
            if (column.spread) out << "," << (m.present && r.aggregate ? resultNumber(m.std) : "");
        }
        out << "," << csv::field(r.runDir) << "\n";
    };
    for (const auto& r : runs) row(r);
    for (const auto& r : cells) row(r);
    return out.str();
}

}  // namespace wb
