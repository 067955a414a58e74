// The batch-size finder dialog.
#include "experiment/BatchSizeFinderDialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>

#include <algorithm>

#include "workbench/graphics/QtConversions.h"

namespace wbui {

BatchSizeFinderDialog::BatchSizeFinderDialog(wb::ExperimentConfig config,
                                             std::shared_ptr<const wb::Corpus> corpus, QWidget* parent)
    : FinderDialog(tr("Batch-size finder"), parent),
      m_config(std::move(config)),
      m_corpus(std::move(corpus)) {
    resize(600, 460);
    m_deviceLabel = deviceLabel(m_config.device.spec.id(), m_config.device.spec.threads, {});
    statusLabel()->setText(tr("Preparing the corpus to time batch sizes on %1…").arg(m_deviceLabel));
    progressBar()->setRange(0, 0);  // busy until the corpus tells how many sizes it allows
    warnIfBusy(m_config.device.spec.threads);
    m_table = new QTableWidget(0, 3, this);
    m_table->setHorizontalHeaderLabels({tr("Batch size"), tr("µs/sample"), tr("Steps per epoch")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    setResultView(m_table);
    // Both choices together on one side, Close on its own.
    m_recommended = buttonBox()->addButton(tr("Apply recommended"), QDialogButtonBox::ActionRole);
    m_selected = buttonBox()->addButton(tr("Apply selected"), QDialogButtonBox::ActionRole);
    m_recommended->setEnabled(false);
    m_selected->setEnabled(false);
    connect(m_recommended, &QPushButton::clicked, this, [this] {
        Q_EMIT batchSizeChosen(m_result.recommended);
        accept();
    });
    connect(m_selected, &QPushButton::clicked, this, [this] {
        if (selectedSize() <= 0) return;
        Q_EMIT batchSizeChosen(selectedSize());
        accept();
    });
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        m_selected->setEnabled(m_ended && selectedSize() > 0);
        m_selected->setText(selectedSize() > 0 ? tr("Apply selected (%1)").arg(selectedSize())
                                               : tr("Apply selected"));
    });
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this] {
        if (m_ended && selectedSize() > 0) m_selected->click();
    });
}

FinderDialog::Work BatchSizeFinderDialog::work() {
    return [this, config = m_config, corpus = m_corpus](const FinderChannel& channel) {
        wb::BatchSizeOptions options;
        options.start = kStart;
        options.limit = kLimit;
        options.minStepsPerEpoch = kMinStepsPerEpoch;
        options.cancelled = [&channel] { return channel.cancelled(); };
        options.onTrialStart = [this, &channel](std::int64_t size, const wb::BatchSizeResult& soFar) {
            channel.post([this, size, soFar] { showTrialStart(size, soFar); });
        };
        options.onTrial = [this, &channel](const wb::BatchSizeResult& soFar) {
            channel.post([this, soFar] { showPartial(soFar); });
        };
        const wb::BatchSizeResult r =
            corpus
                ? wb::findBatchSize(config, *corpus, options)
                : wb::findBatchSize(
                      config, wb::TokenStore::forConfiguredCorpus(config.data, keepGoing(channel)), options);
        channel.post([this, r] { showResult(r); });
    };
}

qint64 BatchSizeFinderDialog::selectedSize() const {
    const auto rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) return 0;
    const auto* item = m_table->item(rows.front().row(), 0);
    return item ? item->data(Qt::UserRole).toLongLong() : 0;
}

void BatchSizeFinderDialog::showTrialStart(qint64 size, const wb::BatchSizeResult& soFar) {
    // The sizes the finder can time: from the first (the cap, on a tiny corpus) while within both bounds.
    const qint64 top = std::min<qint64>(kLimit, soFar.corpusCap);
    int planned = 0;
    for (qint64 b = std::min<qint64>(kStart, soFar.corpusCap); b <= top; b *= 2) ++planned;
    progressBar()->setRange(0, std::max(planned, 1));
    progressBar()->setValue(int(soFar.sizes.size()));
    progressBar()->setFormat(tr("%v of %m batch sizes timed"));
    statusLabel()->setText(tr("Timing batch size %1 on %2 (sizes up to %3 leave %4 steps per epoch of the "
                              "corpus's %5 training sequences)…")
                               .arg(size)
                               .arg(m_deviceLabel)
                               .arg(soFar.corpusCap)
                               .arg(kMinStepsPerEpoch)
                               .arg(QLocale().toString(qlonglong(soFar.trainSamples))));
}

void BatchSizeFinderDialog::fillTable(const wb::BatchSizeResult& soFar) {
    m_table->setRowCount(int(soFar.sizes.size()));
    for (int i = 0; i < int(soFar.sizes.size()); ++i) {
        const auto at = std::size_t(i);
        auto* size = new QTableWidgetItem(QString::number(soFar.sizes[at]));
        size->setData(Qt::UserRole, qlonglong(soFar.sizes[at]));
        auto* us = new QTableWidgetItem(QString::number(soFar.usPerSample.at(at), 'f', 1));
        auto* steps = new QTableWidgetItem(QLocale().toString(qlonglong(soFar.stepsPerEpoch.at(at))));
        for (auto* item : {size, us, steps}) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (m_ended && soFar.sizes[at] == soFar.recommended) {
            for (auto* item : {size, us, steps}) {
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
            }
            size->setText(tr("%1 (recommended)").arg(soFar.sizes[at]));
        }
        m_table->setItem(i, 0, size);
        m_table->setItem(i, 1, us);
        m_table->setItem(i, 2, steps);
    }
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setStretchLastSection(true);
}

void BatchSizeFinderDialog::showPartial(const wb::BatchSizeResult& soFar) {
    fillTable(soFar);
    progressBar()->setValue(int(soFar.sizes.size()));
}

QString BatchSizeFinderDialog::explain(const wb::BatchSizeResult& r, const QString& device) {
    if (r.sizes.empty())
        return tr("Not even a batch of %1 fits on %2: try a smaller model or sequence length.")
            .arg(std::min<qint64>(kStart, std::max<qint64>(1, r.corpusCap)))
            .arg(device);
    const auto indexOf = [&r](std::int64_t size) {
        return std::size_t(std::find(r.sizes.begin(), r.sizes.end(), size) - r.sizes.begin());
    };
    const double fastestUs = r.usPerSample.at(indexOf(r.fastest));
    QString text;
    if (r.recommended == r.fastest)
        text = tr("Recommended: %1, the fastest per sample (%2 µs) of the sizes timed on %3.")
                   .arg(r.recommended)
                   .arg(fastestUs, 0, 'f', 1)
                   .arg(device);
    else
        text =
            tr("Recommended: %1, within %2% of the fastest per sample on %3 (%4 at %5 µs, %1 at %6 µs): as "
               "fast within the timing's noise, with %7× the updates per epoch.")
                .arg(r.recommended)
                .arg(int(wb::kBatchSizeTolerance * 100))
                .arg(device)
                .arg(r.fastest)
                .arg(fastestUs, 0, 'f', 1)
                .arg(r.usPerSample.at(indexOf(r.recommended)), 0, 'f', 1)
                .arg(r.fastest / std::max<std::int64_t>(1, r.recommended));
    const QString samples = QLocale().toString(qlonglong(r.trainSamples));
    switch (r.stoppedBy) {
        case wb::BatchSizeResult::Stop::Corpus:
            text +=
                QLatin1Char(' ') +
                tr("No larger size was tried: the training split has %1 sequences, and a batch over %2 would "
                   "leave fewer than %3 steps per epoch, too few updates for the model to learn from.")
                    .arg(samples)
                    .arg(r.corpusCap)
                    .arg(kMinStepsPerEpoch);
            break;
        case wb::BatchSizeResult::Stop::Memory:
            text +=
                QLatin1Char(' ') + tr("A batch of %1 does not fit in memory: %2 is the largest that does.")
                                       .arg(2 * r.largestTimed)
                                       .arg(r.largestTimed);
            break;
        case wb::BatchSizeResult::Stop::Limit:
            text += QLatin1Char(' ') + tr("The finder stops at %1.").arg(kLimit);
            break;
        case wb::BatchSizeResult::Stop::Cancelled:
            break;
    }
    return text;
}

void BatchSizeFinderDialog::showResult(const wb::BatchSizeResult& result) {
    endProgress();
    m_ended = true;
    m_result = result;
    fillTable(result);
    statusLabel()->setText(explain(result, m_deviceLabel));
    m_recommended->setText(tr("Apply recommended (%1)").arg(result.recommended));
    m_recommended->setEnabled(result.recommended > 0);
    m_recommended->setDefault(true);
    m_selected->setEnabled(selectedSize() > 0);
}

}  // namespace wbui
