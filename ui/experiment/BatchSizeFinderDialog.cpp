// The batch-size finder dialog.
#include "experiment/BatchSizeFinderDialog.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

#include "common/QtConversions.h"
#include "common/WorkerThreads.h"

namespace wbui {

BatchSizeFinderDialog::BatchSizeFinderDialog(wb::ExperimentConfig config,
                                             std::shared_ptr<const wb::Corpus> corpus, QWidget* parent)
    : QDialog(parent), m_config(std::move(config)), m_corpus(std::move(corpus)) {
    setWindowTitle(tr("Batch-size finder"));
    resize(520, 420);
    auto* layout = new QVBoxLayout(this);
    m_deviceLabel = deviceLabel(m_config.device.device, m_config.device.threads, {});
    m_status = new QLabel(
        tr("Doubling the batch on %1 while a step fits, timing a few steps each…").arg(m_deviceLabel), this);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    m_progress = new QProgressBar(this);
    int trials = 0;
    for (qint64 b = kStart; b <= kLimit; b *= 2) ++trials;
    m_progress->setRange(0, trials);
    m_progress->setValue(0);
    m_progress->setFormat(tr("%v of at most %m batch sizes timed"));
    layout->addWidget(m_progress);
    m_table = new QTableWidget(0, 2, this);
    m_table->setHorizontalHeaderLabels({tr("Batch size"), tr("µs/sample")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    layout->addWidget(m_table, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    // Both choices together on one side, Close on its own (ApplyRole put "largest" after Close).
    m_fastest = buttons->addButton(tr("Apply fastest"), QDialogButtonBox::ActionRole);
    m_largest = buttons->addButton(tr("Apply largest"), QDialogButtonBox::ActionRole);
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
    m_poll = new QTimer(this);
    m_poll->setInterval(200);
    connect(m_poll, &QTimer::timeout, this, &BatchSizeFinderDialog::showProgress);
}

bool BatchSizeFinderDialog::isRunning() const { return m_thread && m_thread->isRunning(); }

void BatchSizeFinderDialog::showProgress() {
    const int begun = std::min(m_trialsBegun->load(), m_progress->maximum());
    if (begun <= 0) return;
    m_progress->setValue(begun - 1);
    m_status->setText(tr("Timing batch size %1 on %2 (the batch doubles while a step fits)…")
                          .arg(kStart << (begun - 1))
                          .arg(m_deviceLabel));
}

void BatchSizeFinderDialog::showFailure(const QString& message) {
    m_poll->stop();
    m_progress->hide();
    m_status->setText(tr("The finder failed: %1").arg(message));
    Q_EMIT failed(message);
}

BatchSizeFinderDialog::~BatchSizeFinderDialog() { stopWorker(); }

void BatchSizeFinderDialog::stopWorker() {
    m_cancel->store(true);
    if (m_poll) m_poll->stop();
    // The step in flight may take seconds: the window (our parent) keeps the thread until it ends.
    retireWorker(m_thread, parent());
}

void BatchSizeFinderDialog::start() {
    if (m_thread) return;
    auto cancel = m_cancel;
    auto begun = m_trialsBegun;
    auto config = m_config;
    auto corpus = m_corpus;
    const QPointer<BatchSizeFinderDialog> self(this);
    m_thread = QThread::create([self, cancel, begun, config, corpus] {
        try {
            const wb::BatchSizeResult r = wb::findBatchSize(config, *corpus, kStart, kLimit, [cancel, begun] {
                begun->fetch_add(1);
                return cancel->load();
            });
            if (!cancel->load())
                QMetaObject::invokeMethod(
                    qApp,
                    [self, r] {
                        if (self) self->showResult(r);
                    },
                    Qt::QueuedConnection);
        } catch (const std::exception& e) {
            const QString message = describeError(e);
            if (!cancel->load())
                QMetaObject::invokeMethod(
                    qApp,
                    [self, message] {
                        if (self) self->showFailure(message);
                    },
                    Qt::QueuedConnection);
        }
    });
    m_poll->start();
    m_thread->start();
}

void BatchSizeFinderDialog::showResult(const wb::BatchSizeResult& result) {
    m_poll->stop();
    m_progress->hide();
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
    if (result.sizes.empty())
        m_status->setText(tr("Not even a batch of %1 fits on %2: try a smaller model or sequence length.")
                              .arg(kStart)
                              .arg(m_deviceLabel));
    else
        m_status->setText(tr("On %1: largest batch that fits: %2 · fastest per sample: %3 (bold)")
                              .arg(m_deviceLabel)
                              .arg(result.largestFitting)
                              .arg(result.fastest));
    m_fastest->setText(tr("Apply fastest (%1)").arg(result.fastest));
    m_largest->setText(tr("Apply largest (%1)").arg(result.largestFitting));
    m_fastest->setEnabled(result.fastest > 0);
    m_largest->setEnabled(result.largestFitting > 0);
}

}  // namespace wbui
