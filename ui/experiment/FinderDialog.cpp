// The finder dialogs' shared frame and worker thread.
#include "experiment/FinderDialog.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QLabel>
#include <QProgressBar>
#include <QThread>
#include <QVBoxLayout>

#include "common/QtConversions.h"
#include "common/WorkerThreads.h"

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
    m_progress = new QProgressBar(this);
    m_progress->setValue(0);
    m_layout->addWidget(m_progress);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(this, &QDialog::finished, this, &FinderDialog::stopWorker);
}

FinderDialog::~FinderDialog() { stopWorker(); }

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
