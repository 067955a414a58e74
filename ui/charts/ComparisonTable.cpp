// The comparison table.
#include "charts/ComparisonTable.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "charts/ReplotThrottle.h"
#include "common/QtConversions.h"
#include "runs/RunCollection.h"

namespace wbui {

namespace {
QTableWidgetItem* numberItem(double value, int decimals, const QString& suffix = {}) {
    auto* item = new QTableWidgetItem(value > 0 ? QString::number(value, 'f', decimals) + suffix : QStringLiteral("–"));
    item->setData(Qt::UserRole, value);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}
}  // namespace

ComparisonTable::ComparisonTable(RunCollection* runs, QWidget* parent) : QWidget(parent), m_runs(runs) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    m_target = new QDoubleSpinBox(this);
    m_target->setRange(0.0, 100.0);
    m_target->setDecimals(3);
    m_target->setSingleStep(0.1);
    m_target->setValue(2.0);
    m_target->setToolTip(tr("Time to target: wall-clock seconds until the validation loss (train loss when never "
                            "validated) first reaches this value"));
    bar->addWidget(new QLabel(tr("Target loss:"), this));
    bar->addWidget(m_target);
    bar->addStretch(1);
    layout->addLayout(bar);

    m_table = new QTableWidget(0, 8, this);
    m_table->setHorizontalHeaderLabels({tr("Run"), tr("Device"), tr("samples/s"), tr("µs/sample"),
                                        tr("time to target"), tr("best val loss"), tr("best val acc"),
                                        tr("speed-up")});
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    layout->addWidget(m_table, 1);

    m_throttle = new ReplotThrottle(this, 250);  // numbers, not curves: 4 Hz reads better
    connect(m_throttle, &ReplotThrottle::due, this, &ComparisonTable::refresh);
    connect(m_target, &QDoubleSpinBox::valueChanged, this, &ComparisonTable::refresh);
    for (auto signal : {&RunCollection::runAdded, &RunCollection::runRemoved, &RunCollection::metricsAppended,
                        &RunCollection::runUpdated})
        connect(m_runs, signal, m_throttle, &ReplotThrottle::request);
    connect(m_runs, &RunCollection::cleared, this, &ComparisonTable::refresh);
}

double ComparisonTable::targetLoss() const { return m_target->value(); }
void ComparisonTable::setTargetLoss(double loss) { m_target->setValue(loss); }

void ComparisonTable::refresh() {
    try {
        m_rows = wb::compareRuns(m_runs->records(), targetLoss());
    } catch (const std::exception&) {
        m_rows.clear();
    }
    // One row per run, in the collection's order: name them as the chart panels and the legend do
    // ("CPU · 2 threads · fp32", the host for a run from another machine), not the core's plain label.
    for (int i = 0; i < int(m_rows.size()) && i < m_runs->size(); ++i)
        if (!m_runs->at(i).label.isEmpty()) m_rows[std::size_t(i)].label = toStd(m_runs->at(i).label);
    m_table->setSortingEnabled(false);
    m_table->setRowCount(int(m_rows.size()));
    for (int i = 0; i < int(m_rows.size()); ++i) {
        const auto& r = m_rows[std::size_t(i)];
        auto* run = new QTableWidgetItem(toQt(r.label.empty() ? r.runId : r.label));
        if (i < m_runs->size()) run->setForeground(m_runs->at(i).color);
        run->setToolTip(toQt(r.runId));
        m_table->setItem(i, 0, run);
        m_table->setItem(i, 1, new QTableWidgetItem(toQt(r.device)));
        m_table->setItem(i, 2, numberItem(r.samplesPerSecond, 1));
        m_table->setItem(i, 3, numberItem(r.usPerSample, 1));
        auto* target = new QTableWidgetItem(r.secondsToTarget >= 0 ? humanDuration(r.secondsToTarget) : tr("not reached"));
        target->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(i, 4, target);
        m_table->setItem(i, 5, numberItem(r.bestValLoss, 4));
        m_table->setItem(i, 6, r.bestValAccuracy > 0 ? numberItem(r.bestValAccuracy * 100.0, 1, QStringLiteral(" %"))
                                                      : numberItem(0, 0));
        m_table->setItem(i, 7, numberItem(r.speedup, 2, QStringLiteral("×")));
    }
    Q_EMIT rowsChanged();
}

}  // namespace wbui
