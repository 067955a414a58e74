// The batch-size finder: doubles the batch while a training step fits (wb::findBatchSize) on a background
// thread, lists µs/sample per size, and applies the fastest (or the largest fitting) size with one click.
#pragma once

#include <QDialog>

#include <atomic>
#include <memory>

#include "workbench/Config.h"
#include "workbench/Corpus.h"
#include "workbench/Training.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QThread;
class QTimer;

namespace wbui {

class BatchSizeFinderDialog : public QDialog {
    Q_OBJECT
public:
    BatchSizeFinderDialog(wb::ExperimentConfig config, std::shared_ptr<const wb::Corpus> corpus,
                          QWidget* parent = nullptr);
    ~BatchSizeFinderDialog() override;
    void start();
    void showResult(const wb::BatchSizeResult& result);
    bool isRunning() const;
    QTableWidget* table() const { return m_table; }
    QPushButton* fastestButton() const { return m_fastest; }
    QPushButton* largestButton() const { return m_largest; }
    QLabel* statusLabel() const { return m_status; }

    static constexpr qint64 kStart = 8;
    static constexpr qint64 kLimit = 1024;

Q_SIGNALS:
    void batchSizeChosen(qint64 size);
    void failed(const QString& message);

private:
    void stopWorker();
    void showFailure(const QString& message);
    void showProgress();

    wb::ExperimentConfig m_config;
    std::shared_ptr<const wb::Corpus> m_corpus;
    std::shared_ptr<std::atomic<bool>> m_cancel = std::make_shared<std::atomic<bool>>(false);
    // Batch sizes the finder has begun (it asks "cancelled?" before each): shown while it works.
    std::shared_ptr<std::atomic<int>> m_trialsBegun = std::make_shared<std::atomic<int>>(0);
    QThread* m_thread = nullptr;
    QTimer* m_poll = nullptr;
    QProgressBar* m_progress = nullptr;
    QString m_deviceLabel;
    wb::BatchSizeResult m_result;
    QLabel* m_status = nullptr;
    QTableWidget* m_table = nullptr;
    QPushButton* m_fastest = nullptr;
    QPushButton* m_largest = nullptr;
};

}  // namespace wbui
