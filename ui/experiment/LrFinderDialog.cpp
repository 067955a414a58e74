// The learning-rate finder dialog.
#include "experiment/LrFinderDialog.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "common/QtConversions.h"
#include "common/WorkerThreads.h"

namespace wbui {

LrFinderDialog::LrFinderDialog(wb::ExperimentConfig config, std::shared_ptr<const wb::Corpus> corpus,
                               QWidget* parent)
    : QDialog(parent), m_config(std::move(config)), m_corpus(std::move(corpus)) {
    setWindowTitle(tr("Learning-rate finder"));
    resize(720, 480);
    auto* layout = new QVBoxLayout(this);
    m_status = new QLabel(tr("Sweeping the learning rate from 1e-5 to 1 on a fresh model…"), this);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, kSteps);
    m_progress->setValue(0);
    m_progress->setFormat(tr("step %v of %m"));
    layout->addWidget(m_progress);
    m_plot = new QCustomPlot(this);
    m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    m_plot->xAxis->setLabel(tr("learning rate"));
    m_plot->yAxis->setLabel(tr("loss (smoothed)"));
    // The axis shows the whole sweep before the first point arrives.
    m_plot->xAxis->setRange(1e-5, 1.0);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    layout->addWidget(m_plot, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_apply = buttons->addButton(tr("Apply"), QDialogButtonBox::AcceptRole);
    m_apply->setEnabled(false);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_apply, &QPushButton::clicked, this, [this] {
        Q_EMIT rateChosen(m_result.suggestedRate);
        accept();
    });
    connect(this, &QDialog::finished, this, &LrFinderDialog::stopWorker);
    m_poll = new QTimer(this);
    m_poll->setInterval(200);
    connect(m_poll, &QTimer::timeout, this,
            [this] { m_progress->setValue(std::min(m_stepsBegun->load(), kSteps)); });
}

bool LrFinderDialog::isRunning() const { return m_thread && m_thread->isRunning(); }

void LrFinderDialog::showFailure(const QString& message) {
    m_poll->stop();
    m_progress->hide();
    m_status->setText(tr("The finder failed: %1").arg(message));
    Q_EMIT failed(message);
}

LrFinderDialog::~LrFinderDialog() { stopWorker(); }

void LrFinderDialog::stopWorker() {
    m_cancel->store(true);
    if (m_poll) m_poll->stop();
    // The step in flight may take seconds: the window (our parent) keeps the thread until it ends.
    retireWorker(m_thread, parent());
}

void LrFinderDialog::start() {
    if (m_thread) return;
    auto cancel = m_cancel;
    auto begun = m_stepsBegun;
    auto config = m_config;
    auto corpus = m_corpus;
    // The sweep trains for real: a thread of its own. The result comes back by a queued call on this dialog.
    // The finder asks "cancelled?" once before each step: that is also how far it got.
    const QPointer<LrFinderDialog> self(this);
    m_thread = QThread::create([self, cancel, begun, config, corpus] {
        try {
            const wb::LrFinderResult r =
                wb::findLearningRate(config, *corpus, 1e-5, 1.0, kSteps, [cancel, begun] {
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

void LrFinderDialog::showResult(const wb::LrFinderResult& result) {
    m_poll->stop();
    m_progress->hide();
    m_result = result;
    m_plot->clearGraphs();
    m_plot->clearItems();
    auto* graph = m_plot->addGraph();
    graph->setPen(QPen(runColor(0), 2));
    QVector<double> x(result.rates.begin(), result.rates.end());
    QVector<double> y(result.losses.begin(), result.losses.end());
    graph->setData(x, y);
    graph->rescaleAxes();
    // The sweep ends where the loss explodes (up to 4x its best): that tail would squash the part worth
    // reading. Show from just under the minimum to a little above the starting loss; the tail leaves the top.
    if (!y.isEmpty()) {
        const double low = *std::min_element(y.cbegin(), y.cend());
        const double high = std::min(*std::max_element(y.cbegin(), y.cend()),
                                     y.front() + 0.25 * (y.front() - low) + 0.05 * std::abs(y.front()));
        const double pad = std::max(0.05 * (high - low), 1e-3);
        m_plot->yAxis->setRange(low - pad, std::max(high, low + pad) + pad);
    }
    if (result.suggestedRate > 0) {
        auto* line = new QCPItemStraightLine(m_plot);
        line->point1->setCoords(result.suggestedRate, 0);
        line->point2->setCoords(result.suggestedRate, 1);
        line->setPen(QPen(runColor(1), 1.5, Qt::DashLine));
        auto* label = new QCPItemText(m_plot);
        label->position->setType(QCPItemPosition::ptPlotCoords);
        label->position->setCoords(result.suggestedRate, m_plot->yAxis->range().upper);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setText(tr(" suggested %1").arg(result.suggestedRate, 0, 'g', 3));
        label->setColor(runColor(1));
    }
    m_plot->replot();
    if (result.suggestedRate > 0)
        m_status->setText(
            tr("Suggested learning rate: %1 (steepest descent of the loss, well before it explodes)")
                .arg(result.suggestedRate, 0, 'g', 3));
    else
        m_status->setText(
            tr("No suggestion: the sweep got no finite loss. Check the corpus and the model "
               "settings (a smaller model, fp32), then try again."));
    m_apply->setText(tr("Apply %1").arg(result.suggestedRate, 0, 'g', 3));
    m_apply->setEnabled(result.suggestedRate > 0);
}

}  // namespace wbui
