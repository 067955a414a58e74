// A classifier's confusion matrix as a small grid: one row per true class, one column per predicted class,
// each cell its count and its share of the row, shaded by that share (blue on the diagonal, where the
// model is right, red off it, where it is wrong), so the class the model gets wrong stands out.
#pragma once

#include <QWidget>

#include "workbench/domain/Evaluation.h"

class QTableWidget;

namespace wbui {

class ConfusionMatrixView : public QWidget {
    Q_OBJECT
public:
    explicit ConfusionMatrixView(QWidget* parent = nullptr);

    void setEvaluation(const wb::ClassifierEvaluation& evaluation);
    QTableWidget* grid() const { return m_grid; }

private:
    QTableWidget* m_grid = nullptr;
};

}  // namespace wbui
