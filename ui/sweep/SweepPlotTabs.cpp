// A sweep's plots on tabs.
#include "sweep/SweepPlotTabs.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "sweep/SweepChart.h"
#include "workbench/graphics/HeadlessExport.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

SweepPlotTabs::SweepPlotTabs(QWidget* parent) : QTabWidget(parent) {
    // One plot at a time, each at full width: four side by side were too small to read.
    m_baseline = new QComboBox(this);
    m_baseline->setToolTip(tr("The device the speed-up divides by"));
    for (const auto& kind : wb::sweepPlotKinds()) {
        auto* chart = new SweepChart(this);
        m_charts.push_back(chart);
        addTab(kind.needsBaseline ? baselinePage(chart) : chart, toQt(kind.tabName));
        wb::SweepPlot empty;
        empty.title = kind.title;
        empty.unavailable =
            "Start a sweep above, or open a sweep folder (File → Open Sweep Folder, or drop it here)";
        chart->setPlot(empty, QString());
    }
    connect(m_baseline, &QComboBox::currentTextChanged, this, &SweepPlotTabs::baselineChanged);
}

// The chart under the baseline device box (one box, on the last tab of a kind that needs a baseline).
QWidget* SweepPlotTabs::baselinePage(SweepChart* chart) {
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(new QLabel(tr("Baseline device"), page));
    row->addWidget(m_baseline);
    layout->addLayout(row);
    layout->addWidget(chart, 1);
    return page;
}

std::string SweepPlotTabs::baselineDevice() const { return toStd(m_baseline->currentText()); }

void SweepPlotTabs::showSweep(const wb::Sweep& sweep, const wb::SweepResults& results) {
    const QString current = m_baseline->currentText();
    {
        QSignalBlocker block(m_baseline);
        m_baseline->clear();
        for (const auto& d : wb::sweepDevices(sweep)) m_baseline->addItem(toQt(d));
        if (!current.isEmpty() && m_baseline->findText(current) >= 0) m_baseline->setCurrentText(current);
    }
    draw(wb::sweepPlots(sweep, results, baselineDevice()), sweepSubtitle(sweep));
}

void SweepPlotTabs::draw(const std::vector<wb::SweepPlot>& plots, const QString& subtitle) {
    for (std::size_t i = 0; i < plots.size() && i < m_charts.size(); ++i) {
        m_charts[i]->setPlot(plots[i], subtitle);
        // A plot this grid cannot draw says why, on its greyed tab.
        const int tab = int(i);
        setTabEnabled(tab, plots[i].unavailable.empty());
        setTabToolTip(tab, plots[i].unavailable.empty() ? QString() : toQt(plots[i].unavailable));
    }
    if (!isTabEnabled(currentIndex()))
        for (int t = 0; t < count(); ++t)
            if (isTabEnabled(t)) {
                setCurrentIndex(t);
                break;
            }
}

}  // namespace wbui
