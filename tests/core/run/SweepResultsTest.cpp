// A sweep's results table read from its run folders (wb::sweepResults): cells that trained at the same time
// as another run on the same host are flagged, as Compare flags them (issue #35).
#include <gtest/gtest.h>

#include <filesystem>

#include "support/TestSupport.h"
#include "workbench/domain/Metrics.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/domain/SweepResults.h"

namespace fs = std::filesystem;

namespace {

// A finished cell's run folder: config.json, run.json (its host and start and end) and a val loss curve.
void writeCell(const fs::path& sweepDir, const wb::Sweep& sweep, const wb::SweepCell& cell,
               const std::string& started, const std::string& ended) {
    const fs::path dir = sweepDir / cell.runDir;
    fs::create_directories(dir);
    wb::RunInfo info;
    info.id = dir.filename().string();
    info.status = wb::RunStatus::Completed;
    info.device = "cpu";
    info.threads = 1;
    info.host = "laptop";
    info.startedAt = started;
    info.endedAt = ended;
    info.summary.samplesPerSecond = 100;
    info.summary.bestValLoss = 2.0;
    wbtest::writeText(dir / "config.json", sweep.cellConfig(cell).toJson());
    wbtest::writeText(dir / "run.json", info.toJson());
    wb::MetricRecord r{1, 0, 8, 1.0, "val", "loss", 2.0};
    wbtest::writeText(dir / "metrics.csv", wb::metricsCsvHeader() + "\n" + wb::toCsvRow(info.id, r) + "\n");
}

}  // namespace

TEST(SweepResults, CellsThatTrainedAtOnceAreFlagged) {
    wbtest::TempDir tmp;
    wb::ExperimentConfig base = wb::defaultConfig(wb::Task::LanguageModel);
    base.data.corpus = "corpus.txt";
    wb::Sweep sweep = wb::Sweep::plan(base, {{"batch_size", {"16", "32", "64"}}}, 1, 0);
    ASSERT_EQ(sweep.cells.size(), 3u);
    // The first two overlapped (another process trained them side by side); the third came after.
    const char* times[][2] = {{"2026-11-25T16:00:00Z", "2026-11-25T16:02:00Z"},
                              {"2026-11-25T16:01:00Z", "2026-11-25T16:03:00Z"},
                              {"2026-11-25T16:03:00Z", "2026-11-25T16:04:00Z"}};
    for (std::size_t i = 0; i < sweep.cells.size(); ++i) {
        sweep.cells[i].state = wb::CellState::Done;
        writeCell(tmp.path(), sweep, sweep.cells[i], times[i][0], times[i][1]);
    }
    const auto results = wb::sweepResults(tmp.path().string(), sweep);
    ASSERT_EQ(results.cells.size(), 3u);
    EXPECT_NE(results.cells[0].overlap.find("same time as"), std::string::npos) << results.cells[0].overlap;
    EXPECT_NE(results.cells[1].overlap.find("same time as"), std::string::npos) << results.cells[1].overlap;
    EXPECT_TRUE(results.cells[2].overlap.empty()) << results.cells[2].overlap;
    EXPECT_FALSE(results.runs[0].overlap.empty());
}
