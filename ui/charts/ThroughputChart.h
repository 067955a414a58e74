// Throughput per run as horizontal bars (Qt Charts): samples per second, each bar in its run's colour. A
// sample is what one task on one corpus calls a sample (a language model's sequence, a classifier's text),
// so runs of another task or corpus get a chart, and an axis, of their own.
#pragma once

#include <QStringList>
#include <QWidget>

#include <QChartView>
#include <QColor>

#include <memory>
#include <vector>

#include "workbench/domain/RunFolder.h"

class QVBoxLayout;

namespace wbui {

class RunCollection;

class ThroughputChart : public QWidget {
    Q_OBJECT
public:
    explicit ThroughputChart(QWidget* parent = nullptr);
    // rows in RunCollection order (ComparisonTable::rows()); colours, tasks and corpora from runs.
    void setRows(const std::vector<wb::ComparisonRow>& rows, const RunCollection& runs);
    int barCount() const { return m_bars; }
    // The whole name per bar ("run 12 · …", or "#N NAME" for a run from before numbers, N its row in the
    // table), as an export writes them.
    QStringList categories() const { return m_categories; }
    // One chart per kind of sample shown: the first always (its title says when no run has finished). On
    // screen a bar is named by its number (#N, as in the comparison table) and its tooltip.
    QList<QChartView*> charts() const;
    // The chart at index as a file shows it: every bar with its run's whole name, at a width that holds it.
    // Not shown, not owned by this widget.
    std::unique_ptr<QChartView> exportView(int index) const;

private:
    struct Bar {
        int row;      // in the table, from 0
        QString tag;  // "#12": as the table names it (RunCollection::comparisonTag)
        QString name;
        double samplesPerSecond;
        QColor color;
    };
    struct Kind {
        QString title;
        std::vector<Bar> bars;
    };
    QChartView* chartAt(int index);
    static QChartView* newView(QWidget* parent);
    void fill(QChart* chart, const Kind& kind, bool wholeNames) const;
    QVBoxLayout* m_layout;
    std::vector<Kind> m_kinds;
    std::vector<QChartView*> m_views;
    int m_bars = 0;
    QStringList m_categories;
};

}  // namespace wbui
