// metrics.csv in long format: one row per (step, split, metric), which every plotting tool and the
// comparison export can read without knowing which metrics a run recorded.
#include "workbench/domain/Metrics.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "corpus/DelimitedText.h"
#include "run/CsvText.h"
#include "workbench/domain/Errors.h"

namespace wb {
namespace {

using csv::field;
std::string metricNumber(double v) { return csv::number(v, 9); }  // metrics keep float precision

std::int64_t parseInteger(const std::string& s, const std::string& source, std::int64_t line,
                          const char* col) {
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno == ERANGE)
        throw InputError(source, line, std::string(col) + ": expected an integer, found '" + s + "'");
    return v;
}

double parseNumber(const std::string& s, const std::string& source, std::int64_t line, const char* col) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);  // accepts nan and inf, which a diverged run records
    if (s.empty() || *end != '\0')
        throw InputError(source, line, std::string(col) + ": expected a number, found '" + s + "'");
    return v;
}

}  // namespace

std::string metricsCsvHeader() { return "run_id,step,epoch,samples,wall_s,split,metric,value"; }

std::string toCsvRow(const std::string& runId, const MetricRecord& r) {
    return field(runId) + "," + std::to_string(r.step) + "," + metricNumber(r.epoch) + "," +
           std::to_string(r.samples) + "," + metricNumber(r.wallSeconds) + "," + field(r.split) + "," +
           field(r.metric) + "," + metricNumber(r.value);
}

std::vector<MetricRecord> parseMetricsCsv(const std::string& text, const std::string& sourceName,
                                          std::string* runId) {
    if (runId) runId->clear();
    std::string normalised = text;
    if (normalised.find('\r') != std::string::npos) {
        std::string t;
        t.reserve(normalised.size());
        for (std::size_t k = 0; k < normalised.size(); ++k) {
            if (normalised[k] == '\r') {
                t += '\n';
                if (k + 1 < normalised.size() && normalised[k + 1] == '\n') ++k;
            } else {
                t += normalised[k];
            }
        }
        normalised.swap(t);
    }
    const auto rows = detail::parseDelimited(normalised, ',', sourceName);
    if (rows.empty())
        throw InputError(sourceName, 0, "file is empty (expected the header " + metricsCsvHeader() + ")");
    std::string header;
    for (std::size_t k = 0; k < rows[0].fields.size(); ++k) header += (k ? "," : "") + rows[0].fields[k];
    // A comparison CSV (comparisonCsv) is a metrics.csv with the run's name and device after the value.
    const bool named = header == metricsCsvHeader() + ",run_name,device";
    if (header != metricsCsvHeader() && !named)
        throw InputError(sourceName, rows[0].line, "expected the header " + metricsCsvHeader());
    const std::size_t columns = named ? 10 : 8;
    std::vector<MetricRecord> out;
    out.reserve(rows.size() - 1);
    for (std::size_t k = 1; k < rows.size(); ++k) {
        const auto& f = rows[k].fields;
        const auto line = rows[k].line;
        if (f.size() != columns)
            throw InputError(sourceName, line,
                             "expected " + std::to_string(columns) +
                                 " columns (run_id, step, epoch, samples, wall_s, split, metric, value" +
                                 (named ? ", run_name, device" : "") + "), found " +
                                 std::to_string(f.size()));
        MetricRecord r;
        r.step = parseInteger(f[1], sourceName, line, "step");
        r.epoch = parseNumber(f[2], sourceName, line, "epoch");
        r.samples = parseInteger(f[3], sourceName, line, "samples");
        r.wallSeconds = parseNumber(f[4], sourceName, line, "wall_s");
        r.split = f[5];
        r.metric = f[6];
        if (r.split.empty())
            throw InputError(sourceName, line, "split: expected a name such as train or val");
        if (r.metric.empty()) throw InputError(sourceName, line, "metric: expected a name such as loss");
        r.value = parseNumber(f[7], sourceName, line, "value");
        if (runId) *runId = f[0];
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<MetricRecord> seriesOf(const std::vector<MetricRecord>& records, const std::string& split,
                                   const std::string& metric) {
    std::vector<MetricRecord> out;
    for (const auto& r : records)
        if (r.split == split && r.metric == metric) out.push_back(r);
    return out;
}

}  // namespace wb
