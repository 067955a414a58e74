// Throughput per run as horizontal bars (Qt Charts): samples per second, each bar in its run's colour.
#pragma once

#include <QStringList>

#include <QChartView>
#include <QColor>

#include <vector>

#include "workbench/RunFolder.h"

namespace wbui {

class RunCollection;

class ThroughputChart : public QChartView {
    Q_OBJECT
public:
    explicit ThroughputChart(QWidget* parent = nullptr);
    // rows in RunCollection order (ComparisonTable::rows()); colours from runs.
    void setRows(const std::vector<wb::ComparisonRow>& rows, const RunCollection& runs);
    int barCount() const { return m_bars; }
    QStringList categories() const { return m_categories; }  // "1. NAME" per bar

private:
    void addBars(const std::vector<wb::ComparisonRow>& rows, const std::vector<QColor>& colors);
    int m_bars = 0;
    QStringList m_categories;
};

}  // namespace wbui
