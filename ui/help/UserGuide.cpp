#include "help/UserGuide.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QMessageBox>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTextDocument>
#include <QVBoxLayout>

namespace wbui {

QString userGuideMarkdown() {
    QFile file(QStringLiteral(":/doc/user-guide.md"));
    if (!file.open(QIODevice::ReadOnly)) return QObject::tr("The user guide is missing from this build.");
    return QString::fromUtf8(file.readAll());
}

UserGuideDialog::UserGuideDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("LSTM Workbench — User guide"));
    auto* layout = new QVBoxLayout(this);
    m_browser = new QTextBrowser(this);
    m_browser->setOpenExternalLinks(true);
    // The guide's screenshots are compiled in beside it ("screenshots/…" from :/doc).
    m_browser->setSearchPaths({QStringLiteral(":/doc")});
    m_browser->setMarkdown(userGuideMarkdown());
    fitImages();
    layout->addWidget(m_browser, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(900, 760);
}

void UserGuideDialog::fitImages() {
    // Screenshots are as wide as the window they show; in the guide they take the text's width.
    const qreal width = 860;
    QTextDocument* doc = m_browser->document();
    for (QTextBlock block = doc->begin(); block.isValid(); block = block.next())
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            QTextImageFormat image = fragment.charFormat().toImageFormat();
            if (!image.isValid()) continue;
            image.setWidth(width);  // the height follows, in proportion
            QTextCursor cursor(doc);
            cursor.setPosition(fragment.position());
            cursor.setPosition(fragment.position() + fragment.length(), QTextCursor::KeepAnchor);
            cursor.setCharFormat(image);
        }
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
