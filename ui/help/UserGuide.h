// Help → User guide (F1): the README, the guide every user of the CLI and the app reads, inside the app. It
// is compiled into the program (a Qt resource), so the guide always matches the version that runs, also where
// /usr/share/doc is not installed. The screenshots stay in the docs folder: images are left out here.
#pragma once

#include <QDialog>
#include <QString>

class QTextBrowser;

namespace wbui {

// The guide's Markdown without its image lines.
QString userGuideMarkdown();

// Help → About: the version, what the app is for, and where runs are saved.
void showAboutBox(QWidget* parent, const QString& runsDirectory);

class UserGuideDialog : public QDialog {
    Q_OBJECT
public:
    explicit UserGuideDialog(QWidget* parent = nullptr);
    QTextBrowser* browser() const { return m_browser; }

private:
    QTextBrowser* m_browser = nullptr;
};

}  // namespace wbui
