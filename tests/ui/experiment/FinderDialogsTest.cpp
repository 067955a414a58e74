// The learning-rate and batch-size finder dialogs on a tiny model: the finder runs on its own thread, the
// plot (or table) fills point by point as it goes, the suggestion is marked and explained, and Apply hands
// the value back; closing mid-sweep stops the worker.
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "workbench/graphics/QCustomPlot.h"

#include "UiTestSupport.h"
#include "experiment/BatchSizeFinderDialog.h"
#include "experiment/LrFinderDialog.h"
#include "workbench/domain/Corpus.h"

using namespace wbui;
using wbuitest::waitFor;

namespace {

struct TinySetup {
    wbtest::TempDir tmp;
    std::string corpusPath = tmp.file("pattern.txt");
    std::shared_ptr<const wb::Corpus> corpus;
    wb::ExperimentConfig config;
    explicit TinySetup(std::size_t lines = 200) {
        wbtest::writeText(corpusPath, wbtest::patternText(lines));
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
    // Every replot while the sweep runs: how many points the curve had, and whether Apply was offered.
    struct Frame {
        int points;
        bool applyEnabled;
        int progress;
    };
    std::vector<Frame> frames;
    QObject::connect(dialog.plot(), &QCustomPlot::afterReplot, [&] {
        const int points = dialog.plot()->graphCount() ? dialog.plot()->graph(0)->data()->size() : 0;
        frames.push_back({points, dialog.applyButton()->isEnabled(), dialog.progressBar()->value()});
    });
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
    // The curve grew a point at a time, with the progress bar, before the suggestion was offered.
    // (QCustomPlot may also replot the empty plot once, when it is first laid out.)
    frames.erase(std::remove_if(frames.begin(), frames.end(), [](const Frame& f) { return f.points == 0; }),
                 frames.end());
    ASSERT_EQ(int(frames.size()), data->size() + 1) << "a replot per point, and one for the result";
    EXPECT_EQ(frames.back().points, data->size());
    for (int i = 0; i < data->size(); ++i) {
        EXPECT_EQ(frames[std::size_t(i)].points, i + 1);
        EXPECT_EQ(frames[std::size_t(i)].progress, i + 1);
        EXPECT_FALSE(frames[std::size_t(i)].applyEnabled) << "Apply offered before the sweep ended";
    }
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

// A corpus of ~1,000 training sequences: the finder times 8, 16, 32 and stops before a batch that would
// leave fewer than 20 steps per epoch (not at 1024, "the largest that fits"), and says so.
TEST(BatchSizeFinderDialog, FillsTheTableAsItGoesAndRecommendsWithinTheCorpus) {
    TinySetup s(1000);
    BatchSizeFinderDialog dialog(s.config, s.corpus);
    QSignalSpy chosen(&dialog, &BatchSizeFinderDialog::batchSizeChosen);
    QSignalSpy failed(&dialog, &BatchSizeFinderDialog::failed);
    EXPECT_TRUE(dialog.statusLabel()->text().contains(QStringLiteral("CPU · 1 thread")));
    EXPECT_FALSE(dialog.recommendedButton()->isEnabled());
    EXPECT_FALSE(dialog.selectedButton()->isEnabled());
    // Each row as it arrives: the table's size then, and whether a recommendation was offered.
    std::vector<std::pair<int, bool>> rows;
    QObject::connect(dialog.table()->model(), &QAbstractItemModel::rowsInserted, [&] {
        rows.emplace_back(dialog.table()->rowCount(), dialog.recommendedButton()->isEnabled());
    });
    dialog.start();
    ASSERT_TRUE(
        waitFor([&] { return dialog.recommendedButton()->isEnabled() || failed.count() > 0; }, 120000));
    ASSERT_EQ(failed.count(), 0);

    QTableWidget* table = dialog.table();
    ASSERT_GE(table->rowCount(), 3);
    ASSERT_EQ(int(rows.size()), table->rowCount()) << "one row at a time";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(rows[i].first, int(i) + 1);
        EXPECT_FALSE(rows[i].second) << "recommended before the finder ended";
    }
    const auto sizeAt = [&](int row) { return table->item(row, 0)->data(Qt::UserRole).toLongLong(); };
    EXPECT_EQ(sizeAt(0), 8);
    EXPECT_EQ(sizeAt(1), 16);
    // The training split, from the corpus's cap the status line states: no row beyond it.
    const qint64 lastSize = sizeAt(table->rowCount() - 1);
    EXPECT_LT(lastSize, 1024);
    int boldRows = 0;
    qint64 boldSize = 0;
    double bestUs = 1e300;
    for (int r = 0; r < table->rowCount(); ++r) {
        const double us = table->item(r, 1)->text().toDouble();
        EXPECT_GT(us, 0.0);
        bestUs = std::min(bestUs, us);
        EXPECT_GE(QLocale().toLongLong(table->item(r, 2)->text()), 20) << "row " << r;
        if (table->item(r, 0)->font().bold()) ++boldRows, boldSize = sizeAt(r);
    }
    EXPECT_EQ(boldRows, 1);
    // The recommendation: the smallest size within 5% of the fastest per sample (as shown, to 0.1 µs).
    qint64 recommended = 0;
    for (int r = table->rowCount(); r-- > 0;)
        if (table->item(r, 1)->text().toDouble() <= 1.05 * bestUs + 0.05) recommended = sizeAt(r);
    EXPECT_EQ(boldSize, recommended);
    EXPECT_TRUE(table->item(0, 0)->text().contains(QString::number(sizeAt(0))));
    // The status line says why: the fastest, and why no larger size was tried.
    const QString why = dialog.statusLabel()->text();
    EXPECT_TRUE(why.contains(QStringLiteral("Recommended: %1").arg(recommended))) << why.toStdString();
    EXPECT_TRUE(why.contains(QStringLiteral("fewer than 20 steps per epoch"))) << why.toStdString();
    EXPECT_TRUE(dialog.recommendedButton()->text().contains(QString::number(recommended)));

    // A row the user picks applies instead.
    EXPECT_FALSE(dialog.selectedButton()->isEnabled());
    table->selectRow(0);
    ASSERT_TRUE(dialog.selectedButton()->isEnabled());
    EXPECT_TRUE(dialog.selectedButton()->text().contains(QStringLiteral("8")));
    dialog.selectedButton()->click();
    ASSERT_EQ(chosen.count(), 1);
    EXPECT_EQ(chosen.at(0).at(0).toLongLong(), 8);
    EXPECT_EQ(dialog.result(), QDialog::Accepted);
}

TEST(BatchSizeFinderDialog, RecommendedAppliesTheRecommendation) {
    TinySetup s;
    BatchSizeFinderDialog dialog(s.config, s.corpus);
    QSignalSpy chosen(&dialog, &BatchSizeFinderDialog::batchSizeChosen);
    wb::BatchSizeResult r;
    r.sizes = {8, 16, 32};
    r.usPerSample = {30.0, 21.5, 24.0};
    r.stepsPerEpoch = {125, 63, 32};
    r.trainSamples = 1000;
    r.corpusCap = 50;
    r.largestTimed = 32;
    r.fastest = 16;
    r.recommended = 16;
    r.stoppedBy = wb::BatchSizeResult::Stop::Corpus;
    dialog.showResult(r);
    EXPECT_TRUE(dialog.table()->item(1, 0)->font().bold());
    EXPECT_FALSE(dialog.table()->item(2, 0)->font().bold());
    EXPECT_EQ(dialog.statusLabel()->text(),
              BatchSizeFinderDialog::explain(r, QStringLiteral("CPU · 1 thread")));
    dialog.recommendedButton()->click();
    ASSERT_EQ(chosen.count(), 1);
    EXPECT_EQ(chosen.at(0).at(0).toLongLong(), 16);
}

// Each reason the finder stopped reads as what it means for the user.
TEST(BatchSizeFinderDialog, ExplainsEachStop) {
    wb::BatchSizeResult r;
    r.sizes = {8, 16};
    r.usPerSample = {30.0, 20.0};
    r.stepsPerEpoch = {500, 250};
    r.trainSamples = 4000;
    r.corpusCap = 200;
    r.largestTimed = 16;
    r.fastest = 16;
    r.recommended = 16;
    const QString device = QStringLiteral("CPU · 2 threads");
    r.stoppedBy = wb::BatchSizeResult::Stop::Memory;
    QString text = BatchSizeFinderDialog::explain(r, device);
    EXPECT_TRUE(text.contains(QStringLiteral("Recommended: 16"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("20.0 µs"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("A batch of 32 does not fit in memory"))) << text.toStdString();
    r.stoppedBy = wb::BatchSizeResult::Stop::Limit;
    text = BatchSizeFinderDialog::explain(r, device);
    EXPECT_TRUE(text.contains(QStringLiteral("stops at 1024"))) << text.toStdString();
    r.stoppedBy = wb::BatchSizeResult::Stop::Corpus;
    text = BatchSizeFinderDialog::explain(r, device);
    EXPECT_TRUE(text.contains(QStringLiteral("4,000 sequences")) ||
                text.contains(QStringLiteral("4000 sequences")))
        << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("a batch over 200"))) << text.toStdString();
    // Two sizes within 5%: the smaller, and why.
    r.usPerSample = {20.5, 20.0};
    r.recommended = 8;
    text = BatchSizeFinderDialog::explain(r, device);
    EXPECT_TRUE(text.contains(QStringLiteral("Recommended: 8, within 5% of the fastest")))
        << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("2× the updates per epoch"))) << text.toStdString();
    wb::BatchSizeResult none;
    none.corpusCap = 50;
    EXPECT_TRUE(
        BatchSizeFinderDialog::explain(none, device).contains(QStringLiteral("Not even a batch of 8")));
}

TEST(BatchSizeFinderDialog, ClosingMidSearchStopsTheWorker) {
    TinySetup s(1000);
    auto dialog = std::make_unique<BatchSizeFinderDialog>(s.config, s.corpus);
    QSignalSpy chosen(dialog.get(), &BatchSizeFinderDialog::batchSizeChosen);
    dialog->start();
    EXPECT_TRUE(dialog->isRunning());
    dialog->reject();
    EXPECT_FALSE(dialog->isRunning());
    dialog.reset();
    EXPECT_EQ(chosen.count(), 0);
}

// Issue #35: the batch-size finder's timings on a busy machine carried no warning.
TEST(BatchSizeFinderDialog, SaysWhenTheMachineIsTooBusyForItsTimings) {
    EXPECT_TRUE(FinderDialog::busyMachineWarning(0.1, 2, 2).isEmpty());  // idle: its two threads fit
    EXPECT_TRUE(FinderDialog::busyMachineWarning(-1, 2, 2).isEmpty());   // load unknown
    const QString busy = FinderDialog::busyMachineWarning(1.6, 2, 1);
    EXPECT_TRUE(busy.contains(QStringLiteral("load 1.6 on 2 CPUs"))) << busy.toStdString();
    EXPECT_TRUE(busy.contains(QStringLiteral("noisy")));
    EXPECT_FALSE(FinderDialog::busyMachineWarning(1.0, 2, 2).isEmpty());  // one other job and two threads
}
