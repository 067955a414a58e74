// The learning-rate finder: sweeps the rate exponentially on a fresh model (wb::findLearningRate) on a
// background thread, plots loss against rate on a log axis with the suggested rate marked, and applies
// the suggestion with one click.
#pragma once

#include <QDialog>

#include <atomic>
#include <memory>

#include "workbench/Config.h"
#include "workbench/Corpus.h"
#include "workbench/Training.h"

class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;
class QThread;
class QTimer;

namespace wbui {

class LrFinderDialog : public QDialog {
    Q_OBJECT
public:
    LrFinderDialog(wb::ExperimentConfig config, std::shared_ptr<const wb::Corpus> corpus,
                   QWidget* parent = nullptr);
    ~LrFinderDialog() override;

    void start();
    // Shows a result (the worker calls this; tests may too).
    void showResult(const wb::LrFinderResult& result);
    double suggestedRate() const { return m_result.suggestedRate; }
    bool isRunning() const;
    QCustomPlot* plot() const { return m_plot; }
    QPushButton* applyButton() const { return m_apply; }
    QLabel* statusLabel() const { return m_status; }
    QProgressBar* progressBar() const { return m_progress; }

    static constexpr int kSteps = 60;

Q_SIGNALS:
    void rateChosen(double rate);
    void failed(const QString& message);

private:
    void stopWorker();
    void showFailure(const QString& message);

    wb::ExperimentConfig m_config;
    std::shared_ptr<const wb::Corpus> m_corpus;
    std::shared_ptr<std::atomic<bool>> m_cancel = std::make_shared<std::atomic<bool>>(false);
    // Steps the sweep has begun (the worker counts them; a timer shows them): the sweep takes a minute.
    std::shared_ptr<std::atomic<int>> m_stepsBegun = std::make_shared<std::atomic<int>>(0);
    QThread* m_thread = nullptr;
    QTimer* m_poll = nullptr;
    QProgressBar* m_progress = nullptr;
    wb::LrFinderResult m_result;
    QCustomPlot* m_plot = nullptr;
    QLabel* m_status = nullptr;
    QPushButton* m_apply = nullptr;
};

}  // namespace wbui
