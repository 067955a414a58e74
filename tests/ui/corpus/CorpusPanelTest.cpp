// The corpus panel: statistics and class balance of a labelled corpus, and a clear error for bad input.
#include <QSignalSpy>

#include <gtest/gtest.h>

#include "UiTestSupport.h"
#include "corpus/CorpusPanel.h"

using namespace wbui;

TEST(CorpusPanel, LabelledCorpusShowsClasses) {
    wbtest::TempDir tmp;
    wbtest::writeText(tmp.file("l.tsv"), wbtest::separableTsv(40));
    CorpusPanel panel;
    ASSERT_TRUE(panel.loadPath(QString::fromStdString(tmp.file("l.tsv"))));
    EXPECT_EQ(panel.stats().documents, 40);
    EXPECT_EQ(panel.stats().classCounts.size(), 2u);
    EXPECT_TRUE(panel.corpus()->labelled());
}

TEST(CorpusPanel, MissingFileFailsWithItsName) {
    CorpusPanel panel;
    QSignalSpy failed(&panel, &CorpusPanel::loadFailed);
    EXPECT_FALSE(panel.loadPath(QStringLiteral("/nonexistent/corpus.txt")));
    ASSERT_EQ(failed.count(), 1);
    EXPECT_TRUE(failed[0][1].toString().contains(QStringLiteral("corpus.txt")));
    EXPECT_FALSE(panel.hasCorpus());
}

TEST(CorpusPanel, PreparedCorpusOpenedByPathShowsItsNameAndManifest) {
    wbtest::TempDir tmp;
    const std::string dir = tmp.file("cache/mini-poems");
    wbtest::writeText(dir + "/poems.json", wbtest::quatrainJson(30));
    wbtest::writeText(dir + "/manifest.json",
                      R"({"data": "poems.json", "format": "poems", "description": "thirty test quatrains", )"
                      R"("documents": 30})");
    const QByteArray saved = qgetenv("LSTM_WORKBENCH_DATA");
    qputenv("LSTM_WORKBENCH_DATA", QByteArray::fromStdString(tmp.file("cache")));
    {
        CorpusPanel panel;  // its catalog box lists mini-poems
        // The launch restores the last corpus by its path: it is still "mini-poems", with its manifest.
        ASSERT_TRUE(panel.loadPath(QString::fromStdString(dir + "/poems.json")));
        EXPECT_EQ(panel.displayName(), QStringLiteral("mini-poems"));
        EXPECT_EQ(panel.catalogSelection(), QStringLiteral("mini-poems"));
        EXPECT_TRUE(panel.manifestText().contains(QStringLiteral("thirty test quatrains")));
        // A file of the user's: the manifest no longer describes what is loaded.
        wbtest::writeText(tmp.file("mine.txt"), wbtest::patternText(20));
        ASSERT_TRUE(panel.loadPath(QString::fromStdString(tmp.file("mine.txt"))));
        EXPECT_EQ(panel.displayName(), QStringLiteral("mine.txt"));
        EXPECT_FALSE(panel.manifestText().contains(QStringLiteral("thirty test quatrains")));
    }
    if (saved.isNull())
        qunsetenv("LSTM_WORKBENCH_DATA");
    else
        qputenv("LSTM_WORKBENCH_DATA", saved);
}
