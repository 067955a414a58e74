// The playground on saved runs: a language model generates samples, a classifier gives class
// probabilities and token attributions; both load on the inference thread.
#include <QSignalSpy>

#include <gtest/gtest.h>

#include "UiTestSupport.h"
#include "playground/PlaygroundPanel.h"

using namespace wbui;

TEST(PlaygroundPanel, GeneratesFromSavedLanguageModel) {
    const QString run = wbuitest::trainedLanguageModelRun();
    PlaygroundPanel panel;
    QSignalSpy errors(&panel, &PlaygroundPanel::errorOccurred);
    panel.loadRun(run);
    ASSERT_TRUE(wbuitest::waitFor([&] { return !panel.loadedRun().isEmpty() || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0) << errors.value(0).value(1).toString().toStdString();
    EXPECT_TRUE(panel.isLanguageModel());
    panel.setSeedText(QStringLiteral("ab"));
    panel.setLength(20);
    panel.setSamples(2);
    QSignalSpy ready(&panel, &PlaygroundPanel::resultsReady);
    panel.generate();
    ASSERT_TRUE(wbuitest::waitFor([&] { return ready.count() > 0 || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0) << errors.value(0).value(1).toString().toStdString();
    ASSERT_EQ(panel.results().size(), 2);
    EXPECT_TRUE(panel.results()[0].startsWith(QStringLiteral("ab")));
}

TEST(PlaygroundPanel, ClassifiesWithSavedClassifier) {
    const QString run = wbuitest::trainedClassifierRun();
    PlaygroundPanel panel;
    QSignalSpy errors(&panel, &PlaygroundPanel::errorOccurred);
    panel.loadRun(run);
    ASSERT_TRUE(wbuitest::waitFor([&] { return !panel.loadedRun().isEmpty() || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0) << errors.value(0).value(1).toString().toStdString();
    EXPECT_FALSE(panel.isLanguageModel());
    panel.setClassifierText(QStringLiteral("a good great fine text"));
    QSignalSpy ready(&panel, &PlaygroundPanel::resultsReady);
    panel.classify();
    ASSERT_TRUE(wbuitest::waitFor([&] { return ready.count() > 0 || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0) << errors.value(0).value(1).toString().toStdString();
    EXPECT_EQ(panel.classLabels().size(), 2);
    EXPECT_TRUE(panel.attributionHtml().contains(QStringLiteral("background-color")));
}

TEST(PlaygroundPanel, MissingRunReportsError) {
    PlaygroundPanel panel;
    QSignalSpy errors(&panel, &PlaygroundPanel::errorOccurred);
    panel.loadRun(QStringLiteral("/nonexistent/run"));
    ASSERT_TRUE(wbuitest::waitFor([&] { return errors.count() > 0; }));
    EXPECT_TRUE(panel.loadedRun().isEmpty());
}
