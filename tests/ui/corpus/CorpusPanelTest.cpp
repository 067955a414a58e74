// The corpus panel: statistics and class balance of a labelled corpus, a clear error for bad input, a large
// plain-text file read on a thread with progress and a Cancel that keeps the previous corpus.
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

#include "UiTestSupport.h"
#include "corpus/CorpusPanel.h"

using namespace wbui;

TEST(CorpusPanel, LabelledCorpusShowsClasses) {
    wbtest::TempDir tmp;
    wbtest::writeText(tmp.file("l.tsv"), wbtest::separableTsv(40));
    CorpusPanel panel;
    ASSERT_TRUE(wbuitest::readCorpus(panel, QString::fromStdString(tmp.file("l.tsv"))));
    EXPECT_EQ(panel.stats().documents, 40);
    EXPECT_EQ(panel.stats().classCounts.size(), 2u);
    EXPECT_TRUE(panel.corpus()->labelled());
}

TEST(CorpusPanel, MissingFileFailsWithItsName) {
    CorpusPanel panel;
    QSignalSpy failed(&panel, &CorpusPanel::loadFailed);
    EXPECT_FALSE(wbuitest::readCorpus(panel, QStringLiteral("/nonexistent/corpus.txt")));
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
        ASSERT_TRUE(wbuitest::readCorpus(panel, QString::fromStdString(dir + "/poems.json")));
        EXPECT_EQ(panel.displayName(), QStringLiteral("mini-poems"));
        EXPECT_EQ(panel.catalogSelection(), QStringLiteral("mini-poems"));
        EXPECT_TRUE(panel.manifestText().contains(QStringLiteral("thirty test quatrains")));
        // A file of the user's: the manifest no longer describes what is loaded.
        wbtest::writeText(tmp.file("mine.txt"), wbtest::patternText(20));
        ASSERT_TRUE(wbuitest::readCorpus(panel, QString::fromStdString(tmp.file("mine.txt"))));
        EXPECT_EQ(panel.displayName(), QStringLiteral("mine.txt"));
        EXPECT_FALSE(panel.manifestText().contains(QStringLiteral("thirty test quatrains")));
    }
    if (saved.isNull())
        qunsetenv("LSTM_WORKBENCH_DATA");
    else
        qputenv("LSTM_WORKBENCH_DATA", saved);
}

// A plain-text file is read on a thread of its own: loadPath returns at once, the reader reports how far it
// is, and the result is a streamed overview (no corpus held in memory). Cancel keeps the corpus loaded
// before, and the cancelled read never arrives late.
TEST(CorpusPanel, ALargeTextFileIsReadOnAThreadAndCancelKeepsThePreviousCorpus) {
    wbtest::TempDir tmp;
    wbtest::writeText(tmp.file("good.txt"), wbtest::patternText(20));
    std::string big;
    const std::string paragraph =
        "lorem ipsum dolor sit amet, consectetur adipiscing elit\nsed do eiusmod\n\n";
    while (big.size() < (64u << 20)) big += paragraph;
    wbtest::writeText(tmp.file("big.txt"), big);
    const auto documents = static_cast<std::int64_t>(big.size() / paragraph.size());

    CorpusPanel panel;
    const QString good = QString::fromStdString(tmp.file("good.txt"));
    ASSERT_TRUE(wbuitest::readCorpus(panel, good));
    QSignalSpy loaded(&panel, &CorpusPanel::corpusLoaded);
    const QString bigPath = QString::fromStdString(tmp.file("big.txt"));

    panel.loadPath(bigPath);
    EXPECT_TRUE(panel.isLoading()) << "read on the GUI thread";
    EXPECT_EQ(panel.loadingName(), QStringLiteral("big.txt"));
    panel.cancelLoading();
    EXPECT_FALSE(panel.isLoading());
    EXPECT_EQ(panel.corpusPath(), good);
    EXPECT_TRUE(panel.messageText().contains(QStringLiteral("Stopped reading big.txt")))
        << panel.messageText().toStdString();
    QTest::qWait(1500);  // longer than the read takes: a cancelled read must not arrive late
    EXPECT_EQ(loaded.count(), 0);
    EXPECT_EQ(panel.corpusPath(), good);

    auto* reader = panel.findChild<CorpusReader*>();
    ASSERT_NE(reader, nullptr);
    QSignalSpy progress(reader, &CorpusReader::progress);
    ASSERT_TRUE(wbuitest::readCorpus(panel, bigPath));
    EXPECT_GE(progress.count(), 1) << "no progress while 64 MB were read";
    EXPECT_EQ(panel.stats().documents, documents);
    EXPECT_EQ(panel.corpus(), nullptr) << "plain text is read streamed, not held";
    EXPECT_EQ(panel.previewRows(), 20);
    EXPECT_EQ(loaded.count(), 1);
}
