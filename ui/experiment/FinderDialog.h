// What the learning-rate and batch-size finder dialogs share: a status line, a progress bar, a result view
// (a plot, a table) and the buttons; the finder running on a thread of its own, its reports delivered to
// the dialog as they come, and Close cancelling it without freezing the window.
#pragma once

#include <QDialog>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include <QPointer>

class QDialogButtonBox;
class QLabel;
class QProgressBar;
class QThread;
class QVBoxLayout;

namespace wbui {

// The finder's line to its dialog, used on the worker thread. The worker never touches the dialog itself:
// the dialog may be closed (and gone) while a step is still running.
class FinderChannel {
public:
    FinderChannel(std::shared_ptr<std::atomic<bool>> cancel, QPointer<QObject> dialog)
        : m_cancel(std::move(cancel)), m_dialog(std::move(dialog)) {}
    bool cancelled() const { return m_cancel->load(); }
    // Runs `onGui` on the GUI thread, unless the dialog has been closed or destroyed by then; so `onGui`
    // may use the dialog freely.
    void post(std::function<void()> onGui) const;

private:
    std::shared_ptr<std::atomic<bool>> m_cancel;
    QPointer<QObject> m_dialog;
};

// A tokenization's progress callback that goes on until the finder is cancelled (the corpus's first
// tokenization, when a finder runs before any run did).
inline std::function<bool(std::uint64_t, std::uint64_t)> keepGoing(const FinderChannel& channel) {
    return [&channel](std::uint64_t, std::uint64_t) { return !channel.cancelled(); };
}

class FinderDialog : public QDialog {
    Q_OBJECT
public:
    ~FinderDialog() override;
    // Starts the finder (once).
    void start();
    bool isRunning() const;
    QLabel* statusLabel() const { return m_status; }
    // "" on an idle machine; otherwise a sentence saying the timings will be noisy (busyMachineWarning with
    // this machine's 1-minute load average and CPUs, for the finder's threads), shown above the results.
    QString warning() const;
    // The rule: more runnable work than CPUs once the finder's threads join (as Compare's busy-machine note).
    static QString busyMachineWarning(double loadAverage, int cpus, long long threads);
    QProgressBar* progressBar() const { return m_progress; }

Q_SIGNALS:
    void failed(const QString& message);

protected:
    using Work = std::function<void(const FinderChannel&)>;
    explicit FinderDialog(const QString& title, QWidget* parent);
    // Shows busyMachineWarning for this machine now (call once the finder's threads are known).
    void warnIfBusy(long long threads);
    // The result view goes between the progress bar and the buttons.
    void setResultView(QWidget* view);
    QDialogButtonBox* buttonBox() const { return m_buttons; }
    // The finder itself, run on the worker thread: it must capture copies of what it needs (never `this`,
    // except inside the closures it posts). An exception it throws is shown as the dialog's failure.
    virtual Work work() = 0;
    // The finder has ended: the progress bar goes.
    void endProgress();

private:
    void stopWorker();
    void showFailure(const QString& message);

    std::shared_ptr<std::atomic<bool>> m_cancel = std::make_shared<std::atomic<bool>>(false);
    QThread* m_thread = nullptr;
    QVBoxLayout* m_layout = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_warning = nullptr;
    QProgressBar* m_progress = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

}  // namespace wbui
