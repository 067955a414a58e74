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
class QPushButton;
class QTableWidget;
class QThread;

namespace wbui {

class BatchSizeFinderDialog : public QDialog {
    Q_OBJECT
public:
    BatchSizeFinderDialog(wb::ExperimentConfig config, std::shared_ptr<const wb::Corpus> corpus,
                          QWidget* parent = nullptr);
    ~BatchSizeFinderDialog() override;
    void start();
    void showResult(const wb::BatchSizeResult& result);

Q_SIGNALS:
    void batchSizeChosen(qint64 size);
    void failed(const QString& message);

private:
    void stopWorker();

    wb::ExperimentConfig m_config;
    std::shared_ptr<const wb::Corpus> m_corpus;
    std::shared_ptr<std::atomic<bool>> m_cancel = std::make_shared<std::atomic<bool>>(false);
    QThread* m_thread = nullptr;
    wb::BatchSizeResult m_result;
    QLabel* m_status = nullptr;
    QTableWidget* m_table = nullptr;
    QPushButton* m_fastest = nullptr;
    QPushButton* m_largest = nullptr;
};

}  // namespace wbui
