// The experiment panel: a live summary that follows the values, presets, and problems explained.
#include <gtest/gtest.h>

#include "experiment/ExperimentPanel.h"
#include "experiment/ModelSummaryView.h"

using namespace wbui;

TEST(ExperimentPanel, SummaryFollowsConfig) {
    ExperimentPanel panel;
    EXPECT_GT(panel.summaryView()->rowCount(), 0);
    panel.setCorpus(QStringLiteral("/tmp/x.txt"), wb::CorpusFormat::Text, 40, 100, 0);
    const QString before = panel.summaryView()->totalsText();
    wb::ExperimentConfig c = panel.config();
    c.model.hidden = c.model.hidden * 2;
    panel.setConfig(c);
    EXPECT_NE(panel.summaryView()->totalsText(), before);
    EXPECT_EQ(panel.config().data.corpus, "/tmp/x.txt");
}

TEST(ExperimentPanel, PresetKeepsCorpus) {
    ExperimentPanel panel;
    panel.setCorpus(QStringLiteral("/tmp/poems.json"), wb::CorpusFormat::Poems, 4000, 4000, 0);
    panel.applyPreset(QStringLiteral("poems"));
    const auto expected = wb::presetConfig("poems");
    EXPECT_EQ(panel.config().model.embedding, expected.model.embedding);
    EXPECT_EQ(panel.config().model.hidden, expected.model.hidden);
    EXPECT_EQ(panel.config().data.corpus, "/tmp/poems.json");
}

TEST(ExperimentPanel, InvalidCombinationIsExplained) {
    ExperimentPanel panel;
    wb::ExperimentConfig c = wb::defaultConfig(wb::Task::LanguageModel);
    c.model.hidden = 0;
    panel.setConfig(c);
    EXPECT_FALSE(panel.problems().isEmpty());
    panel.setConfig(wb::defaultConfig(wb::Task::LanguageModel));
    EXPECT_TRUE(panel.problems().isEmpty()) << panel.problems().join(QStringLiteral("; ")).toStdString();
}
