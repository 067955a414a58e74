// Non-blocking, injectable error dialogs.
#include "common/ErrorPresenter.h"

#include <QMessageBox>
#include <QWidget>

namespace wbui {

ErrorPresenter::ErrorPresenter(QWidget* dialogParent, QObject* parent)
    : QObject(parent), m_dialogParent(dialogParent) {}

void ErrorPresenter::showError(const QString& title, const QString& message) {
    m_lastError = message;
    ++m_errorCount;
    Q_EMIT errorShown(title, message);
    if (!m_dialogsEnabled) return;
    // open() rather than exec(): training workers keep reporting while the dialog is up.
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, m_dialogParent);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setTextInteractionFlags(Qt::TextSelectableByMouse);
    box->open();
}

}  // namespace wbui
