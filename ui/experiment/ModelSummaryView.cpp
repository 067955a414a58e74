// The model summary table.
#include "experiment/ModelSummaryView.h"

#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "workbench/domain/Format.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

ModelSummaryView::ModelSummaryView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_table = new QTableWidget(0, 3, this);
    m_table->setHorizontalHeaderLabels({tr("Layer (type)"), tr("Output shape"), tr("Param #")});
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_table->setMinimumHeight(120);
    m_totals = new QLabel(this);
    m_totals->setWordWrap(true);
    m_totals->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_totals);
}

void ModelSummaryView::setSummary(const wb::ModelSummary& s, const QString& note) {
    m_table->setRowCount(int(s.rows.size()));
    for (int i = 0; i < int(s.rows.size()); ++i) {
        const auto& r = s.rows[std::size_t(i)];
        m_table->setItem(i, 0, new QTableWidgetItem(toQt(r.layer)));
        m_table->setItem(i, 1, new QTableWidgetItem(toQt(r.outputShape)));
        auto* params = new QTableWidgetItem(QLocale().toString(qlonglong(r.parameters)));
        params->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(i, 2, params);
    }
    m_totals->setText(
        tr("<b>Total params: %1</b> (%2 as fp32) · vocabulary %3 · outputs %4<br>"
           "FLOPs per sample: %5 forward, %6 training · training memory ≈ %7%8")
            .arg(QLocale().toString(qlonglong(s.totalParameters)), toQt(wb::humanBytes(s.parameterBytes)))
            .arg(s.vocabSize)
            .arg(s.outputs)
            .arg(toQt(wb::humanCount(s.forwardFlopsPerSample)), toQt(wb::humanCount(s.trainFlopsPerSample)),
                 toQt(wb::humanBytes(s.trainingMemoryBytes)),
                 note.isEmpty() ? QString() : QStringLiteral("<br><i>%1</i>").arg(note.toHtmlEscaped())));
}

void ModelSummaryView::setUnavailable(const QString& reason) {
    m_table->setRowCount(0);
    m_totals->setText(QStringLiteral("<i>%1</i>").arg(reason.toHtmlEscaped()));
}

int ModelSummaryView::rowCount() const { return m_table->rowCount(); }
QString ModelSummaryView::totalsText() const { return m_totals->text(); }

}  // namespace wbui
