// The finder dialogs' shared frame and worker thread.
#include "experiment/FinderDialog.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QLabel>
#include <QProgressBar>
#include <QThread>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdlib>

#include "common/WorkerThreads.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

void FinderChannel::post(std::function<void()> onGui) const {
    QMetaObject::invokeMethod(
        qApp,
        [dialog = m_dialog, cancel = m_cancel, onGui = std::move(onGui)] {
            if (dialog && !cancel->load()) onGui();
        },
        Qt::QueuedConnection);
}

FinderDialog::FinderDialog(const QString& title, QWidget* parent) : QDialog(parent) {
    setWindowTitle(title);
    m_layout = new QVBoxLayout(this);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_layout->addWidget(m_status);
    m_warning = new QLabel(this);
    m_warning->setWordWrap(true);
    m_warning->setStyleSheet(QStringLiteral("color: #8a5300;"));
    m_warning->hide();
    m_layout->addWidget(m_warning);
    m_progress = new QProgressBar(this);
    m_progress->setValue(0);
    m_layout->addWidget(m_progress);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(this, &QDialog::finished, this, &FinderDialog::stopWorker);
}

FinderDialog::~FinderDialog() { stopWorker(); }

QString FinderDialog::busyMachineWarning(double loadAverage, int cpus, long long threads) {
    if (loadAverage < 0 || cpus <= 0 || loadAverage + double(std::max(1LL, threads)) <= double(cpus) + 0.5)
        return QString();
    return tr("⚠ The machine is busy (load %1 on %2 CPUs): these timings share the cores with other work and "
              "are noisy. Run the finder when nothing else trains.")
        .arg(loadAverage, 0, 'f', 1)
        .arg(cpus);
}

void FinderDialog::warnIfBusy(long long threads) {
    double load = -1;
    if (getloadavg(&load, 1) != 1) load = -1;
    const QString text = busyMachineWarning(load, QThread::idealThreadCount(), threads);
    m_warning->setText(text);
    m_warning->setVisible(!text.isEmpty());
}

QString FinderDialog::warning() const { return m_warning->text(); }

void FinderDialog::setResultView(QWidget* view) { m_layout->insertWidget(m_layout->count() - 1, view, 1); }

bool FinderDialog::isRunning() const { return m_thread && m_thread->isRunning(); }

void FinderDialog::endProgress() { m_progress->hide(); }

void FinderDialog::showFailure(const QString& message) {
    endProgress();
    m_status->setText(tr("The finder failed: %1").arg(message));
    Q_EMIT failed(message);
}

void FinderDialog::stopWorker() {
    m_cancel->store(true);
    // The step in flight may take seconds: the window (our parent) keeps the thread until it ends.
    retireWorker(m_thread, parent());
}

void FinderDialog::start() {
    if (m_thread || m_cancel->load()) return;
    const FinderChannel channel(m_cancel, QPointer<QObject>(this));
    // `this` is used only inside the posted closure, which runs only while the dialog lives.
    m_thread = QThread::create([this, channel, run = work()] {
        try {
            run(channel);
        } catch (const std::exception& e) {
            channel.post([this, message = describeError(e)] { showFailure(message); });
        }
    });
    m_thread->start();
}

}  // namespace wbui
