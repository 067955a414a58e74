// The batch-size finder dialog.
#include "experiment/BatchSizeFinderDialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>

#include "common/QtConversions.h"

namespace wbui {

BatchSizeFinderDialog::BatchSizeFinderDialog(wb::ExperimentConfig config, std::shared_ptr<const wb::Corpus> corpus,
                                             QWidget* parent)
    : QDialog(parent), m_config(std::move(config)), m_corpus(std::move(corpus)) {
    setWindowTitle(tr("Batch-size finder"));
    resize(520, 420);
    auto* layout = new QVBoxLayout(this);
    m_status = new QLabel(tr("Doubling the batch on %1 while a step fits, timing a few steps each…")
                              .arg(toQt(m_config.device.device)),
                          this);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    m_table = new QTableWidget(0, 2, this);
    m_table->setHorizontalHeaderLabels({tr("Batch size"), tr("µs/sample")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    layout->addWidget(m_table, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_fastest = buttons->addButton(tr("Apply fastest"), QDialogButtonBox::AcceptRole);
    m_largest = buttons->addButton(tr("Apply largest"), QDialogButtonBox::ApplyRole);
    m_fastest->setEnabled(false);
    m_largest->setEnabled(false);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_fastest, &QPushButton::clicked, this, [this] {
        Q_EMIT batchSizeChosen(m_result.fastest);
        accept();
    });
    connect(m_largest, &QPushButton::clicked, this, [this] {
        Q_EMIT batchSizeChosen(m_result.largestFitting);
        accept();
    });
    connect(this, &QDialog::finished, this, &BatchSizeFinderDialog::stopWorker);
}

BatchSizeFinderDialog::~BatchSizeFinderDialog() { stopWorker(); }

void BatchSizeFinderDialog::stopWorker() {
    m_cancel->store(true);
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
        m_thread = nullptr;
    }
}

void BatchSizeFinderDialog::start() {
    auto cancel = m_cancel;
    auto config = m_config;
    auto corpus = m_corpus;
    m_thread = QThread::create([this, cancel, config, corpus] {
        try {
            const wb::BatchSizeResult r =
                wb::findBatchSize(config, *corpus, 8, 1024, [cancel] { return cancel->load(); });
            if (!cancel->load()) QMetaObject::invokeMethod(this, [this, r] { showResult(r); }, Qt::QueuedConnection);
        } catch (const std::exception& e) {
            const QString message = describeError(e);
            if (!cancel->load())
                QMetaObject::invokeMethod(this, [this, message] {
                    m_status->setText(tr("The finder failed: %1").arg(message));
                    Q_EMIT failed(message);
                }, Qt::QueuedConnection);
        }
    });
    m_thread->start();
}

void BatchSizeFinderDialog::showResult(const wb::BatchSizeResult& result) {
    m_result = result;
    m_table->setRowCount(int(result.sizes.size()));
    for (int i = 0; i < int(result.sizes.size()); ++i) {
        auto* size = new QTableWidgetItem(QString::number(result.sizes[std::size_t(i)]));
        auto* us = new QTableWidgetItem(QString::number(result.usPerSample.at(std::size_t(i)), 'f', 1));
        if (result.sizes[std::size_t(i)] == result.fastest) {
            QFont bold = size->font();
            bold.setBold(true);
            size->setFont(bold);
            us->setFont(bold);
        }
        m_table->setItem(i, 0, size);
        m_table->setItem(i, 1, us);
    }
    m_status->setText(tr("Largest batch that fits: %1 · fastest per sample: %2").arg(result.largestFitting).arg(result.fastest));
    m_fastest->setText(tr("Apply fastest (%1)").arg(result.fastest));
    m_largest->setText(tr("Apply largest (%1)").arg(result.largestFitting));
    m_fastest->setEnabled(result.fastest > 0);
    m_largest->setEnabled(result.largestFitting > 0);
}

}  // namespace wbui
