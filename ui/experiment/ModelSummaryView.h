// A Keras-style model.summary(): layer, output shape and parameters per row, then the totals, FLOPs per
// sample and a training-memory estimate. Computed by wb::summarizeModel from the config alone.
#pragma once

#include <QWidget>

#include "workbench/domain/ModelSummary.h"

class QLabel;
class QTableWidget;

namespace wbui {

class ModelSummaryView : public QWidget {
    Q_OBJECT
public:
    explicit ModelSummaryView(QWidget* parent = nullptr);
    void setSummary(const wb::ModelSummary& summary, const QString& note);
    void setUnavailable(const QString& reason);
    int rowCount() const;
    QString totalsText() const;

private:
    QTableWidget* m_table = nullptr;
    QLabel* m_totals = nullptr;
};

}  // namespace wbui
