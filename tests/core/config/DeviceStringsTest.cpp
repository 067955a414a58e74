// Issue #44, "one device value": every device string the app, the CLI and a sweep accept -- --device on
// train, tokenize, sweep and bench, config.json's device.device, a sweep's device= axis -- goes through
// DeviceSpec::parse and nothing else, and a DeviceSpec written as text reads back the same. The rejected ones
// say why in one line, wherever they were written.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/TestSupport.h"
#include "workbench/domain/Config.h"
#include "workbench/domain/ConfigFields.h"
#include "workbench/domain/DeviceSpec.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Sweep.h"

namespace {

using Kind = wb::DeviceSpec::Kind;

struct Accepted {
    std::string text;
    Kind kind;
    int index;
    std::int64_t threads;
    std::string canonical;  // DeviceSpec::text()
};

// Every spelling the one parser accepts: the two kinds, with and without their number, the bounds of the
// numbers, and leading zeros (which the regular expressions have always let through).
const std::vector<Accepted> kAccepted = {
    {"cpu", Kind::Cpu, 0, 0, "cpu"},
    {"cpu:1", Kind::Cpu, 0, 1, "cpu:1"},
    {"cpu:2", Kind::Cpu, 0, 2, "cpu:2"},
    {"cpu:4096", Kind::Cpu, 0, 4096, "cpu:4096"},
    {"cpu:9999", Kind::Cpu, 0, 9999, "cpu:9999"},
    {"cpu:02", Kind::Cpu, 0, 2, "cpu:2"},
    {"cuda", Kind::Cuda, 0, 0, "cuda:0"},
    {"cuda:0", Kind::Cuda, 0, 0, "cuda:0"},
    {"cuda:1", Kind::Cuda, 1, 0, "cuda:1"},
    {"cuda:999", Kind::Cuda, 999, 0, "cuda:999"},
    {"cuda:007", Kind::Cuda, 7, 0, "cuda:7"},
};

struct Rejected {
    std::string text, why;
};

const std::string kExpected = "expected cpu, cpu:THREADS or cuda:N";
const std::vector<Rejected> kRejected = {
    {"", kExpected},
    {"gpu", kExpected},
    {"CPU", kExpected},
    {"Cuda:0", kExpected},
    {"cpu:", kExpected},
    {"cpu:x", kExpected},
    {"cpu:12345", kExpected},
    {"cpu:-1", kExpected},
    {"cuda:", kExpected},
    {"cuda:-1", kExpected},
    {"cuda:1000", kExpected},
    {"cuda:1:2", kExpected},
    {" cpu", kExpected},
    {"cpu ", kExpected},
    {"cpu:2:2", kExpected},
    {"mps", kExpected},
    {"cpu:0", "the thread count must be at least 1"},
    {"cpu:0000", "the thread count must be at least 1"},
};

void expectOneLineSaying(const std::string& message, const std::string& device, const std::string& why) {
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_NE(message.find("device '" + device + "': " + why), std::string::npos) << message;
}

}  // namespace

TEST(DeviceStrings, EveryAcceptedSpellingParsesAndRoundTrips) {
    for (const auto& a : kAccepted) {
        const auto spec = wb::DeviceSpec::parse(a.text);
        EXPECT_EQ(spec.kind, a.kind) << a.text;
        EXPECT_EQ(spec.index, a.index) << a.text;
        EXPECT_EQ(spec.threads, a.threads) << a.text;
        EXPECT_EQ(spec.processes, 1) << a.text << ": a string says nothing of processes";
        EXPECT_EQ(spec.text(), a.canonical) << a.text;
        EXPECT_EQ(wb::DeviceSpec::parse(spec.text()), spec) << a.text;  // spec -> string -> spec
        EXPECT_EQ(wb::isCpuDevice(a.text), a.kind == Kind::Cpu) << a.text;
    }
}

TEST(DeviceStrings, EveryRejectedSpellingSaysWhyInOneLine) {
    for (const auto& r : kRejected) {
        EXPECT_FALSE(wb::DeviceSpec::tryParse(r.text)) << r.text;
        EXPECT_FALSE(wb::isCpuDevice(r.text)) << r.text;
        expectOneLineSaying(wbtest::inputErrorOf([&] { wb::DeviceSpec::parse(r.text); }), r.text, r.why);
    }
}

// --device and a sweep's device= axis set the config through the table's device row; config.json reads
// through it too. The thread count lands in device.threads alone, and config.json holds it once.
TEST(DeviceStrings, TheConfigRowKeepsTheThreadsOnceAndReadsBack) {
    const auto& row = wb::configField("device");
    for (const auto& a : kAccepted) {
        wb::ExperimentConfig config;
        config.device.spec.processes = 3;
        row.set(config, a.text);
        EXPECT_EQ(config.device.spec.id(), wb::DeviceSpec::parse(a.text).id()) << a.text;
        EXPECT_EQ(config.device.spec.threads, a.threads) << a.text;
        const auto spec = config.device.spec;
        EXPECT_EQ(spec.processes, 3) << a.text;
        const auto json = nlohmann::json::parse(config.toJson());
        EXPECT_EQ(json["device"]["device"], spec.id()) << a.text;
        EXPECT_EQ(json["device"]["threads"], a.threads) << a.text;
        EXPECT_EQ(wb::ExperimentConfig::fromJson(config.toJson(), "config.json").device.spec, spec) << a.text;
        wb::ExperimentConfig again;
        again.device.spec = spec;
        EXPECT_EQ(again.device.spec, spec) << a.text;
    }
}

// --threads and --nproc (and the threads= and processes= axes) are the rows the spec's threads and
// processes are kept in.
TEST(DeviceStrings, TheThreadsAndProcessesRowsAreTheSpecs) {
    wb::ExperimentConfig config;
    wb::configField("threads").set(config, "4");
    wb::configField("processes").set(config, "2");
    wb::configField("device").set(config, "cpu");
    auto spec = config.device.spec;
    EXPECT_EQ(spec.text(), "cpu:4");
    EXPECT_EQ(spec.processes, 2);
    // A thread count in the device string wins over the threads row: the table sets the threads first, and
    // "cpu:2" overrides them.
    wb::configField("device").set(config, "cpu:2");
    EXPECT_EQ(config.device.spec.threads, 2);
    EXPECT_EQ(wb::configField("device").get(config), "cpu");
    EXPECT_EQ(wb::configField("threads").get(config), "2");
}

// config.json files written before the threads were kept once may hold both "cpu:N" and threads: the
// string wins, as parseDeviceSpec had it.
TEST(DeviceStrings, OldConfigFilesWithBothReadAsBefore) {
    const auto read = [](const std::string& device, int threads) {
        const auto json = nlohmann::json{{"device", {{"device", device}, {"threads", threads}}}}.dump();
        return wb::ExperimentConfig::fromJson(json, "config.json").device;
    };
    EXPECT_EQ(read("cpu:2", 0).spec.text(), "cpu:2");
    EXPECT_EQ(read("cpu:2", 8).spec.text(), "cpu:2");
    EXPECT_EQ(read("cpu:2", 8).spec.threads, 2);  // kept once
    EXPECT_EQ(read("cpu", 4).spec.text(), "cpu:4");
    EXPECT_EQ(read("cuda:1", 4).spec.id(), "cuda:1");
}

TEST(DeviceStrings, ARejectedDeviceIsRefusedWhereverItIsWritten) {
    for (const auto& r : kRejected) {
        wb::ExperimentConfig config;
        // --device: the message names the device, on one line.
        expectOneLineSaying(wbtest::inputErrorOf([&] { wb::configField("device").set(config, r.text); }),
                            r.text, r.why);
        // config.json: the file and the key too.
        const auto json = nlohmann::json{{"device", {{"device", r.text}}}}.dump();
        const auto fromFile =
            wbtest::inputErrorOf([&] { wb::ExperimentConfig::fromJson(json, "config.json"); });
        expectOneLineSaying(fromFile, r.text, r.why);
        EXPECT_NE(fromFile.find("config.json: device.device: "), std::string::npos) << fromFile;
        // A sweep's device= axis (where an empty value is the axis's own error).
        if (r.text.empty()) continue;
        wb::ExperimentConfig base = wb::defaultConfig(wb::Task::LanguageModel);
        base.data.corpus = "corpus.txt";
        const auto axis = wbtest::inputErrorOf([&] {
            wb::Sweep::plan(base, {wb::checkSweepAxis({"device", {"cpu", r.text}})}, 1, 0);
        });
        expectOneLineSaying(axis, r.text, r.why);
    }
}

// A sweep's device= axis: every accepted spelling plans, each cell's config holds its spec; a rejected one
// is refused before anything exists, naming the axis.
TEST(DeviceStrings, ASweepsDeviceAxisTakesTheSameStrings) {
    wb::ExperimentConfig base = wb::defaultConfig(wb::Task::LanguageModel);
    base.data.corpus = "corpus.txt";
    std::vector<Accepted> valid;  // the parser reads cpu:9999; a config's range stops at kMaxThreads
    for (const auto& a : kAccepted)
        if (a.threads <= wb::kMaxThreads) valid.push_back(a);
    wb::SweepAxis axis{"device", {}};
    for (const auto& a : valid) axis.values.push_back(a.text);
    const auto sweep = wb::Sweep::plan(base, {axis}, 1, 0);
    ASSERT_EQ(sweep.cells.size(), valid.size());
    for (std::size_t i = 0; i < valid.size(); ++i) {
        auto expected = wb::DeviceSpec::parse(valid[i].text);
        if (expected.threads == 0) expected.threads = base.device.spec.threads;
        EXPECT_EQ(sweep.cellConfig(sweep.cells[i]).device.spec, expected) << valid[i].text;
    }
    const auto tooMany = wbtest::inputErrorOf([&] {
        wb::Sweep::plan(base, {{"device", {"cpu:9999"}}}, 1, 0);
    });
    EXPECT_NE(tooMany.find("threads must be at most 4096 (is 9999"), std::string::npos) << tooMany;
    // With a threads axis too, the device's own count wins whatever the axes' order.
    const auto both = wb::Sweep::plan(base, {{"threads", {"4"}}, {"device", {"cpu:2", "cpu"}}}, 1, 0);
    EXPECT_EQ(both.cellConfig(both.cells[0]).device.spec.text(), "cpu:2");
    EXPECT_EQ(both.cellConfig(both.cells[1]).device.spec.text(), "cpu:4");
    for (const auto& r : kRejected) {
        if (r.text.empty() || r.text.find(',') != std::string::npos) continue;  // not an axis value
        const auto message = wbtest::inputErrorOf([&] {
            wb::Sweep::plan(base, {{"device", {"cpu", r.text}}}, 1, 0);
        });
        EXPECT_NE(message.find("--grid: "), std::string::npos) << message;
        expectOneLineSaying(message, r.text, r.why);
    }
}
