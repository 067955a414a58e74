// The evaluation of a classifier run.
#include "runs/EvaluationView.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "runs/ConfusionMatrixView.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

namespace {

enum Column { kClass, kPrecision, kRecall, kF1, kSupport, kColumns };

QTableWidgetItem* numberItem(const QString& text) {
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

QString ratio(double value) { return QString::number(value, 'f', 3); }

std::int64_t timesPredicted(const wb::ClassifierEvaluation& e, int predictedClass) {
    std::int64_t count = 0;
    for (const auto& row : e.matrix) count += row[predictedClass];
    return count;
}

// The cell off the diagonal with the most samples: the mistake to look at first.
QString mostMistakes(const wb::ClassifierEvaluation& e) {
    std::size_t worstTrue = 0, worstPredicted = 0;
    std::int64_t worst = 0;
    for (std::size_t t = 0; t < e.classes.size(); ++t)
        for (std::size_t p = 0; p < e.classes.size(); ++p)
            if (t != p && e.matrix[t][p] > worst) {
                worst = e.matrix[t][p];
                worstTrue = t;
                worstPredicted = p;
            }
    if (worst == 0) return EvaluationView::tr("no mistakes");
    return EvaluationView::tr("most mistakes: %1 '%2' taken for '%3' (%4 % of '%2')")
        .arg(worst)
        .arg(toQt(e.classes[worstTrue]), toQt(e.classes[worstPredicted]))
        .arg(100.0 * static_cast<double>(worst) / static_cast<double>(e.support[worstTrue]), 0, 'f', 1);
}

}  // namespace

EvaluationView::EvaluationView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("evaluationSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText);
    QFont headline = m_summary->font();
    headline.setBold(true);
    headline.setPointSizeF(headline.pointSizeF() * 1.15);
    m_summary->setFont(headline);
    layout->addWidget(m_summary);

    m_details = new QWidget(this);
    auto* details = new QVBoxLayout(m_details);
    details->setContentsMargins(0, 0, 0, 0);
    m_detail = new QLabel(m_details);
    m_detail->setObjectName(QStringLiteral("evaluationDetail"));
    m_detail->setWordWrap(true);
    m_detail->setTextFormat(Qt::PlainText);
    m_matrix = new ConfusionMatrixView(m_details);
    m_classTable = new QTableWidget(0, kColumns, m_details);
    m_classTable->setObjectName(QStringLiteral("classMetrics"));
    m_classTable->setHorizontalHeaderLabels(
        {tr("Class"), tr("Precision"), tr("Recall"), tr("F1"), tr("Support")});
    m_classTable->horizontalHeaderItem(kPrecision)
        ->setToolTip(tr("Of the samples predicted as this class, the share that are; 0 when the model never "
                        "predicts it"));
    m_classTable->horizontalHeaderItem(kRecall)->setToolTip(tr("Of this class's samples, the share found"));
    m_classTable->horizontalHeaderItem(kSupport)->setToolTip(tr("Validation samples of this class"));
    m_classTable->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_classTable->verticalHeader()->hide();
    m_classTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_classTable->setSelectionMode(QAbstractItemView::NoSelection);
    m_classTable->setAlternatingRowColors(true);
    details->addWidget(m_detail);
    details->addWidget(m_matrix);
    details->addWidget(m_classTable);
    details->addStretch(1);
    layout->addWidget(m_details, 1);
    showMessage(tr("Load a classifier run to see how it does on its validation split."));
}

void EvaluationView::showRun(const QString& runDir) {
    try {
        if (wb::loadRunFolder(toStd(runDir)).config.task == wb::Task::LanguageModel)
            return showMessage(
                tr("A language model has no classes to confuse: the confusion matrix and the "
                   "per-class scores are for classifiers."));
        if (const auto evaluation = wb::loadEvaluation(toStd(runDir))) return showEvaluation(*evaluation);
        showMessage(
            tr("This run has no evaluation.json: it was trained before LSTM Workbench saved one, or "
               "stopped before its first validation. Resuming it for another epoch writes one."));
    } catch (const std::exception& e) {
        showMessage(tr("The evaluation cannot be shown: %1").arg(toQt(e.what())));
    }
}

void EvaluationView::showEvaluation(const wb::ClassifierEvaluation& e) {
    m_hasEvaluation = true;
    m_summary->setText(tr("accuracy %1 % vs majority baseline %2 % (always '%3')")
                           .arg(100 * e.accuracy, 0, 'f', 1)
                           .arg(100 * e.majorityAccuracy, 0, 'f', 1)
                           .arg(toQt(e.majorityClass)));
    m_detail->setText(tr("%1 · macro F1 %2 · %3 validation samples at step %4")
                          .arg(mostMistakes(e), ratio(e.macroF1))
                          .arg(e.total())
                          .arg(e.step));
    m_summary->setToolTip(
        tr("The majority baseline always answers the validation split's most frequent "
           "class: an accuracy near it means the model learned little beyond the class "
           "sizes"));
    m_matrix->setEvaluation(e);
    fillClassTable(e);
    m_details->show();
}

void EvaluationView::fillClassTable(const wb::ClassifierEvaluation& e) {
    const auto n = static_cast<int>(e.classes.size());
    m_classTable->setRowCount(n);
    for (int c = 0; c < n; ++c) {
        m_classTable->setItem(c, kClass, new QTableWidgetItem(toQt(e.classes[c])));
        auto* precision = numberItem(ratio(e.precision[c]));
        if (timesPredicted(e, c) == 0) precision->setToolTip(tr("never predicted: precision taken as 0"));
        m_classTable->setItem(c, kPrecision, precision);
        m_classTable->setItem(c, kRecall, numberItem(ratio(e.recall[c])));
        m_classTable->setItem(c, kF1, numberItem(ratio(e.f1[c])));
        m_classTable->setItem(c, kSupport, numberItem(QString::number(e.support[c])));
    }
    // As tall as its rows: the space below belongs to nobody rather than to empty table.
    m_classTable->setMaximumHeight(m_classTable->horizontalHeader()->sizeHint().height() +
                                   m_classTable->verticalHeader()->length() + 2 * m_classTable->frameWidth());
}

void EvaluationView::showMessage(const QString& message) {
    m_hasEvaluation = false;
    m_summary->setText(message);
    m_summary->setToolTip({});
    m_details->hide();
}

QString EvaluationView::summaryText() const { return m_summary->text(); }
QString EvaluationView::detailText() const { return m_detail->text(); }
QTableWidget* EvaluationView::matrix() const { return m_matrix->grid(); }

}  // namespace wbui
