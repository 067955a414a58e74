// The batch-size finder: doubles the batch while a step fits and an epoch of the corpus keeps at least 20
// steps (wb::findBatchSize) on a background thread, fills its table (µs/sample, steps per epoch) size by
// size as it goes, recommends the fastest per sample and says why it tried no larger size; one click
// applies the recommendation or the row the user picked.
#pragma once

#include "experiment/FinderDialog.h"
#include "workbench/domain/Config.h"
#include "workbench/domain/Corpus.h"
#include "workbench/engine/Training.h"

class QPushButton;
class QTableWidget;

namespace wbui {

class BatchSizeFinderDialog : public FinderDialog {
    Q_OBJECT
public:
    BatchSizeFinderDialog(wb::ExperimentConfig config, std::shared_ptr<const wb::Corpus> corpus,
                          QWidget* parent = nullptr);

    // A size is being timed; `soFar` knows the corpus's cap (the worker calls these; tests may too).
    void showTrialStart(qint64 size, const wb::BatchSizeResult& soFar);
    void showPartial(const wb::BatchSizeResult& soFar);
    void showResult(const wb::BatchSizeResult& result);
    // Why the recommendation, in words (the status line's text once the finder ends).
    static QString explain(const wb::BatchSizeResult& result, const QString& device);

    QTableWidget* table() const { return m_table; }
    QPushButton* recommendedButton() const { return m_recommended; }
    QPushButton* selectedButton() const { return m_selected; }

    static constexpr qint64 kStart = 8;
    static constexpr qint64 kLimit = 1024;
    static constexpr qint64 kMinStepsPerEpoch = 20;

Q_SIGNALS:
    void batchSizeChosen(qint64 size);

protected:
    Work work() override;

private:
    void fillTable(const wb::BatchSizeResult& soFar);
    qint64 selectedSize() const;

    wb::ExperimentConfig m_config;
    std::shared_ptr<const wb::Corpus> m_corpus;
    QString m_deviceLabel;
    wb::BatchSizeResult m_result;
    bool m_ended = false;
    QTableWidget* m_table = nullptr;
    QPushButton* m_recommended = nullptr;
    QPushButton* m_selected = nullptr;
};

}  // namespace wbui
