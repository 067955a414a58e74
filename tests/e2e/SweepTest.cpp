// `lstm-workbench-cli sweep` (issue #11) on tiny synthetic corpora: --help, --plan (an estimate, nothing
// created), a real grid with repeats (one run folder per cell, results.csv with run and cell rows), a sweep
// killed mid-way and resumed (finished cells untouched, the rest done), and bad axes (exit 2, one line naming
// the axis, nothing created).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "CliRunner.h"
#include "support/TestSupport.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using wbtest::shellQuote;

namespace {

const char* kTiny = " --seq-len 16 --embedding 8 --hidden 16 --layers 1 --threads 1 --warmup 1 --quiet";

std::vector<std::vector<std::string>> csvRows(const fs::path& file) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(wbtest::readText(file));
    for (std::string line; std::getline(in, line);) {
        std::vector<std::string> f;
        std::istringstream fields(line);
        for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
        if (!line.empty() && line.back() == ',') f.push_back("");
        rows.push_back(f);
    }
    return rows;
}

using wbtest::lineCount;

class Sweep : public ::testing::Test {
protected:
    void SetUp() override { wbtest::writeText(m_dir.path() / "pattern.txt", wbtest::patternText(80)); }
    std::string corpus() const { return shellQuote(m_dir.file("pattern.txt")); }
    fs::path path(const char* name) const { return m_dir.path() / name; }
    std::string quoted(const char* name) const { return shellQuote(path(name).string()); }

    // `lstm-workbench-cli ARGS` in the background (output to /dev/null unless ARGS redirects it); in a
    // process group of its own when asked, as the app starts it, so that only the test's signals reach it.
    static pid_t startCli(const std::string& args, bool ownGroup = false) {
        const std::string command = "exec " + std::string(wbtest::cliProgram()) + " " + args;
        const pid_t pid = fork();
        if (pid == 0) {
            if (ownGroup) setpgid(0, 0);
            execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
            _exit(127);
        }
        return pid;
    }
    // Polls sw/sweep.json every 10 ms for up to a minute until its text satisfies pred.
    bool waitForSweepFile(const std::function<bool(const std::string&)>& pred) const {
        const auto file = path("sw") / "sweep.json";
        for (int i = 0; i < 6000; ++i) {
            std::this_thread::sleep_for(10ms);
            if (fs::exists(file) && pred(wbtest::readText(file))) return true;
        }
        return false;
    }
    static bool has(const std::string& text, const char* state) {
        return text.find("\"" + std::string(state) + "\"") != std::string::npos;
    }
    wbtest::TempDir m_dir;
};

}  // namespace

TEST_F(Sweep, HelpNamesTheGridAndTheResume) {
    const auto r = wbtest::runCli("sweep --help");
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* word :
         {"--grid", "FIELD=V1,V2", "--repeats", "--plan", "--target-loss", "sweep folder", "--batch-size"})
        EXPECT_NE(r.out.find(word), std::string::npos) << word;
}

TEST_F(Sweep, PlanPrintsTheGridAndAnEstimateAndCreatesNothing) {
    const auto r = wbtest::runCli(
        "sweep " + corpus() + " --out " + quoted("sw") +
        " --grid batch_size=8,16 --grid hidden=8,16,32 --repeats 2 --max-steps 10 --plan --json" + kTiny);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["runs"], 12);
    EXPECT_GT(j["estimated_seconds"].get<double>(), 0);
    EXPECT_GT(j["calibration_us_per_sample"].get<double>(), 0);
    ASSERT_EQ(j["cells"].size(), 12u);
    // Larger models are estimated to take longer (the estimate scales with FLOPs).
    EXPECT_LT(j["cells"][0]["estimated_seconds"].get<double>(),
              j["cells"][4]["estimated_seconds"].get<double>());
    EXPECT_FALSE(fs::exists(path("sw")));
}

TEST_F(Sweep, AGridWithRepeatsTrainsEveryCellAndWritesResults) {
    const auto r =
        wbtest::runCli("sweep " + corpus() + " --out " + quoted("sw") +
                       " --grid batch_size=8,16 --grid device=cpu:1,cpu:2 --repeats 2 --max-steps 6"
                       " --validate-every 3 --json" +
                       kTiny);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["done"], 8);
    const auto sweep = nlohmann::json::parse(wbtest::readText(path("sw") / "sweep.json"));
    ASSERT_EQ(sweep["cells"].size(), 8u);
    for (const auto& cell : sweep["cells"]) {
        EXPECT_EQ(cell["state"], "done");
        EXPECT_GT(cell["peak_rss_bytes"].get<double>(), 1e6);
        const auto run = path("sw") / cell["run_dir"].get<std::string>();
        const auto config = nlohmann::json::parse(wbtest::readText(run / "config.json"));
        EXPECT_EQ(std::to_string(config["train"]["batch_size"].get<int>()), cell["setting"]["batch_size"]);
        // A run folder keeps "cpu:2" as device cpu with 2 threads.
        EXPECT_EQ("cpu:" + std::to_string(config["device"]["threads"].get<int>()), cell["setting"]["device"]);
        EXPECT_EQ(config["train"]["seed"], 42 + cell["repeat"].get<int>());
    }
    const auto rows = csvRows(path("sw") / "results.csv");
    ASSERT_EQ(rows.size(), 1u + 8u + 4u);
    const auto& header = rows[0];
    EXPECT_EQ(header[3], "batch_size");
    EXPECT_EQ(header[4], "device");
    int runRows = 0, cellRows = 0;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        ASSERT_EQ(rows[i].size(), header.size()) << i;
        if (rows[i][0] == "run") ++runRows;
        if (rows[i][0] == "cell") {
            ++cellRows;
            EXPECT_EQ(rows[i][5], "done");
            EXPECT_EQ(rows[i][6], "2");           // runs behind the mean
            EXPECT_GT(std::stod(rows[i][7]), 0);  // samples/s mean
            EXPECT_FALSE(rows[i][8].empty());     // and its standard deviation
        }
    }
    EXPECT_EQ(runRows, 8);
    EXPECT_EQ(cellRows, 4);
    // A character model's rows give its val loss in bits per character and the run's 5-gram baseline.
    const auto column = [&](const std::string& name) {
        return std::size_t(std::find(header.begin(), header.end(), name) - header.begin());
    };
    const auto loss = column("best_val_loss"), bpc = column("best_val_bpc"), base = column("baseline_bpc");
    ASSERT_LT(bpc, header.size());
    ASSERT_LT(base, header.size());
    EXPECT_EQ(header[bpc + 1], "best_val_bpc_std");
    for (std::size_t i = 1; i < rows.size(); ++i) {
        EXPECT_NEAR(std::stod(rows[i][bpc]), std::stod(rows[i][loss]) / std::log(2.0), 1e-4)
            << i;  // 6 digits
        EXPECT_GT(std::stod(rows[i][base]), 0) << i;
    }
#ifdef WORKBENCH_CLI_HAS_UI
    // The plots this grid can draw, PNG with CSV beside; time against data needs a data_fraction axis.
    for (const std::string id : {"throughput-vs-batch", "speedup", "pareto"}) {
        const auto png = path("sw") / "plots" / (id + ".png");
        ASSERT_TRUE(fs::exists(png)) << png;
        EXPECT_GT(fs::file_size(png), 5000u) << png;
        const auto csv = csvRows(path("sw") / "plots" / (id + ".csv"));
        ASSERT_GE(csv.size(), 2u) << id;
        EXPECT_EQ(csv[0][0], "series");
    }
    EXPECT_EQ(csvRows(path("sw") / "plots" / "throughput-vs-batch.csv").size(), 1u + 4u);  // 2 devices x 2
    EXPECT_FALSE(fs::exists(path("sw") / "plots" / "time-vs-data.png"));
#endif
}

TEST_F(Sweep, SigintToTheSweepAloneStopsTheRunningCellWithinABatch) {
    // The app stops a sweep by signalling its process alone (a terminal's Ctrl+C reaches the whole group):
    // the running cell must stop too, not train its 200,000 steps to the end.
    // A checkpoint every 4 steps: the running cell's metrics.csv is the sign that it is training.
    const pid_t pid = startCli("sweep " + corpus() + " --out " + quoted("sw") +
                                   " --grid hidden=8,12 --max-steps 200000 --validate-every 4" + kTiny +
                                   " 2>/dev/null >/dev/null",
                               /*ownGroup=*/true);
    const bool running = waitForSweepFile([](const std::string& t) { return has(t, "running"); });
    bool training = false;
    if (running) {
        // Hang guard: a minute for the cell's child to start and take its first steps.
        const auto sweep = nlohmann::json::parse(wbtest::readText(path("sw") / "sweep.json"));
        for (const auto& cell : sweep["cells"])
            if (cell["state"] == "running") {
                const auto metrics = path("sw") / cell["run_dir"].get<std::string>() / "metrics.csv";
                for (int i = 0; i < 6000 && !training; ++i) {
                    training = fs::exists(metrics);
                    if (!training) std::this_thread::sleep_for(10ms);
                }
            }
        kill(pid, SIGINT);
    }
    ASSERT_TRUE(running);
    ASSERT_TRUE(training) << "the running cell never wrote its first checkpoint";
    int status = 0;
    bool ended = false;
    for (int i = 0; i < 1200 && !ended; ++i) {  // 120 s; the whole cell would take many minutes
        ended = waitpid(pid, &status, WNOHANG) == pid;
        if (!ended) std::this_thread::sleep_for(100ms);
    }
    if (!ended) {
        kill(-pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    ASSERT_TRUE(ended) << "the sweep went on training after SIGINT";
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 130);
    const auto stopped = nlohmann::json::parse(wbtest::readText(path("sw") / "sweep.json"));
    for (const auto& cell : stopped["cells"]) EXPECT_EQ(cell["state"], "queued");  // redone on resume
}

TEST_F(Sweep, SigusrOnePausesAfterTheRunningCellAndResumeFinishes) {
    const pid_t pid =
        startCli("sweep " + corpus() + " --out " + quoted("sw") + " --grid hidden=8,12,16 --max-steps 8" +
                 kTiny + " 2>" + quoted("stderr") + " >/dev/null");
    const bool running = waitForSweepFile([](const std::string& t) { return has(t, "running"); });
    if (running) kill(pid, SIGUSR1);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(running);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 130);
    EXPECT_NE(wbtest::readText(path("stderr")).find("paused"), std::string::npos);
    // The running cell finished; no other started. Which cell ran when the signal came depends on when the
    // poll saw the file (usually the first; the second when the first was quick): done cells, then queued
    // ones, at least one of each, and nothing running or failed.
    const auto paused = nlohmann::json::parse(wbtest::readText(path("sw") / "sweep.json"));
    std::vector<std::string> states;
    for (const auto& cell : paused["cells"]) states.push_back(cell["state"]);
    ASSERT_EQ(states.size(), 3u);
    const auto firstQueued = std::find(states.begin(), states.end(), "queued");
    EXPECT_NE(firstQueued, states.begin()) << "the running cell was not finished";
    EXPECT_NE(firstQueued, states.end()) << "no cell was left queued";
    EXPECT_TRUE(std::all_of(states.begin(), firstQueued, [](const std::string& s) { return s == "done"; }));
    EXPECT_TRUE(std::all_of(firstQueued, states.end(), [](const std::string& s) { return s == "queued"; }));

    const auto r = wbtest::runCli("sweep " + quoted("sw") + " --json --quiet");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["done"], 3);
}

// The app's Keep Going: SIGUSR2 withdraws a pause not yet taken, even right after it (both pending at once:
// the handlers block each other so that they run in the order sent).
TEST_F(Sweep, SigusrTwoRightAfterSigusrOneWithdrawsThePause) {
    const pid_t pid =
        startCli("sweep " + corpus() + " --out " + quoted("sw") + " --grid hidden=8,12,16 --max-steps 8" +
                 kTiny + " 2>" + quoted("stderr") + " >/dev/null");
    const bool running = waitForSweepFile([](const std::string& t) { return has(t, "running"); });
    if (running) {
        kill(pid, SIGUSR1);
        kill(pid, SIGUSR2);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(running);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << wbtest::readText(path("stderr"));
    const auto done = nlohmann::json::parse(wbtest::readText(path("sw") / "sweep.json"));
    for (const auto& cell : done["cells"]) EXPECT_EQ(cell["state"], "done");
}

TEST_F(Sweep, AKilledSweepResumesWithoutRedoingFinishedCells) {
    const pid_t pid = startCli("sweep " + corpus() + " --out " + quoted("sw") +
                               " --grid hidden=8,12,16,20 --max-steps 30 --validate-every 10" + kTiny +
                               " 2>/dev/null >/dev/null");
    // Kill it (SIGKILL: no chance to tidy up) once the first cell is done and another has started.
    const auto file = path("sw") / "sweep.json";
    const bool killed =
        waitForSweepFile([](const std::string& t) { return has(t, "done") && has(t, "running"); });
    if (killed) kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    ASSERT_TRUE(killed) << "the sweep ended before it could be killed";
    const auto before = nlohmann::json::parse(wbtest::readText(file));
    std::vector<std::pair<fs::path, std::string>> finished;
    for (const auto& cell : before["cells"])
        if (cell["state"] == "done") {
            const auto run = path("sw") / cell["run_dir"].get<std::string>();
            finished.emplace_back(run,
                                  wbtest::readText(run / "metrics.csv") + wbtest::readText(run / "run.json"));
        }
    ASSERT_FALSE(finished.empty());
    ASSERT_LT(finished.size(), 4u);

    const auto r = wbtest::runCli("sweep " + quoted("sw") + " --json --quiet");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["done"], 4);
    for (const auto& [run, content] : finished)
        EXPECT_EQ(wbtest::readText(run / "metrics.csv") + wbtest::readText(run / "run.json"), content) << run;
    const auto after = nlohmann::json::parse(wbtest::readText(file));  // alive for the whole loop
    for (const auto& cell : after["cells"]) {
        EXPECT_EQ(cell["state"], "done");
        const auto run = path("sw") / cell["run_dir"].get<std::string>();
        EXPECT_EQ(nlohmann::json::parse(wbtest::readText(run / "run.json"))["status"], "completed") << run;
    }
    EXPECT_FALSE(fs::exists(path("sw") / ".cell-config.json"));
}

TEST_F(Sweep, BadAxesAreOneLineAndExitTwoBeforeAnythingIsCreated) {
    struct Case {
        std::string grid, message;
    } cases[] = {
        {"--grid nonsense=1,2", "unknown setting 'nonsense' (known: name, task"},
        {"--grid batch_size", "--grid batch_size: expected FIELD=V1,V2"},
        {"--grid batch_size=8,,16", "an empty value"},
        {"--grid batch_size=8,8", "a value is given twice"},
        {"--grid batch_size=eight", "train.batch_size: expected an integer, found 'eight'"},
        {"--grid batch_size=0,8",
         "the cell batch_size=0 is not a valid experiment: batch size must be at least 1"},
        {"--grid optimizer=adam,adagrad", "train.optimizer: unknown optimizer 'adagrad'"},
        {"--grid hidden=8 --grid hidden=16", "the axis is given twice"},
        {"", "a sweep needs at least one --grid"},
    };
    for (const auto& c : cases) {
        const auto r = wbtest::runCli("sweep " + corpus() + " --out " + quoted("sw") + " " + c.grid +
                                      " --max-steps 2" + kTiny);
        EXPECT_EQ(r.code, 2) << c.grid << ": " << r.err;
        EXPECT_EQ(lineCount(r.err), 1) << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << c.grid << ": " << r.err;
        EXPECT_FALSE(fs::exists(path("sw"))) << c.grid;
    }
    const auto notASweep = wbtest::runCli("sweep " + corpus());
    EXPECT_EQ(notASweep.code, 2);
    EXPECT_NE(notASweep.err.find("not a sweep folder"), std::string::npos) << notASweep.err;
}

// Issue #32: a sweep killed after a cell's run completed but before the sweep recorded it redid the cell.
// The moment is made exactly: a finished sweep whose sweep.json says the last cell was still running (what
// the kill leaves). Resumed, the completed run is adopted, byte for byte, and nothing trains again.
TEST_F(Sweep, ACompletedRunTheSweepHadNotRecordedIsAdoptedNotTrainedAgain) {
    auto r = wbtest::runCli("sweep " + corpus() + " --out " + quoted("sw") +
                            " --grid hidden=8,12 --max-steps 4" + kTiny);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto file = path("sw") / "sweep.json";
    auto sweep = nlohmann::json::parse(wbtest::readText(file));
    sweep["cells"][1]["state"] = "running";
    wbtest::writeText(file, sweep.dump(2));
    const auto run = path("sw") / sweep["cells"][1]["run_dir"].get<std::string>();
    const auto before = wbtest::readText(run / "metrics.csv") + wbtest::readText(run / "run.json");

    r = wbtest::runCli("sweep " + quoted("sw") + " --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["done"], 2);
    EXPECT_NE(r.err.find("had completed; kept"), std::string::npos) << r.err;
    EXPECT_EQ(wbtest::readText(run / "metrics.csv") + wbtest::readText(run / "run.json"), before)
        << "the completed run was trained again";

    // A run that had not completed (its run.json still says running) is trained again from the start.
    sweep = nlohmann::json::parse(wbtest::readText(file));
    sweep["cells"][1]["state"] = "running";
    wbtest::writeText(file, sweep.dump(2));
    auto info = nlohmann::json::parse(wbtest::readText(run / "run.json"));
    info["status"] = "running";
    wbtest::writeText(run / "run.json", info.dump(2));
    r = wbtest::runCli("sweep " + quoted("sw") + " --json --quiet");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(wbtest::readText(run / "run.json"))["status"], "completed");
    EXPECT_NE(wbtest::readText(run / "run.json"), info.dump(2));
}

// A damaged sweep.json: resuming says which file and why in one line, exit 2, and changes nothing.
TEST_F(Sweep, ATruncatedSweepFileIsOneLineAndNothingChanges) {
    auto r = wbtest::runCli("sweep " + corpus() + " --out " + quoted("sw") +
                            " --grid hidden=8,12 --max-steps 2" + kTiny);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto file = path("sw") / "sweep.json";
    const std::string whole = wbtest::readText(file);
    for (const std::string& damaged :
         {whole.substr(0, whole.size() / 2), std::string("{}"), std::string("[1, 2]"), std::string("")}) {
        wbtest::writeText(file, damaged);
        const auto listing = wbtest::listTree(path("sw"));
        r = wbtest::runCli("sweep " + quoted("sw"));
        EXPECT_EQ(r.code, 2) << damaged << ": " << r.err;
        EXPECT_EQ(lineCount(r.err), 1) << r.err;
        EXPECT_NE(r.err.find("sweep.json"), std::string::npos) << r.err;
        EXPECT_EQ(wbtest::readText(file), damaged);
        EXPECT_EQ(wbtest::listTree(path("sw")), listing);
    }
}

// A cell that fails (a sequence longer than the corpus's lines allow, found only when it trains): the sweep
// goes on, marks it failed with its error, exits 1; a resume tries it again.
TEST_F(Sweep, AFailedCellIsMarkedTheOthersRunAndAResumeTriesItAgain) {
    auto r = wbtest::runCli("sweep " + corpus() + " --out " + quoted("sw") +
                            " --grid seq_len=16,100000 --max-steps 2 --embedding 8 --hidden 16 --layers 1"
                            " --threads 1 --warmup 1 --quiet");
    EXPECT_EQ(r.code, 1) << r.err;
    const auto sweep = nlohmann::json::parse(wbtest::readText(path("sw") / "sweep.json"));
    ASSERT_EQ(sweep["cells"].size(), 2u);
    EXPECT_EQ(sweep["cells"][0]["state"], "done");
    EXPECT_EQ(sweep["cells"][1]["state"], "failed");
    EXPECT_FALSE(sweep["cells"][1].value("error", std::string()).empty()) << sweep.dump(2);
    r = wbtest::runCli("sweep " + quoted("sw") + " --quiet");
    EXPECT_EQ(r.code, 1) << "tried again, failed again: " << r.err;
    EXPECT_EQ(nlohmann::json::parse(wbtest::readText(path("sw") / "sweep.json"))["cells"][0]["state"],
              "done");
}

// The refusals that keep a sweep folder safe: an --out that holds something, a resume with a new grid, and a
// cell whose run_dir leaves the sweep's runs/ (the sweep removes a cell's folder before redoing it).
TEST_F(Sweep, RefusesANonEmptyOutANewGridOnResumeAndARunDirOutsideRuns) {
    fs::create_directories(path("full"));
    wbtest::writeText(path("full") / "keep.txt", "mine");
    auto r = wbtest::runCli("sweep " + corpus() + " --out " + quoted("full") +
                            " --grid hidden=8,12 --max-steps 2" + kTiny);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("already exists and is not empty"), std::string::npos) << r.err;
    EXPECT_EQ(wbtest::readText(path("full") / "keep.txt"), "mine");

    r = wbtest::runCli("sweep " + corpus() + " --out " + quoted("sw") + " --grid hidden=8,12 --max-steps 2" +
                       kTiny);
    ASSERT_EQ(r.code, 0) << r.err;
    r = wbtest::runCli("sweep " + quoted("sw") + " --grid hidden=4,8");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("leave out --grid"), std::string::npos) << r.err;

    fs::create_directories(path("victim"));
    wbtest::writeText(path("victim") / "precious.txt", "do not remove");
    auto sweep = nlohmann::json::parse(wbtest::readText(path("sw") / "sweep.json"));
    sweep["cells"][0]["state"] = "queued";
    sweep["cells"][0]["run_dir"] = "runs/../../victim";
    wbtest::writeText(path("sw") / "sweep.json", sweep.dump(2));
    r = wbtest::runCli("sweep " + quoted("sw"));
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("is not inside the sweep's runs/"), std::string::npos) << r.err;
    EXPECT_EQ(wbtest::readText(path("victim") / "precious.txt"), "do not remove");
}

// --target-loss: results.csv times every cell to that loss, not to the loss every cell reached (which each
// of these cells would have a time for): a loss none reaches leaves every time empty.
TEST_F(Sweep, ATargetLossTimesEveryCellToIt) {
    const auto r =
        wbtest::runCli("sweep " + corpus() + " --out " + quoted("sw") +
                       " --grid hidden=8,12 --max-steps 6 --validate-every 2 --target-loss 0.0001" + kTiny);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto rows = csvRows(path("sw") / "results.csv");
    ASSERT_GE(rows.size(), 3u);
    const auto& header = rows[0];
    const auto column = std::find(header.begin(), header.end(), "seconds_to_target");
    ASSERT_NE(column, header.end()) << wbtest::readText(path("sw") / "results.csv");
    const auto index = static_cast<std::size_t>(column - header.begin());
    for (std::size_t i = 1; i < rows.size(); ++i) {
        ASSERT_GT(rows[i].size(), index);
        EXPECT_EQ(rows[i][index], "") << "row " << i << " reached a loss of 0.0001";
    }
    EXPECT_DOUBLE_EQ(nlohmann::json::parse(wbtest::readText(path("sw") / "sweep.json"))["target_loss"],
                     0.0001);
}
