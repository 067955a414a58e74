// The learning-rate finder dialog.
#include "experiment/LrFinderDialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

#include "workbench/graphics/QCustomPlot.h"

#include <algorithm>
#include <cmath>

#include "workbench/graphics/QtConversions.h"

namespace wbui {

LrFinderDialog::LrFinderDialog(wb::ExperimentConfig config, std::shared_ptr<const wb::Corpus> corpus,
                               QWidget* parent)
    : FinderDialog(tr("Learning-rate finder"), parent),
      m_config(std::move(config)),
      m_corpus(std::move(corpus)) {
    resize(720, 480);
    statusLabel()->setText(tr("Sweeping the learning rate from %1 to %2 on a fresh model…")
                               .arg(kMinRate, 0, 'g', 3)
                               .arg(kMaxRate, 0, 'g', 3));
    progressBar()->setRange(0, kSteps);
    progressBar()->setFormat(tr("step %v of at most %m"));
    m_plot = new QCustomPlot(this);
    m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    m_plot->xAxis->setLabel(tr("learning rate"));
    m_plot->yAxis->setLabel(tr("loss (smoothed)"));
    // The axis shows the whole sweep before the first point arrives, and keeps it while points come.
    m_plot->xAxis->setRange(kMinRate, kMaxRate);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    setResultView(m_plot);
    m_apply = buttonBox()->addButton(tr("Apply"), QDialogButtonBox::AcceptRole);
    m_apply->setEnabled(false);
    connect(m_apply, &QPushButton::clicked, this, [this] {
        Q_EMIT rateChosen(m_result.suggestedRate);
        accept();
    });
}

FinderDialog::Work LrFinderDialog::work() {
    return [this, config = m_config, corpus = m_corpus](const FinderChannel& channel) {
        wb::LrFinderOptions options;
        options.minLr = kMinRate;
        options.maxLr = kMaxRate;
        options.steps = kSteps;
        options.cancelled = [&channel] { return channel.cancelled(); };
        options.onPoint = [this, &channel](const wb::LrFinderResult& soFar) {
            channel.post([this, soFar] { showPartial(soFar); });
        };
        // A corpus on disk is read from its token store, as the run reads it (plain text is never in memory).
        const wb::LrFinderResult r =
            corpus
                ? wb::findLearningRate(config, *corpus, options)
                : wb::findLearningRate(
                      config, wb::TokenStore::forConfiguredCorpus(config.data, keepGoing(channel)), options);
        channel.post([this, r] { showResult(r); });
    };
}

void LrFinderDialog::plotCurve(const wb::LrFinderResult& sweep) {
    if (m_plot->graphCount() == 0) m_plot->addGraph()->setPen(QPen(runColor(0), 2));
    QVector<double> x(sweep.rates.begin(), sweep.rates.end());
    QVector<double> y(sweep.losses.begin(), sweep.losses.end());
    m_plot->graph(0)->setData(x, y, true);
    // The sweep ends where the loss explodes (up to 4x its best): that tail would squash the part worth
    // reading. Show from just under the minimum to a little above the starting loss; the tail leaves the top.
    if (!y.isEmpty()) {
        const double low = *std::min_element(y.cbegin(), y.cend());
        const double high = std::min(*std::max_element(y.cbegin(), y.cend()),
                                     y.front() + 0.25 * (y.front() - low) + 0.05 * std::abs(y.front()));
        const double pad = std::max(0.05 * (high - low), 1e-3);
        m_plot->yAxis->setRange(low - pad, std::max(high, low + pad) + pad);
    }
}

void LrFinderDialog::showPartial(const wb::LrFinderResult& soFar) {
    progressBar()->setValue(std::min<int>(int(soFar.rates.size()), kSteps));
    plotCurve(soFar);
    m_plot->replot();
    if (!soFar.rates.empty())
        statusLabel()->setText(tr("Sweeping the learning rate on a fresh model: at %1, smoothed loss %2…")
                                   .arg(soFar.rates.back(), 0, 'g', 3)
                                   .arg(soFar.losses.back(), 0, 'f', 3));
}

void LrFinderDialog::showResult(const wb::LrFinderResult& result) {
    endProgress();
    m_result = result;
    m_plot->clearItems();
    plotCurve(result);
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
        statusLabel()->setText(
            tr("Suggested learning rate: %1 (steepest descent of the loss, well before it explodes)")
                .arg(result.suggestedRate, 0, 'g', 3));
    else
        statusLabel()->setText(
            tr("No suggestion: the sweep got no finite loss. Check the corpus and the model "
               "settings (a smaller model, fp32), then try again."));
    m_apply->setText(tr("Apply %1").arg(result.suggestedRate, 0, 'g', 3));
    m_apply->setEnabled(result.suggestedRate > 0);
}

}  // namespace wbui
