// A small Qt Charts bar chart of documents per class: shows at a glance whether a labelled corpus is
// balanced. Hidden by the corpus panel for unlabelled text.
#pragma once

#include <QChartView>

#include <cstdint>
#include <map>
#include <string>

namespace wbui {

class ClassBalanceChart : public QChartView {
    Q_OBJECT
public:
    explicit ClassBalanceChart(QWidget* parent = nullptr);
    void setCounts(const std::map<std::string, std::int64_t>& counts);
    int barCount() const { return m_bars; }

private:
    int m_bars = 0;
};

}  // namespace wbui
