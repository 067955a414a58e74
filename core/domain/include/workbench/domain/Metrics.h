// Metric records in the long format of metrics.csv: run_id,step,epoch,samples,wall_s,split,metric,value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

struct MetricRecord {
    std::int64_t step = 0;     // optimizer steps done
    double epoch = 0;          // fractional epochs done
    std::int64_t samples = 0;  // training samples seen
    double wallSeconds = 0;    // training wall time since start (validation included, setup excluded)
    std::string split;         // "train" | "val" | "speed"
    std::string
        metric;  // "loss", "accuracy", "perplexity", "samples_per_s", "tokens_per_s", "us_per_sample", "lr"
    double value = 0;
};

std::string metricsCsvHeader();  // "run_id,step,epoch,samples,wall_s,split,metric,value"
std::string toCsvRow(const std::string& runId, const MetricRecord& r);
// Parses a metrics.csv; throws InputError(path, line) on malformed rows.
std::vector<MetricRecord> parseMetricsCsv(const std::string& text, const std::string& sourceName,
                                          std::string* runId = nullptr);

// Values of one series in order, e.g. seriesOf(records, "val", "loss").
std::vector<MetricRecord> seriesOf(const std::vector<MetricRecord>& records, const std::string& split,
                                   const std::string& metric);

}  // namespace wb
