// The learning-rate finder: sweeps the rate exponentially on a fresh model (wb::findLearningRate) on a
// background thread, plots loss against rate on a log axis point by point as the sweep goes, marks the
// suggested rate when it ends, and applies the suggestion with one click.
#pragma once

#include "experiment/FinderDialog.h"
#include "workbench/domain/Config.h"
#include "workbench/domain/Corpus.h"
#include "workbench/engine/Training.h"

class QCustomPlot;
class QPushButton;

namespace wbui {

class LrFinderDialog : public FinderDialog {
    Q_OBJECT
public:
    LrFinderDialog(wb::ExperimentConfig config, std::shared_ptr<const wb::Corpus> corpus,
                   QWidget* parent = nullptr);

    // The sweep so far (the worker calls this after each step; tests may too).
    void showPartial(const wb::LrFinderResult& soFar);
    // The whole sweep and its suggestion.
    void showResult(const wb::LrFinderResult& result);
    double suggestedRate() const { return m_result.suggestedRate; }
    QCustomPlot* plot() const { return m_plot; }
    QPushButton* applyButton() const { return m_apply; }

    static constexpr int kSteps = 60;
    static constexpr double kMinRate = 1e-5;
    static constexpr double kMaxRate = 1.0;

Q_SIGNALS:
    void rateChosen(double rate);

protected:
    Work work() override;

private:
    void plotCurve(const wb::LrFinderResult& sweep);

    wb::ExperimentConfig m_config;
    std::shared_ptr<const wb::Corpus> m_corpus;
    wb::LrFinderResult m_result;
    QCustomPlot* m_plot = nullptr;
    QPushButton* m_apply = nullptr;
};

}  // namespace wbui
