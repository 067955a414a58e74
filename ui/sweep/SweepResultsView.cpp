// A sweep's cell grid and result table.
#include "sweep/SweepResultsView.h"

#include <QHeaderView>
#include <QTableWidget>

#include "workbench/graphics/QtConversions.h"

namespace wbui {

namespace {

// A table cell that sorts by its number, not its text ("1,204 ± 9" after "987 ± 3").
class NumberItem : public QTableWidgetItem {
public:
    NumberItem(const QString& text, double value) : QTableWidgetItem(text) { setData(Qt::UserRole, value); }
    bool operator<(const QTableWidgetItem& other) const override {
        return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
    }
};

QTableWidgetItem* measureItem(const wb::SweepMeasure& m, int decimals) {
    QString text = QStringLiteral("—");
    if (m.present) {
        text = QString::number(m.mean, 'f', decimals);
        if (m.std > 0) text += QStringLiteral(" ± ") + QString::number(m.std, 'f', decimals);
    }
    auto* item = new NumberItem(text, m.present ? m.mean : -1);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

QColor stateColor(wb::CellState s) {
    switch (s) {
        case wb::CellState::Running:
            return QColor(200, 220, 255);
        case wb::CellState::Done:
            return QColor(205, 240, 205);
        case wb::CellState::Failed:
            return QColor(250, 200, 200);
        default:
            return QColor(236, 236, 236);
    }
}

}  // namespace

SweepResultsView::SweepResultsView(QWidget* parent)
    : QSplitter(Qt::Horizontal, parent),
      m_cells(new QTableWidget(0, 5, this)),
      m_results(new QTableWidget(this)) {
    m_cells->setHorizontalHeaderLabels(
        {tr("Cell"), tr("State"), tr("samples/s"), tr("Peak RSS, MB"), tr("Run folder")});
    m_cells->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_cells->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_cells->verticalHeader()->setVisible(false);
    m_cells->horizontalHeader()->setStretchLastSection(true);
    m_cells->setToolTip(tr("Every run of the grid; double-click a finished one to open it for comparison"));
    connect(m_cells, &QTableWidget::cellDoubleClicked, this,
            [this](int row, int) { Q_EMIT cellOpened(row); });
    m_results->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_results->setSortingEnabled(true);
    m_results->verticalHeader()->setVisible(false);
    m_results->setToolTip(
        tr("One row per cell: mean ± standard deviation over its repeats. Click a header to sort."));
    addWidget(m_cells);
    addWidget(m_results);
    setSizes({420, 700});
}

void SweepResultsView::clear() {
    m_cells->setRowCount(0);
    m_results->setRowCount(0);
}

void SweepResultsView::showCells(const wb::Sweep& sweep, const wb::SweepResults& results) {
    const auto& cells = sweep.cells;
    m_cells->setRowCount(int(cells.size()));
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const auto& c = cells[i];
        const auto set = [&](int col, const QString& text) {
            auto* item = m_cells->item(int(i), col);
            if (!item) {
                item = new QTableWidgetItem;
                m_cells->setItem(int(i), col, item);
            }
            item->setText(text);
            return item;
        };
        set(0, toQt(sweep.describe(c)))->setToolTip(toQt(sweep.describe(c)));
        auto* state = set(1, toQt(c.shownState()));
        state->setBackground(stateColor(c.state));
        state->setToolTip(c.error.empty() ? QString() : toQt(c.error));
        const auto* run = results.runOf(c.index, c.repeat);
        const auto speed = run ? run->measure(wb::sweepcolumn::kSamplesPerSecond) : wb::SweepMeasure{};
        set(2, speed.present ? QString::number(speed.mean, 'f', 0) : QString());
        set(3, c.peakRssBytes > 0 ? QString::number(double(c.peakRssBytes) / (1024.0 * 1024.0), 'f', 0)
                                  : QString());
        set(4, toQt(c.runDir));
    }
    if (m_cells->columnWidth(0) < 60 || m_cells->rowCount() != m_cellsSized) {
        m_cells->resizeColumnsToContents();
        m_cellsSized = m_cells->rowCount();
    }
}

void SweepResultsView::showResults(const wb::SweepResults& results) {
    QStringList headers;
    for (const auto& a : results.axes) headers << toQt(a);
    headers << tr("runs");
    std::vector<const wb::SweepColumn*> shown;
    for (const auto& column : results.columns)
        if (column.shown) {
            shown.push_back(&column);
            headers << toQt(results.title(column));
        }
    m_results->setSortingEnabled(false);
    m_results->clear();
    m_results->setColumnCount(int(headers.size()));
    m_results->setHorizontalHeaderLabels(headers);
    m_results->setRowCount(int(results.cells.size()));
    for (int row = 0; row < int(results.cells.size()); ++row) {
        const auto& r = results.cells[std::size_t(row)];
        int col = 0;
        for (const auto& v : r.values) {
            bool numeric = false;
            const double x = toQt(v).toDouble(&numeric);
            m_results->setItem(row, col++,
                               numeric ? new NumberItem(toQt(v), x) : new QTableWidgetItem(toQt(v)));
        }
        m_results->setItem(row, col++, new NumberItem(QString::number(r.runs), r.runs));
        for (const auto* column : shown) {
            auto* item = measureItem(r.measure(column->key), column->decimals);
            // A speed measured while another run shared the machine is flagged, as in Compare.
            if (column->speed && !r.overlap.empty()) {
                item->setText(QStringLiteral("⚠ ") + item->text());
                item->setToolTip(toQt(r.overlap));
            }
            m_results->setItem(row, col++, item);
        }
    }
    m_results->setSortingEnabled(true);
    m_results->resizeColumnsToContents();
}

}  // namespace wbui
