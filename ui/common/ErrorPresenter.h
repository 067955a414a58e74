// Shows errors to the user in a dialog that says what went wrong and what to do. Non-blocking (the dialog
// is opened, not exec()'d) and injectable: tests switch dialogs off and watch the errorShown signal.
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

class QWidget;

namespace wbui {

class ErrorPresenter : public QObject {
    Q_OBJECT
public:
    explicit ErrorPresenter(QWidget* dialogParent, QObject* parent = nullptr);

    // Off in tests: the error is recorded and signalled but no dialog opens.
    void setDialogsEnabled(bool enabled) { m_dialogsEnabled = enabled; }
    bool dialogsEnabled() const { return m_dialogsEnabled; }

    void showError(const QString& title, const QString& message);
    QString lastError() const { return m_lastError; }
    int errorCount() const { return m_errorCount; }

Q_SIGNALS:
    void errorShown(const QString& title, const QString& message);

private:
    QPointer<QWidget> m_dialogParent;
    bool m_dialogsEnabled = true;
    QString m_lastError;
    int m_errorCount = 0;
};

}  // namespace wbui
