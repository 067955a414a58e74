// The Training tab's layout and log.
#include "training/TrainingView.h"

#include <QDateTime>
#include <QPlainTextEdit>

#include "charts/RunChartGrid.h"
#include "common/ScrollArea.h"
#include "training/RunProgressPanel.h"

namespace wbui {

TrainingView::TrainingView(RunCollection* runs, QWidget* parent) : QSplitter(Qt::Vertical, parent) {
    m_progress = new RunProgressPanel;
    m_grid = new RunChartGrid(runs, this);
    m_log = new QPlainTextEdit(this);
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(2000);
    m_log->setPlaceholderText(tr("Training log"));
    addWidget(verticallyScrolled(m_progress, this));
    addWidget(m_grid);
    addWidget(m_log);
    setStretchFactor(0, 0);
    setStretchFactor(1, 1);
    setStretchFactor(2, 0);
    setSizes({90, 600, 70});
}

void TrainingView::appendLog(const QString& line) {
    m_log->appendPlainText(QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss ")) + line);
}

}  // namespace wbui
