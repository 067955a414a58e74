// The evaluation of a classifier run, offscreen: the confusion matrix's cells and shading, the per-class
// table and the baseline sentence, for a hand-made evaluation and for a run trained here and loaded in the
// playground; and a plain sentence for a run without evaluation.json and for a language model.
#include <QSignalSpy>
#include <QTableWidget>

#include <gtest/gtest.h>

#include <filesystem>

#include "UiTestSupport.h"
#include "playground/PlaygroundPanel.h"
#include "runs/EvaluationView.h"
#include "workbench/domain/Evaluation.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/graphics/QtConversions.h"

using namespace wbui;
namespace fs = std::filesystem;

namespace {

qlonglong cellCount(const QTableWidget* grid, int row, int column) {
    return grid->item(row, column)->data(Qt::UserRole).toLongLong();
}

}  // namespace

TEST(EvaluationView, ShowsTheMatrixTheClassScoresAndTheBaseline) {
    EvaluationView view;
    // 50 ham kept, 3 ham flagged; 10 spam missed, 20 caught: 84.3 % right, 63.9 % of the split is ham.
    view.showEvaluation(wb::evaluateConfusion({"ham", "spam"}, {{50, 3}, {10, 20}}, 12));
    ASSERT_TRUE(view.hasEvaluation());
    EXPECT_TRUE(view.summaryText().startsWith(
        QStringLiteral("accuracy 84.3 % vs majority baseline 63.9 % (always 'ham')")))
        << view.summaryText().toStdString();
    EXPECT_EQ(view.detailText(),
              QStringLiteral("most mistakes: 10 'spam' taken for 'ham' (33.3 % of 'spam') · "
                             "macro F1 0.820 · 83 validation samples at step 12"));

    const QTableWidget* grid = view.matrix();
    ASSERT_EQ(grid->rowCount(), 2);
    ASSERT_EQ(grid->columnCount(), 2);
    EXPECT_EQ(grid->verticalHeaderItem(1)->text(), QStringLiteral("spam"));   // rows: true class
    EXPECT_EQ(grid->horizontalHeaderItem(0)->text(), QStringLiteral("ham"));  // columns: predicted
    EXPECT_EQ(cellCount(grid, 0, 1), 3);
    EXPECT_EQ(cellCount(grid, 1, 0), 10);
    EXPECT_EQ(grid->item(1, 0)->text(), QStringLiteral("10\n33.3 %"));  // the share of its row
    // Shaded by the row's share: 10 of 30 spam missed is darker than 3 of 53 ham flagged.
    EXPECT_GT(grid->item(1, 0)->background().color().alphaF(),
              grid->item(0, 1)->background().color().alphaF());

    const QTableWidget* classes = view.classTable();
    ASSERT_EQ(classes->rowCount(), 2);
    EXPECT_EQ(classes->item(1, 0)->text(), QStringLiteral("spam"));
    EXPECT_EQ(classes->item(1, 1)->text(), QStringLiteral("0.870"));  // precision 20 / 23
    EXPECT_EQ(classes->item(1, 2)->text(), QStringLiteral("0.667"));  // recall 20 / 30
    EXPECT_EQ(classes->item(1, 4)->text(), QStringLiteral("30"));
}

TEST(EvaluationView, SaysWhenAClassIsNeverPredicted) {
    EvaluationView view;
    view.showEvaluation(wb::evaluateConfusion({"a", "b"}, {{4, 0}, {6, 0}}, 1));
    EXPECT_EQ(view.classTable()->item(1, 1)->text(), QStringLiteral("0.000"));
    EXPECT_TRUE(view.classTable()->item(1, 1)->toolTip().contains(QStringLiteral("never predicted")));
    EXPECT_TRUE(view.classTable()->item(0, 1)->toolTip().isEmpty());
}

TEST(EvaluationView, ATrainedClassifierShowsItsValidationSplitInThePlayground) {
    const QString run = wbuitest::trainedClassifierRun();
    PlaygroundPanel panel;
    QSignalSpy errors(&panel, &PlaygroundPanel::errorOccurred);
    panel.loadRun(run);
    ASSERT_TRUE(wbuitest::waitFor([&] { return !panel.loadedRun().isEmpty() || errors.count() > 0; }));
    ASSERT_EQ(errors.count(), 0) << errors.value(0).value(1).toString().toStdString();
    const EvaluationView* view = panel.evaluationView();
    ASSERT_TRUE(view->hasEvaluation()) << view->summaryText().toStdString();
    // separableTsv(160): 80 rows of each class, a stratified 20 % of each validated; on a tie the
    // baseline is the first class.
    EXPECT_TRUE(view->summaryText().contains(QStringLiteral("vs majority baseline 50.0 % (always 'neg')")))
        << view->summaryText().toStdString();
    const auto evaluation = wb::loadEvaluation(toStd(run));
    ASSERT_TRUE(evaluation.has_value());
    const QTableWidget* grid = view->matrix();
    ASSERT_EQ(grid->rowCount(), 2);
    qlonglong total = 0;
    for (int t = 0; t < 2; ++t)
        for (int p = 0; p < 2; ++p) {
            EXPECT_EQ(cellCount(grid, t, p), evaluation->matrix[t][p]);
            total += cellCount(grid, t, p);
        }
    EXPECT_EQ(total, 32);
    EXPECT_TRUE(view->summaryText().startsWith(
        QStringLiteral("accuracy %1 %").arg(100 * evaluation->accuracy, 0, 'f', 1)));
}

TEST(EvaluationView, ARunWithoutEvaluationOrALanguageModelIsSaidInWords) {
    wbtest::TempDir dir;
    const fs::path older = dir.path() / "older-classifier";
    fs::copy(toStd(wbuitest::trainedClassifierRun()), older);
    fs::remove(older / wb::runfiles::kEvaluation);
    EvaluationView view;
    view.showRun(QString::fromStdString(older.string()));
    EXPECT_FALSE(view.hasEvaluation());
    EXPECT_TRUE(view.summaryText().contains(QStringLiteral("no evaluation.json")))
        << view.summaryText().toStdString();
    EXPECT_FALSE(view.matrix()->isVisibleTo(&view));

    view.showRun(wbuitest::trainedLanguageModelRun());
    EXPECT_FALSE(view.hasEvaluation());
    EXPECT_TRUE(view.summaryText().contains(QStringLiteral("language model")))
        << view.summaryText().toStdString();
}
