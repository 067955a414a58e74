// metrics.csv: exact round trip of records, quoting of odd run ids, and errors naming the bad line.
#include <gtest/gtest.h>

#include <cmath>

#include "workbench/domain/Errors.h"
#include "workbench/domain/Metrics.h"

namespace {

#define EXPECT_CONTAINS(haystack, needle) \
    EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "in: " << (haystack)

wb::MetricRecord record(std::int64_t step, const std::string& split, const std::string& metric,
                        double value) {
    wb::MetricRecord r;
    r.step = step;
    r.epoch = step / 7.0;
    r.samples = step * 32;
    r.wallSeconds = step * 0.123456789;
    r.split = split;
    r.metric = metric;
    r.value = value;
    return r;
}

std::string parseError(const std::string& text) {
    try {
        wb::parseMetricsCsv(text, "run/metrics.csv");
    } catch (const wb::InputError& e) {
        return e.what();
    }
    ADD_FAILURE() << "accepted " << text;
    return {};
}

TEST(Metrics, HeaderAndRowFormat) {
    EXPECT_EQ(wb::metricsCsvHeader(), "run_id,step,epoch,samples,wall_s,split,metric,value");
    wb::MetricRecord r{12, 0.5, 384, 1.25, "train", "loss", 2.302585093};
    EXPECT_EQ(wb::toCsvRow("run-1", r), "run-1,12,0.5,384,1.25,train,loss,2.30258509");
    r.samples = 12345678901;
    EXPECT_EQ(wb::toCsvRow("a,b \"c\"", r),
              "\"a,b \"\"c\"\"\",12,0.5,12345678901,1.25,train,loss,2.30258509");
}

TEST(Metrics, RoundTrip) {
    std::vector<wb::MetricRecord> records = {
        record(1, "train", "loss", 4.123456789), record(2, "val", "loss", 3.5),
        record(2, "val", "accuracy", 0.8125), record(3, "speed", "samples_per_s", 1234567.891)};
    const std::string id = "2024-05-01T12:00:00Z, cpu";
    std::string csv = wb::metricsCsvHeader() + "\n";
    for (const auto& r : records) csv += wb::toCsvRow(id, r) + "\n";
    std::string parsedId = "stale";
    const auto back = wb::parseMetricsCsv(csv, "m.csv", &parsedId);
    EXPECT_EQ(parsedId, id);
    ASSERT_EQ(back.size(), records.size());
    for (std::size_t k = 0; k < records.size(); ++k) {
        EXPECT_EQ(back[k].step, records[k].step);
        EXPECT_EQ(back[k].samples, records[k].samples);
        EXPECT_EQ(back[k].split, records[k].split);
        EXPECT_EQ(back[k].metric, records[k].metric);
        // %.9g keeps 9 significant digits.
        EXPECT_NEAR(back[k].epoch, records[k].epoch, 1e-8 * std::fabs(records[k].epoch) + 1e-12);
        EXPECT_NEAR(back[k].wallSeconds, records[k].wallSeconds, 1e-8 * records[k].wallSeconds);
        EXPECT_NEAR(back[k].value, records[k].value, 1e-8 * records[k].value);
    }
    // Header only, CRLF line endings, non-finite values.
    EXPECT_TRUE(wb::parseMetricsCsv(wb::metricsCsvHeader() + "\r\n", "m.csv", &parsedId).empty());
    EXPECT_EQ(parsedId, "");
    const auto nan =
        wb::parseMetricsCsv(wb::metricsCsvHeader() + "\r\nr,1,0,1,0,train,loss,nan\r\n", "m.csv");
    ASSERT_EQ(nan.size(), 1u);
    EXPECT_TRUE(std::isnan(nan[0].value));
    EXPECT_EQ(wb::toCsvRow("r", nan[0]), "r,1,0,1,0,train,loss,nan");
}

TEST(Metrics, BadFilesNameTheLine) {
    const std::string h = wb::metricsCsvHeader() + "\n";
    EXPECT_CONTAINS(parseError(""), "run/metrics.csv: file is empty");
    EXPECT_CONTAINS(parseError("step,value\n1,2\n"), "run/metrics.csv:1: expected the header run_id,step");
    EXPECT_CONTAINS(parseError(h + "r,1,0,32,0.1,train,loss,2\nr,2,0,64,0.2,train,loss\n"),
                    "run/metrics.csv:3: expected 8 columns");
    EXPECT_CONTAINS(parseError(h + "r,x,0,32,0.1,train,loss,2\n"),
                    "run/metrics.csv:2: step: expected an integer");
    EXPECT_CONTAINS(parseError(h + "r,1.5,0,32,0.1,train,loss,2\n"), "step: expected an integer");
    EXPECT_CONTAINS(parseError(h + "r,1,0,many,0.1,train,loss,2\n"), "samples: expected an integer");
    EXPECT_CONTAINS(parseError(h + "r,1,0,32,soon,train,loss,2\n"), "wall_s: expected a number");
    EXPECT_CONTAINS(parseError(h + "r,1,0,32,0.1,train,loss,\n"), "value: expected a number");
    EXPECT_CONTAINS(parseError(h + "r,1,0,32,0.1,,loss,2\n"), "split: expected a name");
}

TEST(Metrics, SeriesOfFiltersInOrder) {
    const std::vector<wb::MetricRecord> records = {
        record(1, "train", "loss", 3), record(1, "val", "loss", 2.9), record(2, "train", "loss", 2),
        record(2, "val", "accuracy", 0.5)};
    const auto train = wb::seriesOf(records, "train", "loss");
    ASSERT_EQ(train.size(), 2u);
    EXPECT_EQ(train[0].value, 3);
    EXPECT_EQ(train[1].value, 2);
    EXPECT_EQ(wb::seriesOf(records, "val", "loss").size(), 1u);
    EXPECT_TRUE(wb::seriesOf(records, "val", "perplexity").empty());
}

}  // namespace
