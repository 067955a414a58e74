// The confusion matrix grid.
#include "runs/ConfusionMatrixView.h"

#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>

#include "workbench/graphics/QtConversions.h"

namespace wbui {

namespace {

constexpr int kRowHeight = 64;  // room for the count and the share, in a square-ish cell

// Right answers in blue, mistakes in red (both readable to the colour-blind by their lightness too), as
// strong as the cell's share of its row.
QTableWidgetItem* cellItem(std::int64_t count, std::int64_t rowTotal, bool diagonal) {
    const double share = rowTotal > 0 ? static_cast<double>(count) / static_cast<double>(rowTotal) : 0.0;
    auto* item = new QTableWidgetItem(QStringLiteral("%1\n%2 %").arg(count).arg(100 * share, 0, 'f', 1));
    item->setTextAlignment(Qt::AlignCenter);
    item->setData(Qt::UserRole, static_cast<qlonglong>(count));
    const QColor hue = diagonal ? QColor(0, 114, 178) : QColor(213, 94, 0);
    QColor shade = hue;
    shade.setAlphaF(static_cast<float>(0.08 + 0.82 * share));
    item->setBackground(shade);
    item->setForeground(share > 0.55 ? QColor(Qt::white) : QColor(Qt::black));
    return item;
}

}  // namespace

ConfusionMatrixView::ConfusionMatrixView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QGridLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* predicted = new QLabel(tr("predicted class →"), this);
    predicted->setAlignment(Qt::AlignCenter);
    auto* actual = new QLabel(tr("true\nclass\n↓"), this);
    actual->setAlignment(Qt::AlignCenter);
    m_grid = new QTableWidget(this);
    m_grid->setObjectName(QStringLiteral("confusionMatrix"));
    m_grid->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_grid->setSelectionMode(QAbstractItemView::NoSelection);
    m_grid->setFocusPolicy(Qt::NoFocus);
    m_grid->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_grid->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_grid->verticalHeader()->setDefaultSectionSize(kRowHeight);
    m_grid->setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    QFont cellFont = m_grid->font();
    cellFont.setPointSizeF(cellFont.pointSizeF() * 1.15);
    m_grid->setFont(cellFont);
    m_grid->setToolTip(
        tr("Validation samples of each true class (row) by the class the model predicted "
           "(column), with the share of the row; off the diagonal are its mistakes"));
    layout->addWidget(predicted, 0, 1);
    layout->addWidget(actual, 1, 0);
    layout->addWidget(m_grid, 1, 1);
    layout->setColumnStretch(1, 1);
}

void ConfusionMatrixView::setEvaluation(const wb::ClassifierEvaluation& e) {
    const auto n = static_cast<int>(e.classes.size());
    m_grid->clear();
    m_grid->setRowCount(n);
    m_grid->setColumnCount(n);
    m_grid->setHorizontalHeaderLabels(toQt(e.classes));
    m_grid->setVerticalHeaderLabels(toQt(e.classes));
    for (int t = 0; t < n; ++t)
        for (int p = 0; p < n; ++p) m_grid->setItem(t, p, cellItem(e.matrix[t][p], e.support[t], t == p));
    // As tall as its rows (a few classes should not become a wall of colour); many classes scroll.
    const int frame = 2 * m_grid->frameWidth();
    m_grid->setMaximumHeight(m_grid->horizontalHeader()->sizeHint().height() + n * kRowHeight + frame);
}

}  // namespace wbui
