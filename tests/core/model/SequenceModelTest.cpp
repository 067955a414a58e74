// The models: output shapes, parameter counts agreeing with the tensor-free summary, pooling that ignores
// padding, and a weights round trip through safetensors that gives identical outputs.
#include <gtest/gtest.h>

#include "model/SequenceModel.h"
#include "support/TestSupport.h"
#include "tensors/TensorIO.h"
#include "train/TrainingStep.h"
#include "workbench/ModelSummary.h"

using namespace wb;

TEST(SequenceModel, LanguageModelShapesAndParameterCountMatchTheSummary) {
    auto config = defaultConfig(Task::LanguageModel);
    config.model.embedding = 8;
    config.model.hidden = 12;
    config.model.layers = 2;
    SequenceModel model(Task::LanguageModel, config.model, 30, 30);
    auto logits = model->forward(torch::randint(0, 30, {3, 5}, torch::kInt64));
    EXPECT_EQ(logits.sizes(), (std::vector<std::int64_t>{3, 5, 30}));
    EXPECT_EQ(countParameters(*model), summarizeModel(config, 30, 0).totalParameters);
}

TEST(SequenceModel, BidirectionalClassifierMatchesTheSummary) {
    for (auto pooling : {Pooling::Last, Pooling::Mean, Pooling::Max}) {
        auto config = defaultConfig(Task::Classifier);
        config.model.embedding = 6;
        config.model.hidden = 5;
        config.model.layers = 2;
        config.model.bidirectional = true;
        config.model.pooling = pooling;
        SequenceModel model(Task::Classifier, config.model, 40, 3);
        auto out = model->forward(torch::randint(0, 40, {4, 7}, torch::kInt64),
                                  torch::tensor({7, 3, 1, 5}, torch::kInt64));
        EXPECT_EQ(out.sizes(), (std::vector<std::int64_t>{4, 3}));
        EXPECT_EQ(countParameters(*model), summarizeModel(config, 40, 3).totalParameters);
    }
}

TEST(SequenceModel, PoolingIgnoresPaddingAfterTheLength) {
    for (auto pooling : {Pooling::Last, Pooling::Mean, Pooling::Max}) {
        auto config = defaultConfig(Task::Classifier);
        config.model.embedding = 4;
        config.model.hidden = 6;
        config.model.layers = 1;
        config.model.bidirectional = false;
        config.model.pooling = pooling;
        config.model.dropout = 0;
        SequenceModel model(Task::Classifier, config.model, 20, 2);
        model->eval();
        auto a = torch::tensor({{5, 6, 7, 0, 0}}, torch::kInt64);
        auto b = torch::tensor({{5, 6, 7, 9, 11}}, torch::kInt64);
        auto len = torch::tensor({3}, torch::kInt64);
        EXPECT_TRUE(torch::allclose(model->forward(a, len), model->forward(b, len))) << toString(pooling);
    }
}

TEST(SequenceModel, WeightsRoundTripGiveIdenticalOutputs) {
    wbtest::TempDir dir;
    auto config = defaultConfig(Task::LanguageModel);
    config.model.embedding = 8;
    config.model.hidden = 16;
    torch::manual_seed(1);
    SequenceModel a(Task::LanguageModel, config.model, 25, 25);
    torch::manual_seed(2);
    SequenceModel b(Task::LanguageModel, config.model, 25, 25);
    a->eval();
    b->eval();
    const auto input = torch::randint(0, 25, {2, 9}, torch::kInt64);
    EXPECT_FALSE(torch::equal(a->forward(input), b->forward(input)));
    saveSafetensors(dir.file("model.safetensors"), namedParameters(a), {});
    loadInto(safetensors::read(dir.file("model.safetensors")), namedParameters(b), "model");
    EXPECT_TRUE(torch::equal(a->forward(input), b->forward(input)));
}

TEST(SequenceModel, ParameterNamesFollowPyTorch) {
    ModelConfig m;
    m.embedding = 4;
    m.hidden = 4;
    m.layers = 1;
    m.bidirectional = true;
    SequenceModel model(Task::Classifier, m, 10, 2);
    std::vector<std::string> names;
    for (const auto& [name, t] : namedParameters(model)) names.push_back(name);
    for (const char* expected :
         {"embedding.weight", "lstm.weight_ih_l0", "lstm.weight_hh_l0", "lstm.bias_ih_l0", "lstm.bias_hh_l0",
          "lstm.weight_ih_l0_reverse", "head.weight", "head.bias"})
        EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
}
