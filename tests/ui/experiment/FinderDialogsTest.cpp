// The learning-rate and batch-size finder dialogs on a tiny model: the sweep runs on its own thread, the
// plot (or table) fills, the suggestion is marked, and Apply hands the value back; closing mid-sweep stops
// the worker.
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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
    ASSERT_EQ(dialog.plot()->graphCount(), 1);
    const auto* data = dialog.plot()->graph(0)->data().data();
    ASSERT_GE(data->size(), 3);
    // The finder stops the sweep once the smoothed loss passes 4x its best so far (after 6 points): every
    // point before the last is within that cap (the last may be the one that crossed it).
    double best = data->at(0)->value;
    int minIndex = 0;
    for (int i = 0; i < data->size(); ++i) {
        if (data->at(i)->value < best) best = data->at(i)->value, minIndex = i;
        if (i > 5 && i < data->size() - 1)
            EXPECT_LE(data->at(i)->value, 4 * best) << "point " << i << " past the cap";
    }
    // The y axis shows the useful part: from under the minimum to a little above the starting loss (a
    // quarter of the fall plus 5% of the start, and the 5% padding), not up to the exploding tail.
    const double front = data->at(0)->value;
    const double cap = front + 0.25 * (front - best) + 0.05 * std::abs(front);
    const double pad = std::max(0.05 * (cap - best), 1e-3);
    EXPECT_LE(dialog.plot()->yAxis->range().lower, best);
    EXPECT_GE(dialog.plot()->yAxis->range().upper, front);
    EXPECT_LE(dialog.plot()->yAxis->range().upper, std::max(cap, best + pad) + pad + 1e-9);
    // The suggestion is the rate where the plotted loss falls fastest, before its minimum: the rates are
    // evenly spaced in log10, so that is the largest drop between neighbours. A rate a decade under the
    // minimum's when the loss never falls.
    double steepestDrop = 0, expectedRate = data->at(minIndex)->key / 10;
    for (int i = 1; i <= minIndex; ++i) {
        const double drop = data->at(i - 1)->value - data->at(i)->value;
        if (drop > steepestDrop) steepestDrop = drop, expectedRate = data->at(i)->key;
    }
    EXPECT_DOUBLE_EQ(rate, expectedRate);
    EXPECT_LE(rate, data->at(minIndex)->key) << "the suggestion must come before the loss's minimum";
    // The suggestion is marked: a vertical line at the rate and its label.
    ASSERT_GE(dialog.plot()->itemCount(), 2);
    auto* line = qobject_cast<QCPItemStraightLine*>(dialog.plot()->item(0));
    ASSERT_NE(line, nullptr);
    EXPECT_DOUBLE_EQ(line->point1->coords().x(), rate);
    EXPECT_TRUE(dialog.statusLabel()->text().contains(QStringLiteral("Suggested")));

    dialog.applyButton()->click();
    ASSERT_EQ(chosen.count(), 1);
    EXPECT_DOUBLE_EQ(chosen.at(0).at(0).toDouble(), rate);
    EXPECT_EQ(dialog.result(), QDialog::Accepted);
}

// The plot's y axis on a known sweep: flat, a steep fall, a minimum of 1.0, then a tail exploding to 4.0
// (the finder's stop). The axis shows the fall and the minimum, and cuts the tail: its top stays within a
// quarter of the fall above the starting loss (plus 5% of it and the padding), far under the tail's 4.0.
TEST(LrFinderDialog, TheYAxisCutsTheExplodingTail) {
    TinySetup s;
    LrFinderDialog dialog(s.config, s.corpus);
    wb::LrFinderResult r;
    r.losses = {2.0, 2.0, 1.95, 1.6, 1.1, 1.0, 1.3, 2.5, 4.0};
    for (std::size_t i = 0; i < r.losses.size(); ++i) r.rates.push_back(1e-5 * std::pow(10.0, 0.625 * i));
    r.suggestedRate = r.rates[4];
    dialog.showResult(r);
    const double start = 2.0, lowest = 1.0, tail = 4.0;
    const double top = dialog.plot()->yAxis->range().upper, bottom = dialog.plot()->yAxis->range().lower;
    EXPECT_LT(bottom, lowest);
    EXPECT_GT(top, start) << "the starting loss must be on the plot";
    const double cap = start + 0.25 * (start - lowest) + 0.05 * start;  // 2.35
    const double pad = 0.05 * (cap - lowest);
    EXPECT_LE(top, cap + pad + 1e-9) << "the y axis reaches into the exploding tail";
    EXPECT_LT(top, tail);
    EXPECT_DOUBLE_EQ(dialog.suggestedRate(), r.rates[4]);
    EXPECT_TRUE(dialog.applyButton()->isEnabled());
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
