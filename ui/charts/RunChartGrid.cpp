// A grid of per-run live charts.
#include "charts/RunChartGrid.h"

#include <QGridLayout>
#include <QLabel>

#include <algorithm>
#include <cmath>

#include "charts/ReplotThrottle.h"
#include "charts/RunChartPanel.h"
#include "runs/RunCollection.h"

namespace wbui {

RunChartGrid::RunChartGrid(RunCollection* runs, QWidget* parent) : QScrollArea(parent), m_runs(runs) {
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    m_container = new QWidget(this);
    new QGridLayout(m_container);
    setWidget(m_container);
    m_throttle = new ReplotThrottle(this);
    connect(m_throttle, &ReplotThrottle::due, this, &RunChartGrid::flush);

    connect(m_runs, &RunCollection::runAdded, this, [this](const QString& key) {
        addPanel(key);
        relayout();
    });
    connect(m_runs, &RunCollection::runRemoved, this, [this](const QString& key) {
        delete m_panels.take(key);
        m_dirty.remove(key);
        m_throttle->request();  // the others' names: what they share changed
        relayout();
    });
    connect(m_runs, &RunCollection::cleared, this, [this] {
        qDeleteAll(m_panels);
        m_panels.clear();
        m_dirty.clear();
        relayout();
    });
    connect(m_runs, &RunCollection::metricsAppended, this, [this](const QString& key) {
        m_dirty.insert(key);
        m_throttle->request();
    });
    connect(m_runs, &RunCollection::runUpdated, this, [this](const QString& key) {
        m_dirty.insert(key);
        m_rebuild.insert(key);
        m_throttle->request();
    });
    for (int i = 0; i < m_runs->size(); ++i) addPanel(m_runs->at(i).key);
    relayout();
}

QList<RunChartPanel*> RunChartGrid::panels() const {
    QList<RunChartPanel*> out;
    for (int i = 0; i < m_runs->size(); ++i)
        if (auto* p = m_panels.value(m_runs->at(i).key)) out << p;
    return out;
}

void RunChartGrid::addPanel(const QString& key) {
    const int index = m_runs->indexOf(key);
    if (m_panels.contains(key) || index < 0 || !m_runs->at(index).trainedHere) return;
    auto* panel = new RunChartPanel(m_container);
    m_panels.insert(key, panel);
    m_dirty.insert(key);
    m_rebuild.insert(key);
    m_throttle->request();
}

void RunChartGrid::relayout() {
    auto* grid = static_cast<QGridLayout*>(m_container->layout());
    while (QLayoutItem* item = grid->takeAt(0)) {
        if (item->widget() && !qobject_cast<RunChartPanel*>(item->widget())) delete item->widget();
        delete item;
    }
    const QList<RunChartPanel*> list = panels();
    if (list.isEmpty()) {
        auto* hint = new QLabel(tr("Live charts appear here, one per run: train loss, validation loss and "
                                   "validation accuracy."),
                                m_container);
        hint->setAlignment(Qt::AlignCenter);
        hint->setStyleSheet(QStringLiteral("color: palette(mid);"));
        grid->addWidget(hint, 0, 0);
        return;
    }
    const int columns = columnsFor(int(list.size()), viewport()->width());
    m_columns = columns;
    const int rows = (int(list.size()) + columns - 1) / columns;
    for (int i = 0; i < list.size(); ++i) grid->addWidget(list[i], i / columns, i % columns);
    // The panels share the whole area (they stayed at their minimum size, a corner of an empty page);
    // rows and columns left over from an earlier, larger grid take nothing.
    for (int r = 0; r < grid->rowCount(); ++r) grid->setRowStretch(r, r < rows ? 1 : 0);
    for (int c = 0; c < grid->columnCount(); ++c) grid->setColumnStretch(c, c < columns ? 1 : 0);
}

int RunChartGrid::columnsFor(int panels, int width) {
    const int wanted = panels <= 1 ? 1 : (panels <= 4 ? 2 : int(std::ceil(std::sqrt(double(panels)))));
    const int fit = std::max(1, width / kMinPanelWidth);
    return std::min(wanted, fit);
}

void RunChartGrid::resizeEvent(QResizeEvent* event) {
    QScrollArea::resizeEvent(event);
    if (columnsFor(int(panels().size()), viewport()->width()) != m_columns) relayout();
}

void RunChartGrid::flush() {
    QStringList names;
    for (int i = 0; i < m_runs->size(); ++i)
        if (m_runs->at(i).trainedHere) names << m_runs->at(i).label;
    for (RunChartPanel* panel : std::as_const(m_panels)) panel->setShownNames(names);
    for (const QString& key : std::as_const(m_dirty)) {
        const int i = m_runs->indexOf(key);
        auto* panel = m_panels.value(key);
        if (i >= 0 && panel) panel->sync(m_runs->at(i), m_rebuild.contains(key));
    }
    m_dirty.clear();
    m_rebuild.clear();
}

}  // namespace wbui
