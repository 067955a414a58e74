// How a classifier run does on its validation split, from the run folder's evaluation.json (so runs trained
// by lstm-workbench-cli elsewhere show it too): its accuracy against the majority-class baseline, the
// confusion matrix and precision, recall, F1 and support per class. Says so plainly when the run has none.
#pragma once

#include <QString>
#include <QWidget>

#include "workbench/domain/Evaluation.h"

class QLabel;
class QTableWidget;

namespace wbui {

class ConfusionMatrixView;

class EvaluationView : public QWidget {
    Q_OBJECT
public:
    explicit EvaluationView(QWidget* parent = nullptr);

    // Reads runDir's evaluation.json; a language model, a run without the file or an unreadable file
    // gets a sentence instead of the numbers.
    void showRun(const QString& runDir);
    void showEvaluation(const wb::ClassifierEvaluation& evaluation);

    bool hasEvaluation() const { return m_hasEvaluation; }
    // "accuracy 92.4 % vs majority baseline 68.6 % (always 'ham')", or why there is nothing to show.
    QString summaryText() const;
    // "most mistakes: 17 'spam' taken for 'ham' (9.0 % of 'spam') · macro F1 0.955 · 604 validation samples
    // at step 342"
    QString detailText() const;
    QTableWidget* matrix() const;
    QTableWidget* classTable() const { return m_classTable; }

private:
    void showMessage(const QString& message);
    void fillClassTable(const wb::ClassifierEvaluation& evaluation);

    QLabel* m_summary = nullptr;
    QLabel* m_detail = nullptr;
    QWidget* m_details = nullptr;
    ConfusionMatrixView* m_matrix = nullptr;
    QTableWidget* m_classTable = nullptr;
    bool m_hasEvaluation = false;
};

}  // namespace wbui
