// A sweep's two tables side by side: the live grid of cells (state, samples/s, peak memory, run folder; a
// finished one opens on double-click) and the sortable result table, one row per grid point with every
// shown column of the core's column table (workbench/domain/SweepResults.h) as mean ± std over the repeats.
#pragma once

#include <QSplitter>

#include "workbench/domain/SweepResults.h"

class QTableWidget;

namespace wbui {

class SweepResultsView : public QSplitter {
    Q_OBJECT
public:
    explicit SweepResultsView(QWidget* parent = nullptr);

    void showCells(const wb::Sweep& sweep, const wb::SweepResults& results);
    void showResults(const wb::SweepResults& results);
    void clear();

    QTableWidget* cellTable() const { return m_cells; }
    QTableWidget* resultTable() const { return m_results; }

Q_SIGNALS:
    void cellOpened(int index);  // a finished cell, double-clicked

private:
    QTableWidget* m_cells;
    QTableWidget* m_results;
    int m_cellsSized = -1;
};

}  // namespace wbui
