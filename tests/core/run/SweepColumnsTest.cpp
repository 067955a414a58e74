// The sweep's column table (workbench/domain/SweepResults.h): results.csv read back from a committed sweep
// folder equals, column by column, the results.csv the CLI wrote for it; a column added to the table appears
// in results.csv with its cell rows' mean and standard deviation, and goes again when taken out.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/TestSupport.h"
#include "workbench/domain/SweepResults.h"

namespace {

// A sweep the CLI made and the repository keeps (tests/core/data is three folders below the root).
const std::string kHosts = wbtest::sourcePath("docs/benchmarks/network-scaling/poems/hosts");

std::vector<std::string> splitCsvLine(const std::string& line) {
    std::vector<std::string> out;
    std::string field;
    bool quoted = false;
    for (char c : line) {
        if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            out.push_back(field);
            field.clear();
        } else {
            field += c;
        }
    }
    out.push_back(field);
    return out;
}

// Rows by their kind, cell and repeat; each a map from header to field.
std::map<std::string, std::map<std::string, std::string>> table(const std::string& csv) {
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line);
    const auto header = splitCsvLine(line);
    std::map<std::string, std::map<std::string, std::string>> rows;
    while (std::getline(in, line)) {
        const auto fields = splitCsvLine(line);
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i) row[header[i]] = fields[i];
        rows[row["kind"] + "/" + row["cell"] + "/" + row["repeat"]] = row;
    }
    return rows;
}

}  // namespace

TEST(SweepColumns, ResultsCsvMatchesWhatTheCliWroteColumnByColumn) {
    const auto sweep = wb::loadSweep(kHosts);
    const auto now = table(wb::sweepResults(kHosts, sweep).toCsv());
    const auto then = table(wbtest::readText(kHosts + "/results.csv"));
    ASSERT_EQ(now.size(), then.size());
    int compared = 0;
    for (const auto& [key, row] : then) {
        ASSERT_TRUE(now.count(key)) << key;
        for (const auto& [column, value] : row) {
            ASSERT_TRUE(now.at(key).count(column)) << key << " lost the column " << column;
            EXPECT_EQ(now.at(key).at(column), value) << key << " " << column;
            ++compared;
        }
    }
    EXPECT_GT(compared, 100);
}

TEST(SweepColumns, AColumnAddedToTheTableIsInResultsCsvAndGoesWhenTakenOut) {
    auto& columns = wb::sweepColumns();
    const std::size_t before = columns.size();
    columns.push_back({"samples_per_thread", "samples/s per thread", 1, true, true, true,
                       [](const wb::SweepRunView& r) -> std::optional<double> {
                           return r.compared.samplesPerSecond / r.record.info.threads;
                       }});
    const auto sweep = wb::loadSweep(kHosts);
    const auto results = wb::sweepResults(kHosts, sweep);
    columns.resize(before);  // as it was, before anything can fail
    const auto rows = table(results.toCsv());
    const auto& cell = rows.at("cell/0/");
    ASSERT_TRUE(cell.count("samples_per_thread"));
    ASSERT_TRUE(cell.count("samples_per_thread_std"));
    EXPECT_NEAR(std::stod(cell.at("samples_per_thread")),
                results.cells[0].measure("samples_per_s").mean / 1.0, 1e-3);  // one thread a process
    EXPECT_FALSE(cell.at("samples_per_thread_std").empty());
    EXPECT_TRUE(rows.at("run/0/1").at("samples_per_thread_std").empty()) << "a run row has no spread";
    EXPECT_EQ(table(wb::sweepResults(kHosts, sweep).toCsv()).at("cell/0/").count("samples_per_thread"), 0u);
}
