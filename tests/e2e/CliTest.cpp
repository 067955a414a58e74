// lstm-workbench-cli driven as a user would: train -> generate/classify -> resume -> compare, and bad input
// that must exit 2 with one line on stderr naming the file, leaving no run folder behind.
#include <gtest/gtest.h>

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <set>

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "CliRunner.h"
#include "support/TestSupport.h"
#include "workbench/domain/Meter.h"
#include "workbench/domain/RunFolder.h"

namespace fs = std::filesystem;

namespace {
using Result = wbtest::CliResult;
using wbtest::lineCount;
using wbtest::quote;
Result cli(const std::string& args) { return wbtest::runCli(args); }

const char* kTinyLm =
    " --seq-len 16 --embedding 16 --hidden 32 --layers 1 --batch-size 16 --lr 0.01 --threads 1"
    " --dropout 0.1 --lr-schedule constant --lr-warmup 0 --weight-decay 0";
const char* kTinyClassifier =
    " --task classify --tokens word --min-count 1 --seq-len 8 --embedding 16 --hidden 16 --layers 1 "
    "--batch-size 16"
    " --lr 0.01 --epochs 4 --threads 1";
}  // namespace

TEST(Cli, VersionAndHelp) {
    auto r = cli("--version");
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("lstm-workbench-cli"), std::string::npos);
    r = cli("--help");
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("train"), std::string::npos);
}

TEST(Cli, DevicesListsTheCpu) {
    const auto r = cli("devices --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["devices"][0]["id"], "cpu");
    EXPECT_FALSE(j["blas"].get<std::string>().empty());
    EXPECT_FALSE(j["cpu_kernels"].get<std::string>().empty());
}

// LSTM_WORKBENCH_CPU_CAPABILITY caps every kernel of ours, as on a CPU without the wider instructions: what
// a whole suite runs under to stand for an AVX2-only machine (docs/benchmarks.md, "Build and CI time").
TEST(Cli, CpuCapabilityCapsTheKernels) {
    auto kernels = [](const std::string& cap) {
        const auto r = wbtest::runCli("devices --json", "LSTM_WORKBENCH_CPU_CAPABILITY=" + cap + " ");
        EXPECT_EQ(r.code, 0) << r.err;
        return nlohmann::json::parse(r.out)["cpu_kernels"].get<std::string>();
    };
    EXPECT_EQ(kernels("default"),
              "portable (capped by LSTM_WORKBENCH_CPU_CAPABILITY=default), fp32 recurrence "
              "packed up to H = 256, no bf16 kernels");
    // The AVX2 kernel takes poems' H = 512 only where a core has 1 MiB of L2 (PackedWeight.cpp), and either
    // way when told to.
    const std::string avx2Limit = sysconf(_SC_LEVEL2_CACHE_SIZE) >= (1 << 20) ? "512" : "256";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        EXPECT_EQ(kernels("avx2"),
                  "avx2 (capped by LSTM_WORKBENCH_CPU_CAPABILITY=avx2), fp32 recurrence packed up "
                  "to H = " +
                      avx2Limit + ", no bf16 kernels");
        const auto on = wbtest::runCli("devices --json",
                                       "LSTM_WORKBENCH_CPU_CAPABILITY=avx2 "
                                       "LSTM_WORKBENCH_AVX2_PACKED_512=on ");
        EXPECT_NE(on.out.find("packed up to H = 512"), std::string::npos) << on.out;
        const auto off = wbtest::runCli("devices --json",
                                        "LSTM_WORKBENCH_CPU_CAPABILITY=avx2 "
                                        "LSTM_WORKBENCH_AVX2_PACKED_512=off ");
        EXPECT_NE(off.out.find("packed up to H = 256"), std::string::npos) << off.out;
    }
    const auto r = wbtest::runCli("devices", "LSTM_WORKBENCH_CPU_CAPABILITY=sse9 ");
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.err.find("LSTM_WORKBENCH_CPU_CAPABILITY=sse9 is not avx512, avx2 or default"),
              std::string::npos)
        << r.err;
}

// bench's JSON says how many of its timed steps split the batch unevenly between the threads (a worker
// measured clearly slower, as when another program shares its core): a run with such steps differs from an
// even one in the last digits, and a slow run in a series can be told apart. No split, no count.
TEST(Cli, BenchCountsTheStepsWithUnevenShares) {
    const auto bench = [](const std::string& device) {
        const auto r = wbtest::runCli(
            "bench --preset charrnn --batch-size 8 --steps 3 --warmup 1 --json --device " + device);
        EXPECT_EQ(r.code, 0) << r.err;
        return nlohmann::json::parse(r.out);
    };
    const auto split = bench("cpu:2");
    EXPECT_EQ(split["thread_split"], "batch");
    ASSERT_TRUE(split["uneven_steps"].is_number_integer()) << split.dump();
    EXPECT_GE(split["uneven_steps"].get<int>(), 0);
    EXPECT_LE(split["uneven_steps"].get<int>(), 3);
    const auto one = bench("cpu:1");
    EXPECT_TRUE(one["uneven_steps"].is_null()) << one.dump();
}

// "cpu" without a thread count trains on every core this process may use (LibTorch's own default was one
// thread on some machines), unless OMP_NUM_THREADS says otherwise; a count given is the count. run.json and
// the log say how many.
TEST(Cli, CpuMeansAllCoresByDefault) {
    cpu_set_t set;
    CPU_ZERO(&set);
    ASSERT_EQ(::sched_getaffinity(0, sizeof set, &set), 0);
    const int cores = CPU_COUNT(&set);
    wbtest::TempDir tmp;
    wbtest::writeText(tmp.path() / "p.txt", wbtest::patternText(60));
    int n = 0;
    const auto threads = [&](const std::string& env, const std::string& device) {
        const std::string out = tmp.file("run" + std::to_string(n++));
        const auto r =
            wbtest::runCli("train " + quote(tmp.file("p.txt")) + " --out " + quote(out) +
                               " --seq-len 16 --embedding 16 --hidden 32 --layers 1 --batch-size 16"
                               " --max-steps 2 --device " +
                               device,
                           env);
        EXPECT_EQ(r.code, 0) << r.err;
        const auto count = nlohmann::json::parse(wbtest::readText(fs::path(out) / "run.json"))["threads"];
        EXPECT_NE(r.err.find("on cpu with " + std::to_string(count.get<int>()) + " thread"),
                  std::string::npos)
            << r.err;
        return count.get<int>();
    };
    EXPECT_EQ(threads("unset OMP_NUM_THREADS; ", "cpu"), cores);
    EXPECT_EQ(threads("OMP_NUM_THREADS=1 ", "cpu"), 1);
    EXPECT_EQ(threads("unset OMP_NUM_THREADS; ", "cpu:1"), 1);
}

// Issue #63: `train --fit-minutes` times a few steps here, as the app's first run does, and cuts max steps to
// what fits; run.json's plan says so. A run that fits already trains as asked, with no plan.
TEST(Cli, FitMinutesCutsMaxStepsToWhatFitsAndRunJsonSaysSo) {
    wbtest::TempDir tmp;
    // Long enough for epochs of hundreds of steps: a validation and a checkpoint end each epoch, and an epoch
    // of a few steps would make the run mostly those.
    wbtest::writeText(tmp.path() / "p.txt", wbtest::patternText(2000));
    const std::string tiny =
        " --seq-len 16 --embedding 8 --hidden 16 --layers 1 --batch-size 8 --lr-warmup 0";
    const std::string out = tmp.file("fitted");
    const auto r = wbtest::runCli("train " + quote(tmp.file("p.txt")) + " --out " + quote(out) + tiny +
                                  " --max-steps 1000000 --fit-minutes 0.1");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto run = nlohmann::json::parse(wbtest::readText(fs::path(out) / "run.json"));
    const auto plan = run.at("plan");
    EXPECT_NEAR(plan.at("budget_seconds").get<double>(), 6.0, 1e-9);
    EXPECT_EQ(plan.at("steps_asked"), 1000000);
    const auto steps = plan.at("steps").get<long long>();
    EXPECT_GE(steps, 1);
    EXPECT_LT(steps, 1000000);
    EXPECT_LE(plan.at("estimated_seconds").get<double>(), 6.0 + 1e-9);
    EXPECT_GT(plan.at("calibration_us_per_sample").get<double>(), 0);
    EXPECT_EQ(run.at("summary").at("steps"), steps) << "trained the fitted steps";
    const auto config = nlohmann::json::parse(wbtest::readText(fs::path(out) / "config.json"));
    EXPECT_EQ(config.at("train").at("max_steps"), steps);
    EXPECT_NE(r.err.find("of the 1000000 steps asked, to fit 6 s on this machine"), std::string::npos)
        << r.err;

    const std::string asked = tmp.file("asked");
    const auto a = wbtest::runCli("train " + quote(tmp.file("p.txt")) + " --out " + quote(asked) + tiny +
                                  " --max-steps 3 --fit-minutes 10");
    ASSERT_EQ(a.code, 0) << a.err;
    EXPECT_TRUE(nlohmann::json::parse(wbtest::readText(fs::path(asked) / "run.json")).at("plan").is_null());
    EXPECT_NE(a.err.find("trained as asked"), std::string::npos) << a.err;
}

// `train --name` names the run as the app's Rename does: in annotations.json, so lists and compare show it.
TEST(Cli, TrainNameNamesTheRun) {
    wbtest::TempDir tmp;
    wbtest::writeText(tmp.path() / "p.txt", wbtest::patternText(60));
    const std::string out = tmp.file("run");
    auto r = cli("train " + quote(tmp.file("p.txt")) + " --out " + quote(out) + kTinyLm +
                 " --max-steps 2 --quiet --name " + quote("two steps, one thread"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(wb::readRunAnnotations(out).name, "two steps, one thread");
    r = cli("compare " + quote(out));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("two steps, one thread"), std::string::npos) << r.out;
}

// Issue #45: runs trained into one folder are numbered 1, 2, 3 in their run.json (two at once included, under
// the folder's numbering lock), and a resume keeps its number.
TEST(Cli, RunsInOneFolderAreNumberedInTurn) {
    wbtest::TempDir tmp;
    wbtest::writeText(tmp.path() / "p.txt", wbtest::patternText(60));
    const auto runs = tmp.path() / "runs";
    const auto train = [&](const std::string& id) {
        return "train " + quote(tmp.file("p.txt")) + " --out " + quote((runs / id).string() + "/") + kTinyLm +
               " --max-steps 2 --quiet";
    };
    ASSERT_EQ(cli(train("first")).code, 0);
    // Two at once: a shell runs both, each waits its turn for the lock.
    const std::string program = wbtest::cliProgram();
    ASSERT_EQ(
        std::system(
            (program + " " + train("second") + " & " + program + " " + train("third") + " & wait").c_str()),
        0);
    std::set<std::int64_t> numbers;
    for (const auto* id : {"first", "second", "third"})
        numbers.insert(wb::loadRunFolder((runs / id).string()).info.number);
    EXPECT_EQ(numbers, (std::set<std::int64_t>{1, 2, 3}));
    EXPECT_EQ(wb::loadRunFolder((runs / "first").string()).info.number, 1);
    ASSERT_EQ(cli("resume " + quote((runs / "first").string()) + " --max-steps 4 --quiet").code, 0);
    EXPECT_EQ(wb::loadRunFolder((runs / "first").string()).info.number, 1);
}

// `prepare` runs the corpus preparer (from a build: the source tree's) with the arguments given, under the
// CLI's name, and its exit codes come through: 0, and 2 for a corpus it does not know.
TEST(Cli, PrepareRunsThePreparer) {
    wbtest::TempDir cache;
    auto r = cli("prepare --list --json --dest " + quote(cache.str()));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["cache"], cache.str());
    EXPECT_EQ(j["corpora"][0]["name"], "tang-quatrains-7");
    EXPECT_FALSE(j["corpora"][0]["prepared"].get<bool>());
    r = cli("prepare nonesuch --dest " + quote(cache.str()));
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("lstm-workbench-cli prepare: error: unknown corpus 'nonesuch'"), std::string::npos)
        << r.err;
    EXPECT_EQ(wbtest::listTree(cache.path()), std::vector<std::string>{});
    r = cli("prepare --chinese klingon tang-poems");
    EXPECT_EQ(r.code, 2);
    r = wbtest::runCli("prepare --list", "LSTM_WORKBENCH_PREPARER=" + quote(cache.file("missing.py")) + " ");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("missing.py"), std::string::npos) << r.err;
}

// Another BLAS (the reference one, put first as scripts/bench-report.sh does) cannot take a thread count. The
// run goes on, but `devices`, the run's log and run.json say so; a 1-thread run's record has nothing to
// correct, and with OpenBLAS nothing is said.
TEST(Cli, ABlasWhoseThreadsCannotBeSetIsSaidNotHidden) {
    const auto plain = nlohmann::json::parse(cli("devices --json").out);
    // PyTorch's own LibTorch links MKL in, whose threads are LibTorch's: no libblas.so.3 to swap.
    if (plain["blas"].get<std::string>().rfind("MKL", 0) == 0) {
        EXPECT_EQ(plain["blas_threads_settable"], true);
        GTEST_SKIP() << "LibTorch here links its own BLAS: " << plain["blas"];
    }
    // With the BLAS install-deps.sh installs, OpenBLAS is named and its threads can be set.
    if (fs::exists("/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3") &&
        fs::canonical("/usr/lib/x86_64-linux-gnu/libblas.so.3").string().find("openblas") !=
            std::string::npos) {
        EXPECT_EQ(plain["blas"].get<std::string>().rfind("OpenBLAS", 0), 0u) << plain["blas"];
        EXPECT_EQ(plain["blas_threads_settable"], true);
    }
    const std::string refblas = "/usr/lib/x86_64-linux-gnu/blas";
    if (!fs::exists(refblas + "/libblas.so.3")) GTEST_SKIP() << "the reference BLAS is not in " << refblas;
    const auto env = "LD_LIBRARY_PATH=" + quote(refblas) + " ";

    auto r = wbtest::runCli("devices --json", env);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["blas_threads_settable"], false);
    r = wbtest::runCli("devices", env);
    EXPECT_NE(r.out.find("thread count cannot be set"), std::string::npos) << r.out;

    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(40));
    const std::string tiny =
        " --seq-len 16 --embedding 16 --hidden 16 --layers 1 --batch-size 16 --max-steps 2";
    for (int threads : {2, 1}) {
        SCOPED_TRACE(std::to_string(threads) + " thread(s)");
        const auto run = dir.file("run" + std::to_string(threads));
        r = wbtest::runCli("train " + quote(dir.file("pattern.txt")) + " --out " + quote(run) + tiny +
                               " --threads " + std::to_string(threads),
                           env);
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.err.find("thread count cannot be set"), std::string::npos) << r.err;
        const auto info = nlohmann::json::parse(wbtest::readText(fs::path(run) / "run.json"));
        EXPECT_EQ(info["blas_threads"], -1);
        if (threads == 1) {
            EXPECT_TRUE(info["warnings"].empty()) << info["warnings"];
        } else {
            ASSERT_EQ(info["warnings"].size(), 1u) << info["warnings"];
            EXPECT_NE(info["warnings"][0].get<std::string>().find("2 threads were asked for, but"),
                      std::string::npos);
        }
    }
}

// Generated poems are checked against the tone and rhyme tables beside the corpus the run was trained on.
TEST(Cli, GeneratedPoemsAreCheckedWithTheCorpusTables) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "poems.json", wbtest::quatrainJson(80));
    wbtest::writeVerseTables(dir.path());
    auto r = cli("train " + quote(dir.file("poems.json")) + " --out " + quote(dir.file("run")) + kTinyLm +
                 " --max-steps 20 --quiet");
    ASSERT_EQ(r.code, 0) << r.err;

    r = cli("generate " + quote(dir.file("run")) + " --form quatrain7 --samples 3 --rng-seed 5 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["verse"].size(), 3u) << r.out;
    int passed = 0;
    for (const auto& v : j["verse"]) {
        EXPECT_EQ(v["form"], "七绝");
        EXPECT_TRUE(v["summary"].get<std::string>().rfind("七绝 · ", 0) == 0) << v["summary"];
        EXPECT_EQ(v["rules"].size(), 10u);
        EXPECT_TRUE(v["rules"].contains("novelty"));
        for (const auto& violation : v["violations"]) {
            EXPECT_GE(violation["line"].get<int>(), 0);
            EXPECT_LT(violation["line"].get<int>(), 4);
            EXPECT_FALSE(violation["explanation"].get<std::string>().empty());
        }
        passed += v["passed"].get<bool>();
    }
    EXPECT_EQ(j["verse_passed"], passed);

    r = cli("generate " + quote(dir.file("run")) + " --form quatrain7 --samples 2 --rng-seed 5");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("[七绝 · "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" of 2 poems pass every rule"), std::string::npos) << r.out;
    // Free text is not verse: no check. Its score counts the seed too, so there is always a token to score.
    r = cli("generate " + quote(dir.file("run")) + " --seed-text 春 --length 20 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(nlohmann::json::parse(r.out).contains("verse"));
    const auto free = nlohmann::json::parse(r.out)["scores"][0];
    EXPECT_GE(free["tokens"].get<int>(), 1) << free;
    EXPECT_LT(free["log_probability"].get<double>(), 0) << free;

    // Strict meter: every poem passes, with its pattern and the model's probability of it.
    r = cli("generate " + quote(dir.file("run")) +
            " --form regulated7 --meter strict --samples 6 --temperature 1.5 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto strict = nlohmann::json::parse(r.out);
    EXPECT_EQ(strict["meter"], "strict");
    EXPECT_EQ(strict["verse_passed"], 6) << r.out;
    ASSERT_EQ(strict["scores"].size(), 6u);
    for (const auto& score : strict["scores"]) {
        EXPECT_GT(score["bits_per_token"].get<double>(), 0);
        EXPECT_NO_THROW(wb::meterPatternFromString(score["pattern"].get<std::string>())) << score;
    }
    r = cli("generate " + quote(dir.file("run")) +
            " --form quatrain5 --meter strict --pattern oblique-start");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("passes every rule · 仄起首句不入韵 · "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("verse: 1 of 1 poems pass every rule"), std::string::npos) << r.out;
    // Misuse says what to do.
    r = cli("generate " + quote(dir.file("run")) + " --form quatrain7 --pattern level-start");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("add --meter strict"), std::string::npos) << r.err;
    r = cli("generate " + quote(dir.file("run")) + " --meter strict");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("strict meter is for poems"), std::string::npos) << r.err;
}

// A poems JSON of the user's own: with no tables beside it, `verse` uses the corpus cache's shared ones, and
// says which, in which script; before any Tang corpus left them there, it says how to get them.
TEST(Cli, VerseOfAUsersPoemCorpusUsesTheSharedTables) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "mine.json", wbtest::quatrainJson(12));
    const std::string cache = "LSTM_WORKBENCH_DATA=" + quote(dir.file("cache")) + " ";
    auto r = wbtest::runCli("verse " + quote(dir.file("mine.json")), cache);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("prepare tang-quatrains-7"), std::string::npos) << r.err;
    wbtest::writeVerseTables(dir.path() / "cache" / "verse-tables");
    r = wbtest::runCli("verse " + quote(dir.file("mine.json")) + " --json", cache);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["poems"], 12);
    EXPECT_EQ(j["tables"], (dir.path() / "cache" / "verse-tables").string());
    EXPECT_EQ(j["script"], "traditional");
    EXPECT_FALSE(j["novelty_judged"].get<bool>()) << "its lines are its own";
    EXPECT_EQ(j["forms"]["七绝"], 12);
}

// Without tables for the corpus there is nothing to follow: strict meter says where they come from. Once a
// Tang corpus has left the shared tables in the corpus cache, the same poem corpus has them.
TEST(Cli, StrictMeterWithoutTablesIsAClearError) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "poems.json", wbtest::quatrainJson(40));
    const std::string cache = "LSTM_WORKBENCH_DATA=" + quote(dir.file("cache")) + " ";
    auto r = cli("train " + quote(dir.file("poems.json")) + " --out " + quote(dir.file("run")) + kTinyLm +
                 " --max-steps 5 --quiet");
    ASSERT_EQ(r.code, 0) << r.err;
    r = wbtest::runCli("generate " + quote(dir.file("run")) + " --form quatrain7 --meter strict", cache);
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("prepare tang-quatrains-7"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    wbtest::writeVerseTables(dir.path() / "cache" / "verse-tables");
    r = wbtest::runCli("generate " + quote(dir.file("run")) + " --form quatrain7 --meter strict --json",
                       cache);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto strict = nlohmann::json::parse(r.out);  // kept: a range-for over a temporary's member dangles
    ASSERT_FALSE(strict["verse"].empty());
    for (const auto& v : strict["verse"]) EXPECT_TRUE(v["passed"].get<bool>()) << v;
}

// Issue #32: strict meter with a vocabulary short of rhyme characters. With one rhyme group of two level
// characters (東, 風) a quatrain can rhyme lines 2 and 4 but not line 1 as well: an unrhymed first line
// works, an explicit rhymed pattern is refused naming what it needs; with one level character in the group,
// no quatrain can rhyme at all, and strict meter says so before generating anything.
TEST(Cli, StrictMeterWithFewRhymeCharactersSaysWhatAPatternNeeds) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "poems.json", wbtest::quatrainJson(40));
    wbtest::writeVerseTables(dir.path());
    wbtest::writeText(dir.path() / "rhymes.json", R"({"format": "lstm-workbench rhymes", "version": 1, )"
                                                  R"("groups": [{"name": "東", "traditional": "東風"}]})");
    auto r = cli("train " + quote(dir.file("poems.json")) + " --out " + quote(dir.file("run")) + kTinyLm +
                 " --max-steps 5 --quiet");
    ASSERT_EQ(r.code, 0) << r.err;
    r = cli("generate " + quote(dir.file("run")) +
            " --form quatrain7 --meter strict --pattern level-start --samples 3 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["verse_passed"], 3) << r.out;
    r = cli("generate " + quote(dir.file("run")) +
            " --form quatrain7 --meter strict --pattern level-start-rhymed");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("needs a rhyme group of 3 level characters"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    // Auto picks a pattern the vocabulary can rhyme.
    r = cli("generate " + quote(dir.file("run")) + " --form quatrain7 --meter strict --samples 4 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto autoPatterns = nlohmann::json::parse(r.out);  // kept: a loop over a temporary's member dangles
    ASSERT_EQ(autoPatterns["scores"].size(), 4u);
    for (const auto& score : autoPatterns["scores"]) {
        const auto pattern = score["pattern"].get<std::string>();
        EXPECT_TRUE(pattern == "level-start" || pattern == "oblique-start") << pattern;
    }

    wbtest::writeText(dir.path() / "rhymes.json", R"({"format": "lstm-workbench rhymes", "version": 1, )"
                                                  R"("groups": [{"name": "東", "traditional": "東"}]})");
    r = cli("generate " + quote(dir.file("run")) + " --form quatrain7 --meter strict");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("no rhyme group has 2 level characters"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

// The experiment is named after the corpus given, not after the default corpus whose defaults it starts from
// (issue #30: an English text file's run was called "Tang quatrains (char LM)"); --name still names it.
TEST(Cli, AnExperimentIsNamedAfterItsCorpus) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "words.txt", wbtest::patternText(40));
    auto r = cli("train " + quote(dir.file("words.txt")) + " --out " + quote(dir.file("run")) + kTinyLm +
                 " --max-steps 1 --quiet");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(wbtest::readText(dir.path() / "run" / "config.json"))["name"],
              "words (language model)");
    r = cli("train " + quote(dir.file("words.txt")) + " --out " + quote(dir.file("named")) + kTinyLm +
            " --max-steps 1 --quiet --name mine");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(wbtest::readText(dir.path() / "named" / "config.json"))["name"], "mine");
}

TEST(Cli, InspectShowsStatisticsAndClasses) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "reviews.tsv", wbtest::separableTsv(40));
    const auto r = cli("inspect --json " + quote(dir.file("reviews.tsv")));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["documents"], 40);
    EXPECT_EQ(j["classes"]["pos"], 20);
    EXPECT_EQ(j["format"], "tsv");
}

TEST(Cli, TrainGenerateResumeCompare) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(120));
    auto r = cli("train " + quote(dir.file("pattern.txt")) + " --out " + quote(dir.file("run")) + kTinyLm +
                 " --max-steps 120 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["status"], "completed");
    EXPECT_LT(j["summary"]["final_train_loss"].get<double>(), 0.6);
    EXPECT_FALSE(j.contains("evaluation"));  // a language model has no classes to evaluate
    // A character model: its best val loss in bits per character, and the n-gram baseline beside it.
    const double bpc = j["summary"]["best_val_bpc"].get<double>();
    EXPECT_NEAR(bpc, j["summary"]["best_val_loss"].get<double>() / std::log(2.0), 1e-9);
    const double baseline = j["baseline"]["bits_per_token"].get<double>();
    EXPECT_GT(baseline, 0);
    EXPECT_EQ(j["baseline"]["order"], 5);

    r = cli("generate " + quote(dir.file("run")) + " --seed-text abc --length 5 --temperature 0 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto generated = nlohmann::json::parse(r.out);
    EXPECT_EQ(generated["samples"][0], "abcdefgh");
    EXPECT_DOUBLE_EQ(generated["val_bpc"].get<double>(), bpc);
    EXPECT_DOUBLE_EQ(generated["baseline_bpc"].get<double>(), baseline);

    r = cli("compare " + quote(dir.file("run")));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("val bpc (5-gram)"), std::string::npos) << r.out;
    char quality[64];
    std::snprintf(quality, sizeof quality, "%.3f (5-gram %.3f)", bpc, baseline);
    EXPECT_NE(r.out.find(quality), std::string::npos) << r.out;

    r = cli("resume " + quote(dir.file("run")) + " --max-steps 130 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["summary"]["steps"], 130);

    r = cli("compare " + quote(dir.file("run")) + " --csv " + quote(dir.file("all.csv")));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto csv = wbtest::readText(dir.file("all.csv"));
    EXPECT_EQ(csv.rfind("run_id,step,epoch,samples,wall_s,split,metric,value", 0), 0u);
    EXPECT_GT(lineCount(csv), 10);
}

TEST(Cli, TrainAndClassifyWithExplanation) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "reviews.tsv", wbtest::separableTsv(300));
    auto r = cli("train " + quote(dir.file("reviews.tsv")) + " --out " + quote(dir.file("run")) +
                 kTinyClassifier + " --quiet");
    ASSERT_EQ(r.code, 0) << r.err;
    r = cli("classify " + quote(dir.file("run")) + " --text 'a lovely and superb movie' --explain --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["predicted"], "pos");
    EXPECT_EQ(j["attributions"].size(), 5u);
}

TEST(Cli, TrainingAClassifierEndsWithItsEvaluationAgainstTheMajorityBaseline) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "reviews.tsv", wbtest::separableTsv(300));
    auto r = cli("train " + quote(dir.file("reviews.tsv")) + " --out " + quote(dir.file("run")) +
                 kTinyClassifier + " --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);  // still one document
    ASSERT_TRUE(j.contains("evaluation")) << r.out;
    const auto& e = j["evaluation"];
    EXPECT_EQ(e, nlohmann::json::parse(wbtest::readText(dir.path() / "run" / "evaluation.json")));
    std::int64_t total = 0, trace = 0;
    for (std::size_t t = 0; t < 2; ++t)
        for (std::size_t p = 0; p < 2; ++p) {
            total += e["matrix"][t][p].get<std::int64_t>();
            if (t == p) trace += e["matrix"][t][p].get<std::int64_t>();
        }
    EXPECT_EQ(e["samples"], total);
    EXPECT_DOUBLE_EQ(e["accuracy"].get<double>(), static_cast<double>(trace) / total);
    EXPECT_NEAR(e["accuracy"].get<double>(), j["summary"]["final_val_accuracy"].get<double>(), 1e-9);
    // Balanced classes, validated in equal shares: the baseline is a tie, which goes to the first class.
    EXPECT_EQ(e["majority_baseline"]["class"], "neg");
    EXPECT_DOUBLE_EQ(e["majority_baseline"]["accuracy"].get<double>(), 0.5);
    EXPECT_EQ(e["classes"][1]["name"], "pos");

    r = cli("train " + quote(dir.file("reviews.tsv")) + " --out " + quote(dir.file("run2")) +
            kTinyClassifier + " --quiet");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("% vs majority baseline 50.0 % (always 'neg'); macro F1 "), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("class                precision    recall        F1   support"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("\n  pos "), std::string::npos) << r.out;
}

TEST(Cli, BadInputExitsTwoWithOneLineNamingTheFileAndLeavesNothing) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "empty.txt", "");
    wbtest::writeText(dir.path() / "binary.txt", std::string("abc\0def", 7));
    wbtest::writeText(dir.path() / "one-class.tsv", "pos\tgood\npos\tfine\n");
    wbtest::writeText(dir.path() / "bad.json",
                      "[{\"title\": \"x\", \"paragraphs\": [\"春風\"]},\n{\"title\": ");
    wbtest::writeText(dir.path() / "pattern.txt", wbtest::patternText(20));
    struct Case {
        std::string args, mustMention;
    };
    const std::vector<Case> cases = {
        {"train " + quote(dir.file("empty.txt")), "empty.txt"},
        {"train " + quote(dir.file("binary.txt")), "binary.txt"},
        {"train " + quote(dir.file("one-class.tsv")) + " --task classify", "one-class.tsv"},
        {"train " + quote(dir.file("bad.json")), "bad.json"},
        {"train " + quote(dir.file("missing.txt")), "missing.txt"},
        {"train " + quote(dir.file("pattern.txt")) + " --hidden 0", "hidden"},
        {"train " + quote(dir.file("pattern.txt")) + " --seq-len 100000", "sequence length"},
        {"train " + quote(dir.file("pattern.txt")) + " --device cuda:7", "cuda:7"},
        {"train " + quote(dir.file("pattern.txt")) + " --lr -1", "learning rate"},
    };
    for (const auto& c : cases) {
        const auto r = cli(c.args + " --out " + quote(dir.file("run")));
        EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
        EXPECT_EQ(lineCount(r.err), 1) << c.args << "\n" << r.err;
        EXPECT_NE(r.err.find(c.mustMention), std::string::npos) << c.args << "\n" << r.err;
        EXPECT_FALSE(fs::exists(dir.path() / "run")) << c.args;
    }
    for (const std::string args :
         {std::string("frobnicate"), std::string("train"), "generate " + quote(dir.file("nowhere")),
          "classify " + quote(dir.file("nowhere")) + " --text x"}) {
        const auto r = cli(args);
        EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
        EXPECT_EQ(lineCount(r.err), 1) << args << "\n" << r.err;
    }
}

// `verse`: the checker over a file of poems with a corpus's tables. Two poems, one that passes (the tables of
// wbtest::writeVerseTables) and one that breaks the rhyme; then the same as mixes of their lines.
TEST(Cli, VerseChecksAFileOfPoemsWithACorpussTables) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "poems.json", wbtest::quatrainJson(40));
    wbtest::writeVerseTables(dir.path());
    const std::string good = "月夜春山水日人，春風花月夜江天。\n花江雲水東秋夜，長日歸花月水雲。";
    const std::string bad = "月夜春山水日人，春風花月夜江月。\n花江雲水東秋夜，長日歸花月水夜。";
    wbtest::writeText(dir.path() / "mine.txt", good + "\n\n" + bad + "\n");
    auto r = cli("verse " + quote(dir.file("mine.txt")) + " --tables " + quote(dir.file("poems.json")) +
                 " --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["poems"], 2);
    EXPECT_EQ(j["passed"], 1) << r.out;
    EXPECT_TRUE(j["novelty_judged"].get<bool>()) << "the poems are not the tables' corpus";
    EXPECT_LT(j["rules"]["rhyme-tone"]["without_violation"].get<int>(), 2) << r.out;
    EXPECT_EQ(j["forms"]["七绝"], 2);
    r = cli("verse " + quote(dir.file("mine.txt")) + " --tables " + quote(dir.file("poems.json")));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("pass every rule        1 (50.0 %)"), std::string::npos) << r.out;
    // Mixed: as many poems, novelty not judged (every line is a real one).
    r = cli("verse " + quote(dir.file("mine.txt")) + " --tables " + quote(dir.file("poems.json")) +
            " --mix 3 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["poems"], 2);
    EXPECT_FALSE(nlohmann::json::parse(r.out)["novelty_judged"].get<bool>());
    // A corpus checked with its own tables: novelty is not judged either.
    r = cli("verse " + quote(dir.file("poems.json")) + " --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["poems"], 40);
    EXPECT_FALSE(nlohmann::json::parse(r.out)["novelty_judged"].get<bool>());
    // Without tables, or without poems: one line, exit 2.
    wbtest::writeText(dir.path() / "other" / "plain.txt", good);
    r = cli("verse " + quote(dir.file("other/plain.txt")));
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("no tone and rhyme tables"), std::string::npos) << r.err;
    wbtest::writeText(dir.path() / "empty.txt", "\n\n");
    r = cli("verse " + quote(dir.file("empty.txt")) + " --tables " + quote(dir.file("poems.json")));
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("no poems in it"), std::string::npos) << r.err;
}
