// ExperimentConfig: the config.json format (round trip, defaults, type errors), validation messages, the
// per-task defaults and the docs/performance.md presets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/TestSupport.h"
#include "workbench/domain/Config.h"
#include "workbench/domain/Errors.h"

namespace {

#define EXPECT_CONTAINS(haystack, needle) \
    EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "in: " << (haystack)

wb::InputError configError(const std::string& json) {
    try {
        wb::ExperimentConfig::fromJson(json, "run/config.json");
    } catch (const wb::InputError& e) {
        return e;
    }
    ADD_FAILURE() << "accepted " << json;
    return wb::InputError("none");
}

bool hasProblem(const wb::ExperimentConfig& c, const std::string& fragment) {
    for (const auto& p : c.validate())
        if (p.find(fragment) != std::string::npos) return true;
    return false;
}

TEST(Config, JsonHasTheDocumentedKeys) {
    const auto j = nlohmann::json::parse(wb::ExperimentConfig{}.toJson());
    EXPECT_EQ(j["task"], "lm");
    EXPECT_EQ(j["data"]["format"], "auto");
    EXPECT_EQ(j["data"]["tokens"], "char");
    EXPECT_EQ(j["data"]["seq_len"], 64);
    EXPECT_EQ(j["data"]["val_fraction"], 0.1);
    EXPECT_EQ(j["model"]["hidden"], 128);
    EXPECT_EQ(j["model"]["pooling"], "last");
    EXPECT_EQ(j["model"]["backend"], "auto");
    EXPECT_EQ(j["train"]["batch_size"], 32);
    EXPECT_EQ(j["train"]["learning_rate"], 0.002);
    EXPECT_EQ(j["train"]["optimizer"], "adam");
    EXPECT_EQ(j["train"]["seed"], 42);
    EXPECT_EQ(j["train"]["warmup_steps"], 3);
    EXPECT_EQ(j["train"]["log_every"], 10);
    EXPECT_EQ(j["train"]["early_stop_patience"], 0);
    EXPECT_EQ(j["device"]["device"], "cpu");
    EXPECT_EQ(j["device"]["precision"], "fp32");
    for (const char* section : {"data", "model", "train", "device"}) EXPECT_TRUE(j[section].is_object());
}

TEST(Config, RoundTripKeepsEveryField) {
    wb::ExperimentConfig c;
    c.name = "spam, \"quoted\" 春";
    c.task = wb::Task::Classifier;
    c.data = {"/data/spam", wb::CorpusFormat::Folder, wb::TokenLevel::Word, 12000, 3, 128, 7, 0.25};
    c.model = {96, 48, 3, true, 0.3, wb::Pooling::Max, wb::LstmBackend::Fused};
    c.train.batchSize = 17;
    c.train.learningRate = 3.5e-4;
    c.train.optimizer = wb::OptimizerKind::RmsProp;
    c.train.epochs = 0;
    c.train.maxSteps = 900;
    c.train.gradClip = 0;
    c.train.validateEvery = 50;
    c.train.earlyStopPatience = 4;
    c.train.seed = 18446744073709551615ull;
    c.train.warmupSteps = 1;
    c.train.logEvery = 5;
    c.device.spec = {wb::DeviceSpec::Kind::Cuda, 1, 6, 1};
    c.device.precision = wb::Precision::Fp16;
    const auto back = wb::ExperimentConfig::fromJson(c.toJson(), "c.json");
    EXPECT_EQ(back.toJson(), c.toJson());
    EXPECT_EQ(back.name, c.name);
    EXPECT_EQ(back.train.seed, c.train.seed);
    EXPECT_EQ(back.model.backend, wb::LstmBackend::Fused);
    EXPECT_EQ(back.data.format, wb::CorpusFormat::Folder);
    EXPECT_DOUBLE_EQ(back.train.learningRate, 3.5e-4);
    EXPECT_EQ(back.device.precision, wb::Precision::Fp16);
}

TEST(Config, MissingKeysKeepDefaultsAndUnknownKeysAreIgnored) {
    const auto c = wb::ExperimentConfig::fromJson(
        R"({"task": "classify", "model": {"hidden": 7, "future_option": [1]}, "extra": {"x": 1}})", "c.json");
    EXPECT_EQ(c.task, wb::Task::Classifier);
    EXPECT_EQ(c.model.hidden, 7);
    EXPECT_EQ(c.model.embedding, 64);
    EXPECT_EQ(c.data.seqLen, 64);
    EXPECT_EQ(c.train.seed, 42u);
    EXPECT_EQ(wb::ExperimentConfig::fromJson("{}", "c.json").toJson(), wb::ExperimentConfig{}.toJson());
}

TEST(Config, WrongTypesAndUnknownNamesNameTheKey) {
    auto e = configError(R"({"data": {"seq_len": "64"}})");
    EXPECT_STREQ(e.what(), "run/config.json: data.seq_len: expected an integer");
    EXPECT_EQ(e.line(), 0);
    EXPECT_CONTAINS(configError(R"({"data": {"seq_len": 6.5}})").what(), "data.seq_len: expected an integer");
    EXPECT_CONTAINS(configError(R"({"model": {"bidirectional": 1}})").what(),
                    "model.bidirectional: expected true or false");
    EXPECT_CONTAINS(configError(R"({"train": {"learning_rate": "fast"}})").what(),
                    "train.learning_rate: expected a number");
    EXPECT_CONTAINS(configError(R"({"train": {"optimizer": "adagrad"}})").what(),
                    "train.optimizer: unknown optimizer 'adagrad' (expected adam, sgd or rmsprop)");
    EXPECT_CONTAINS(configError(R"({"task": "translate"})").what(), "task: unknown task 'translate'");
    EXPECT_CONTAINS(configError(R"({"data": {"format": "xml"}})").what(),
                    "data.format: unknown corpus format");
    EXPECT_CONTAINS(configError(R"({"data": {"tokens": "bpe"}})").what(), "data.tokens: unknown token level");
    EXPECT_CONTAINS(configError(R"({"model": {"pooling": "sum"}})").what(), "model.pooling");
    EXPECT_CONTAINS(configError(R"({"model": {"backend": "cudnn"}})").what(), "model.backend");
    EXPECT_CONTAINS(configError(R"({"device": {"precision": "int8"}})").what(), "device.precision");
    EXPECT_CONTAINS(configError(R"({"train": {"seed": -1}})").what(),
                    "train.seed: expected a non-negative integer");
    EXPECT_CONTAINS(configError(R"({"data": 5})").what(), "data: expected an object");
    EXPECT_CONTAINS(configError(R"(["not", "an", "object"])").what(), "expected a JSON object");
    e = configError("{\n  \"name\": \"x\",\n  \"task\": \n}");
    EXPECT_EQ(e.line(), 4);
    EXPECT_CONTAINS(e.what(), "run/config.json:4: invalid JSON");
}

TEST(Config, DefaultsAreValid) {
    EXPECT_TRUE(wb::ExperimentConfig{}.validate() ==
                std::vector<std::string>{"no corpus: choose a corpus file or folder"});
    for (auto task : {wb::Task::LanguageModel, wb::Task::Classifier}) {
        const auto c = wb::defaultConfig(task);
        EXPECT_TRUE(c.validate().empty()) << c.validate().front();
        EXPECT_NO_THROW(c.ensureValid());
        EXPECT_EQ(c.task, task);
    }
}

TEST(Config, ValidateExplainsEveryBadValue) {
    auto base = wb::defaultConfig(wb::Task::LanguageModel);
    auto check = [&](auto mutate, const std::string& fragment) {
        auto c = base;
        mutate(c);
        EXPECT_TRUE(hasProblem(c, fragment)) << "missing '" << fragment << "'";
        try {
            c.ensureValid();
            ADD_FAILURE() << "ensureValid accepted: " << fragment;
        } catch (const wb::InputError& e) {
            EXPECT_EQ(e.file(), "");
            EXPECT_EQ(e.line(), 0);
        }
    };
    using C = wb::ExperimentConfig;
    check([](C& c) { c.model.hidden = 0; }, "hidden size must be at least 1");
    check([](C& c) { c.model.hidden = 9000; }, "hidden size must be at most 8192");
    check([](C& c) { c.model.embedding = 0; }, "embedding size must be at least 1");
    check([](C& c) { c.model.layers = 0; }, "number of layers must be at least 1");
    check([](C& c) { c.model.layers = 9; }, "number of layers must be at most 8");
    check([](C& c) { c.model.dropout = 1.0; }, "dropout must be in [0, 1)");
    check([](C& c) { c.model.dropout = -0.1; }, "dropout must be in [0, 1)");
    check([](C& c) { c.model.bidirectional = true; },
          "a bidirectional language model would see the token it must predict");
    check([](C& c) { c.data.seqLen = 1; }, "sequence length must be at least 2");
    check([](C& c) { c.data.seqLen = 100001; }, "sequence length must be at most 100000");
    check([](C& c) { c.data.stride = -1; }, "stride must be at least 0");
    check([](C& c) { c.data.vocabSize = 4; }, "vocabulary size must be 0");
    check([](C& c) { c.data.minCount = 0; }, "minimum count must be at least 1");
    check([](C& c) { c.data.valFraction = 0.6; }, "validation fraction must be in [0, 0.5]");
    check([](C& c) { c.data.corpus.clear(); }, "no corpus");
    check([](C& c) { c.train.batchSize = 0; }, "batch size must be at least 1");
    check([](C& c) { c.train.learningRate = 0; }, "learning rate must be a positive number");
    check([](C& c) { c.train.learningRate = std::numeric_limits<double>::infinity(); }, "learning rate");
    check([](C& c) { c.train.learningRate = std::nan(""); }, "learning rate");
    check([](C& c) { c.train.epochs = -1; }, "epochs must be at least 0");
    check(
        [](C& c) {
            c.train.epochs = 0;
            c.train.maxSteps = 0;
        },
        "nothing to train: set epochs or max steps above 0");
    check([](C& c) { c.train.maxSteps = -5; }, "max steps must be at least 0");
    check([](C& c) { c.train.gradClip = -1; }, "gradient clipping must be at least 0");
    check([](C& c) { c.train.validateEvery = -1; }, "validate every must be at least 0");
    check([](C& c) { c.train.earlyStopPatience = -1; }, "early-stop patience must be at least 0");
    check([](C& c) { c.device.spec.threads = -2; }, "threads must be at least 0");
    check([](C& c) { c.device.precision = wb::Precision::Fp16; }, "fp16 needs a CUDA device");

    auto ok = base;
    ok.train.epochs = 0;
    ok.train.maxSteps = 10;
    ok.device.spec = wb::DeviceSpec::parse("cuda:0");
    ok.device.precision = wb::Precision::Fp16;
    EXPECT_TRUE(ok.validate().empty());
    auto cls = wb::defaultConfig(wb::Task::Classifier);
    EXPECT_TRUE(cls.model.bidirectional);
    EXPECT_TRUE(cls.validate().empty());
}

TEST(Config, DefaultConfigsMatchTheGuiDefaults) {
    const auto lm = wb::defaultConfig(wb::Task::LanguageModel);
    EXPECT_EQ(lm.name, "Tang quatrains (char LM)");
    EXPECT_EQ(lm.data.corpus, "tang-quatrains-7");
    EXPECT_EQ(lm.data.format, wb::CorpusFormat::Poems);
    EXPECT_EQ(lm.data.tokens, wb::TokenLevel::Char);
    EXPECT_EQ(lm.model.hidden, 256);
    // Tuned to beat the 5-gram baseline within 2.5 minutes on 2 cores and end 0.2 bits per character below
    // it, in bf16 where the CPU has it (docs/benchmarks.md).
    EXPECT_EQ(lm.model.embedding, 128);
    EXPECT_DOUBLE_EQ(lm.train.learningRate, 0.004);
    EXPECT_DOUBLE_EQ(lm.model.dropout, 0.1);
    EXPECT_EQ(lm.train.epochs, 0);
    EXPECT_EQ(lm.train.maxSteps, 4200);
    EXPECT_EQ(lm.device.precision, wb::Precision::Auto);
    EXPECT_EQ(lm.train.lrSchedule, wb::LrSchedule::Cosine);
    EXPECT_EQ(lm.train.lrWarmupSteps, 100);
    EXPECT_EQ(lm.train.validationSamples, 3);
    const auto cls = wb::defaultConfig(wb::Task::Classifier);
    EXPECT_EQ(cls.name, "Text classifier");
    EXPECT_EQ(cls.data.corpus, "spam-assassin");
    EXPECT_EQ(cls.data.format, wb::CorpusFormat::Folder);
    EXPECT_EQ(cls.data.tokens, wb::TokenLevel::Word);
    EXPECT_EQ(cls.data.vocabSize, 10000);
    EXPECT_EQ(cls.data.minCount, 2);
    EXPECT_EQ(cls.data.seqLen, 200);
    EXPECT_EQ(cls.model.pooling, wb::Pooling::Mean);
    EXPECT_EQ(cls.model.layers, 1);
}

TEST(Config, PresetsMatchPerfMd) {
    EXPECT_EQ(wb::presetNames(), (std::vector<std::string>{"imdb", "charrnn", "poems"}));
    const auto imdb = wb::presetConfig("imdb");
    EXPECT_EQ(imdb.name, "imdb preset");
    EXPECT_EQ(imdb.task, wb::Task::Classifier);
    EXPECT_EQ(imdb.data.vocabSize, 15000);
    EXPECT_EQ(imdb.model.embedding, 32);
    EXPECT_EQ(imdb.model.hidden, 100);
    EXPECT_EQ(imdb.model.layers, 1);
    EXPECT_EQ(imdb.data.seqLen, 250);
    EXPECT_EQ(imdb.train.batchSize, 64);
    EXPECT_EQ(imdb.model.pooling, wb::Pooling::Last);
    EXPECT_FALSE(imdb.model.bidirectional);
    EXPECT_DOUBLE_EQ(imdb.train.learningRate, 1e-3);
    EXPECT_EQ(imdb.train.epochs, 20);
    const auto charrnn = wb::presetConfig("charrnn");
    EXPECT_EQ(charrnn.task, wb::Task::LanguageModel);
    EXPECT_EQ(charrnn.data.corpus, "fortunes-text");
    EXPECT_EQ(charrnn.data.format, wb::CorpusFormat::Text);
    EXPECT_EQ(charrnn.data.seqLen, 50);
    EXPECT_EQ(charrnn.model.embedding, 128);
    EXPECT_EQ(charrnn.train.batchSize, 64);
    const auto poems = wb::presetConfig("poems");
    EXPECT_EQ(poems.data.vocabSize, 4379);
    EXPECT_EQ(poems.model.hidden, 512);
    EXPECT_EQ(poems.data.seqLen, 73);
    EXPECT_EQ(poems.train.batchSize, 32);
    for (const auto& name : wb::presetNames()) EXPECT_TRUE(wb::presetConfig(name).validate().empty()) << name;
    EXPECT_THROW(wb::presetConfig("gpt"), wb::InputError);
}

TEST(Config, PresetsCarryTheirMeasuredThreadCount) {
    // The presets' thread count is the fastest one measured on an idle machine by scripts/bench-threads.sh,
    // whose raw numbers are committed beside docs/benchmarks.md: a new measurement in which one thread wins
    // must change the presets (and this test says so).
    std::ifstream in(wbtest::sourcePath("docs/benchmarks/thread-split.json"));
    ASSERT_TRUE(in) << "docs/benchmarks/thread-split.json is missing";
    const auto measured = nlohmann::json::parse(in)["measurements"];
    const auto cores = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
    for (const auto& name : wb::presetNames()) {
        std::vector<double> one, two;
        for (const auto& m : measured) {
            if (m["preset"] != name || m["busy"].get<bool>()) continue;
            if (m["config"] == "1 thread") one.push_back(m["us_per_sample"].get<double>());
            if (m["config"] == "2 threads, batch") two.push_back(m["us_per_sample"].get<double>());
        }
        ASSERT_FALSE(one.empty() || two.empty()) << name;
        std::sort(one.begin(), one.end());
        std::sort(two.begin(), two.end());
        const std::int64_t fastest = two[two.size() / 2] < one[one.size() / 2] ? 2 : 1;
        EXPECT_EQ(wb::presetConfig(name).device.spec.threads, std::min(fastest, cores)) << name;
        EXPECT_EQ(wb::presetConfig(name).device.threadSplit, wb::ThreadSplit::Batch) << name;
    }
}

TEST(Config, EnumStrings) {
    EXPECT_EQ(wb::toString(wb::Task::Classifier), "classify");
    EXPECT_EQ(wb::taskFromString("lm"), wb::Task::LanguageModel);
    EXPECT_EQ(wb::toString(wb::Pooling::Max), "max");
    EXPECT_EQ(wb::poolingFromString("mean"), wb::Pooling::Mean);
    EXPECT_EQ(wb::toString(wb::OptimizerKind::RmsProp), "rmsprop");
    EXPECT_EQ(wb::optimizerFromString("sgd"), wb::OptimizerKind::Sgd);
    EXPECT_EQ(wb::toString(wb::Precision::Bf16), "bf16");
    EXPECT_EQ(wb::precisionFromString("fp16"), wb::Precision::Fp16);
    EXPECT_EQ(wb::toString(wb::Precision::Auto), "auto");
    EXPECT_EQ(wb::precisionFromString("auto"), wb::Precision::Auto);
    EXPECT_THROW(wb::precisionFromString("FP32"), wb::InputError);
    EXPECT_EQ(wb::toString(wb::ThreadSplit::Ops), "ops");
    EXPECT_EQ(wb::threadSplitFromString("batch"), wb::ThreadSplit::Batch);
    EXPECT_THROW(wb::threadSplitFromString("threads"), wb::InputError);
}

}  // namespace
