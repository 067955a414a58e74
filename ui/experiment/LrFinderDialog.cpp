// The learning-rate finder dialog.
#include "experiment/LrFinderDialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QThread>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include "common/QtConversions.h"

namespace wbui {

LrFinderDialog::LrFinderDialog(wb::ExperimentConfig config, std::shared_ptr<const wb::Corpus> corpus, QWidget* parent)
    : QDialog(parent), m_config(std::move(config)), m_corpus(std::move(corpus)) {
    setWindowTitle(tr("Learning-rate finder"));
    resize(720, 480);
    auto* layout = new QVBoxLayout(this);
    m_status = new QLabel(tr("Sweeping the learning rate from 1e-5 to 1 on a fresh model…"), this);
    layout->addWidget(m_status);
    m_plot = new QCustomPlot(this);
    m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    m_plot->xAxis->setLabel(tr("learning rate"));
    m_plot->yAxis->setLabel(tr("loss (smoothed)"));
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
}

LrFinderDialog::~LrFinderDialog() { stopWorker(); }

void LrFinderDialog::stopWorker() {
    m_cancel->store(true);
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
        m_thread = nullptr;
    }
}

void LrFinderDialog::start() {
    auto cancel = m_cancel;
    auto config = m_config;
    auto corpus = m_corpus;
    // The sweep trains for real: a thread of its own. The result comes back by a queued call on this dialog.
    m_thread = QThread::create([this, cancel, config, corpus] {
        try {
            const wb::LrFinderResult r =
                wb::findLearningRate(config, *corpus, 1e-5, 1.0, 60, [cancel] { return cancel->load(); });
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

void LrFinderDialog::showResult(const wb::LrFinderResult& result) {
    m_result = result;
    m_plot->clearGraphs();
    m_plot->clearItems();
    auto* graph = m_plot->addGraph();
    graph->setPen(QPen(runColor(0), 2));
    QVector<double> x(result.rates.begin(), result.rates.end());
    QVector<double> y(result.losses.begin(), result.losses.end());
    graph->setData(x, y);
    graph->rescaleAxes();
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
    m_status->setText(tr("Suggested learning rate: %1 (steepest descent of the loss, well before it explodes)")
                          .arg(result.suggestedRate, 0, 'g', 3));
    m_apply->setText(tr("Apply %1").arg(result.suggestedRate, 0, 'g', 3));
    m_apply->setEnabled(result.suggestedRate > 0);
}

}  // namespace wbui
