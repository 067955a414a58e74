#include "help/UserGuide.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QMessageBox>
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

void showAboutBox(QWidget* parent, const QString& runsDirectory) {
    QMessageBox::about(
        parent, QObject::tr("About LSTM Workbench"),
        QObject::tr("<b>LSTM Workbench %1</b><br>Train small LSTM text models with LibTorch and "
                    "compare, side by side and honestly timed, how they train on different "
                    "devices.<br><br>Runs are saved in %2")
            .arg(QStringLiteral(WORKBENCH_VERSION), runsDirectory.toHtmlEscaped()));
}

}  // namespace wbui
