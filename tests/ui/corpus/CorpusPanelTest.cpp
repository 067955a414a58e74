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
