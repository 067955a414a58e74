#include "help/UserGuide.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QRegularExpression>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace wbui {

QString userGuideMarkdown() {
    QFile file(QStringLiteral(":/doc/README.md"));
    if (!file.open(QIODevice::ReadOnly)) return QObject::tr("The user guide is missing from this build.");
    QString text = QString::fromUtf8(file.readAll());
    text.remove(QRegularExpression(QStringLiteral("^!\\[[^\\n]*\\n"), QRegularExpression::MultilineOption));
    return text;
}

UserGuideDialog::UserGuideDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("LSTM Workbench — User guide"));
    auto* layout = new QVBoxLayout(this);
    m_browser = new QTextBrowser(this);
    m_browser->setOpenExternalLinks(true);
    m_browser->setMarkdown(userGuideMarkdown());
    layout->addWidget(m_browser, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(900, 760);
}

}  // namespace wbui
