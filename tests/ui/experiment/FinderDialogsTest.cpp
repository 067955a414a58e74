// The learning-rate and batch-size finder dialogs on a tiny model: the sweep runs on its own thread, the
// plot (or table) fills, the suggestion is marked, and Apply hands the value back; closing mid-sweep stops
// the worker.
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>

#include <gtest/gtest.h>

#include <memory>

#include <qcustomplot.h>

#include "UiTestSupport.h"
#include "experiment/BatchSizeFinderDialog.h"
#include "experiment/LrFinderDialog.h"
#include "workbench/Corpus.h"

using namespace wbui;
using wbuitest::waitFor;

namespace {

struct TinySetup {
    wbtest::TempDir tmp;
    std::string corpusPath = tmp.file("pattern.txt");
    std::shared_ptr<const wb::Corpus> corpus;
    wb::ExperimentConfig config;
    TinySetup() {
        wbtest::writeText(corpusPath, wbtest::patternText(200));
        corpus = std::make_shared<wb::Corpus>(wb::loadCorpus(corpusPath));
        config = wbuitest::tinyConfig(wb::Task::LanguageModel, corpusPath);
    }
};

}  // namespace

TEST(LrFinderDialog, SweepPlotsMarksSuggestionAndApplies) {
    TinySetup s;
    LrFinderDialog dialog(s.config, s.corpus);
    QSignalSpy chosen(&dialog, &LrFinderDialog::rateChosen);
    QSignalSpy failed(&dialog, &LrFinderDialog::failed);
    EXPECT_FALSE(dialog.applyButton()->isEnabled());
    // Before any point arrives the axis already spans the sweep.
    EXPECT_NEAR(dialog.plot()->xAxis->range().lower, 1e-5, 1e-9);
    EXPECT_NEAR(dialog.plot()->xAxis->range().upper, 1.0, 1e-9);
    dialog.start();
    EXPECT_TRUE(dialog.progressBar()->isVisibleTo(&dialog));
    ASSERT_TRUE(waitFor([&] { return dialog.applyButton()->isEnabled() || failed.count() > 0; }, 120000));
    ASSERT_EQ(failed.count(), 0);
    EXPECT_FALSE(dialog.progressBar()->isVisibleTo(&dialog));

    const double rate = dialog.suggestedRate();
    EXPECT_GE(rate, 1e-5);
    EXPECT_LE(rate, 1.0);
    ASSERT_EQ(dialog.plot()->graphCount(), 1);
    EXPECT_GE(dialog.plot()->graph(0)->dataCount(), 3);
    // The suggestion is marked: a vertical line at the rate and its label.
    ASSERT_GE(dialog.plot()->itemCount(), 2);
    auto* line = qobject_cast<QCPItemStraightLine*>(dialog.plot()->item(0));
    ASSERT_NE(line, nullptr);
    EXPECT_DOUBLE_EQ(line->point1->coords().x(), rate);
    EXPECT_TRUE(dialog.statusLabel()->text().contains(QStringLiteral("Suggested")));
    // The y axis shows the useful part: its top is not the exploding tail (at most ~4x the best loss).
    const auto* data = dialog.plot()->graph(0)->data().data();
    double lowest = data->at(0)->value;
    for (int i = 0; i < data->size(); ++i) lowest = std::min(lowest, data->at(i)->value);
    EXPECT_LE(dialog.plot()->yAxis->range().lower, lowest);
    EXPECT_GE(dialog.plot()->yAxis->range().upper, data->at(0)->value);

    dialog.applyButton()->click();
    ASSERT_EQ(chosen.count(), 1);
    EXPECT_DOUBLE_EQ(chosen.at(0).at(0).toDouble(), rate);
    EXPECT_EQ(dialog.result(), QDialog::Accepted);
}

TEST(LrFinderDialog, ClosingMidSweepStopsTheWorker) {
    TinySetup s;
    auto dialog = std::make_unique<LrFinderDialog>(s.config, s.corpus);
    QSignalSpy chosen(dialog.get(), &LrFinderDialog::rateChosen);
    dialog->start();
    EXPECT_TRUE(dialog->isRunning());
    dialog->reject();  // Close: cancels and waits for the step in flight
    EXPECT_FALSE(dialog->isRunning());
    dialog.reset();
    EXPECT_EQ(chosen.count(), 0);
}

TEST(BatchSizeFinderDialog, TimesDoublingSizesAndAppliesFastestOrLargest) {
    TinySetup s;
    BatchSizeFinderDialog dialog(s.config, s.corpus);
    QSignalSpy chosen(&dialog, &BatchSizeFinderDialog::batchSizeChosen);
    QSignalSpy failed(&dialog, &BatchSizeFinderDialog::failed);
    EXPECT_TRUE(dialog.statusLabel()->text().contains(QStringLiteral("CPU · 1 thread")));
    EXPECT_FALSE(dialog.fastestButton()->isEnabled());
    EXPECT_FALSE(dialog.largestButton()->isEnabled());
    dialog.start();
    ASSERT_TRUE(waitFor([&] { return dialog.fastestButton()->isEnabled() || failed.count() > 0; }, 120000));
    ASSERT_EQ(failed.count(), 0);

    QTableWidget* table = dialog.table();
    ASSERT_GE(table->rowCount(), 2);
    EXPECT_EQ(table->item(0, 0)->text(), QStringLiteral("8"));
    EXPECT_EQ(table->item(1, 0)->text(), QStringLiteral("16"));
    int boldRows = 0;
    qint64 boldSize = 0;
    for (int r = 0; r < table->rowCount(); ++r) {
        EXPECT_GT(table->item(r, 1)->text().toDouble(), 0.0);
        if (table->item(r, 0)->font().bold()) ++boldRows, boldSize = table->item(r, 0)->text().toLongLong();
    }
    EXPECT_EQ(boldRows, 1);  // the fastest per sample
    EXPECT_TRUE(dialog.fastestButton()->text().contains(QString::number(boldSize)));
    const qint64 largest = table->item(table->rowCount() - 1, 0)->text().toLongLong();
    EXPECT_TRUE(dialog.largestButton()->text().contains(QString::number(largest)));

    dialog.largestButton()->click();
    ASSERT_EQ(chosen.count(), 1);
    EXPECT_EQ(chosen.at(0).at(0).toLongLong(), largest);
    EXPECT_EQ(dialog.result(), QDialog::Accepted);
}
