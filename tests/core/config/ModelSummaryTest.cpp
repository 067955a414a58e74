// Model summaries checked against parameter counts and FLOPs worked out by hand from the layer formulas
// (PyTorch's LSTM has two bias vectors per layer and direction).
#include <gtest/gtest.h>

#include "workbench/domain/Config.h"
#include "workbench/domain/ModelSummary.h"

namespace {

TEST(ModelSummary, ImdbPresetByHand) {
    const auto s = wb::summarizeModel(wb::presetConfig("imdb"), 15000, 2);
    ASSERT_EQ(s.rows.size(), 5u);
    EXPECT_EQ(s.rows[0].layer, "embedding (Embedding)");
    EXPECT_EQ(s.rows[0].outputShape, "(batch, 250, 32)");
    EXPECT_EQ(s.rows[0].parameters, 15000 * 32);
    EXPECT_EQ(s.rows[1].layer, "lstm_1 (LSTM)");
    EXPECT_EQ(s.rows[1].outputShape, "(batch, 250, 100)");
    EXPECT_EQ(s.rows[1].parameters, 4 * 100 * (32 + 100) + 800);  // 53,600
    EXPECT_EQ(s.rows[2].layer, "pool_last (Pooling)");
    EXPECT_EQ(s.rows[2].outputShape, "(batch, 100)");
    EXPECT_EQ(s.rows[3].layer, "dropout (Dropout)");
    EXPECT_EQ(s.rows[4].layer, "head (Linear)");
    EXPECT_EQ(s.rows[4].outputShape, "(batch, 2)");
    EXPECT_EQ(s.rows[4].parameters, 202);
    EXPECT_EQ(s.totalParameters, 480000 + 53600 + 202);
    EXPECT_EQ(s.vocabSize, 15000);
    EXPECT_EQ(s.outputs, 2);
    EXPECT_DOUBLE_EQ(s.forwardFlopsPerSample, 250.0 * 2 * 4 * 100 * 132 + 2 * 100 * 2);
    EXPECT_DOUBLE_EQ(s.trainFlopsPerSample, 3 * s.forwardFlopsPerSample);
    EXPECT_DOUBLE_EQ(s.parameterBytes, 4.0 * 533802);
    EXPECT_DOUBLE_EQ(s.trainingMemoryBytes, 16.0 * 533802 + 4.0 * 64 * 250 * (32 + 600));
}

TEST(ModelSummary, CharRnnPresetByHand) {
    const auto s = wb::summarizeModel(wb::presetConfig("charrnn"), 65, 0);
    ASSERT_EQ(s.rows.size(), 5u);
    EXPECT_EQ(s.rows[0].parameters, 65 * 128);
    EXPECT_EQ(s.rows[1].parameters, 132096);
    EXPECT_EQ(s.rows[2].layer, "lstm_2 (LSTM)");
    EXPECT_EQ(s.rows[2].parameters, 132096);
    EXPECT_EQ(s.rows[2].outputShape, "(batch, 50, 128)");
    EXPECT_EQ(s.rows[3].layer, "dropout (Dropout)");
    EXPECT_EQ(s.rows[3].parameters, 0);
    EXPECT_EQ(s.rows[4].outputShape, "(batch, 50, 65)");
    EXPECT_EQ(s.rows[4].parameters, 128 * 65 + 65);
    EXPECT_EQ(s.totalParameters, 280897);
    EXPECT_EQ(s.outputs, 65);
    EXPECT_DOUBLE_EQ(s.forwardFlopsPerSample, 50.0 * 2 * (2 * 4 * 128 * 256) + 50.0 * 2 * 128 * 65);
    EXPECT_DOUBLE_EQ(s.trainingMemoryBytes,
                     16.0 * 280897 + 4.0 * 64 * 50 * (128 + 2 * 6 * 128) + 4.0 * 64 * 50 * 65 * 2);
}

TEST(ModelSummary, PoemsPresetByHand) {
    const auto s = wb::summarizeModel(wb::presetConfig("poems"), 4379, 0);
    EXPECT_EQ(s.rows[0].parameters, 2242048);
    EXPECT_EQ(s.rows[1].parameters, 2101248);
    EXPECT_EQ(s.rows[2].parameters, 2101248);
    EXPECT_EQ(s.rows[4].parameters, 2246427);
    EXPECT_EQ(s.totalParameters, 8690971);
    EXPECT_EQ(s.rows[0].outputShape, "(batch, 73, 512)");
}

TEST(ModelSummary, BidirectionalTwoLayerClassifier) {
    auto c = wb::defaultConfig(wb::Task::Classifier);
    c.model.layers = 2;
    c.data.seqLen = 10;
    const auto s = wb::summarizeModel(c, 100, 3);
    ASSERT_EQ(s.rows.size(), 6u);
    EXPECT_EQ(s.rows[1].parameters, 2 * (4 * 64 * 128 + 512));  // 66,560
    EXPECT_EQ(s.rows[1].outputShape, "(batch, 10, 128)");
    EXPECT_EQ(s.rows[2].parameters, 2 * (4 * 64 * 192 + 512));  // layer 2 reads both directions: 99,328
    EXPECT_EQ(s.rows[3].layer, "pool_mean (Pooling)");
    EXPECT_EQ(s.rows[3].outputShape, "(batch, 128)");
    EXPECT_EQ(s.rows[5].parameters, 128 * 3 + 3);
    EXPECT_EQ(s.totalParameters, 6400 + 66560 + 99328 + 387);
    EXPECT_DOUBLE_EQ(s.forwardFlopsPerSample,
                     10.0 * (2 * 2 * 4 * 64 * 128 + 2 * 2 * 4 * 64 * 192) + 2 * 2 * 64 * 3);
}

TEST(ModelSummary, TextTable) {
    const auto text = wb::summarizeModel(wb::presetConfig("imdb"), 15000, 2).toText();
    EXPECT_NE(text.find("Layer (type)"), std::string::npos) << text;
    EXPECT_NE(text.find("Output Shape"), std::string::npos);
    EXPECT_NE(text.find("Param #"), std::string::npos);
    EXPECT_NE(text.find("480,000"), std::string::npos);
    EXPECT_NE(text.find("53,600"), std::string::npos);
    EXPECT_NE(text.find("Total params: 533,802"), std::string::npos);
    EXPECT_NE(text.find("FLOPs"), std::string::npos);
    // Every table line has the same width.
    std::size_t width = text.find('\n');
    EXPECT_NE(text.find("lstm_1 (LSTM)"), std::string::npos) << text;
    std::size_t pos = 0;
    for (int line = 0; line < 6; ++line) {
        const std::size_t eol = text.find('\n', pos);
        EXPECT_EQ(eol - pos, width) << text;
        pos = eol + 1;
    }
}

}  // namespace
