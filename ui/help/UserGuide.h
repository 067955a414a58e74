// Help → User guide (F1): docs/user-guide.md — what the app does, a tour with its screenshots, where files go
// — written for the people who use the app (building it and the design are in the README and docs/). It is
// compiled into the program with its screenshots (a Qt resource), so the guide always matches the version
// that runs, also where /usr/share/doc is not installed.
#pragma once

#include <QDialog>
#include <QString>

class QTextBrowser;

namespace wbui {

// The guide's Markdown; its images are "screenshots/….png", resources under :/doc.
QString userGuideMarkdown();

// Help → About: the version, what the app is for, and where runs are saved.
void showAboutBox(QWidget* parent, const QString& runsDirectory);

class UserGuideDialog : public QDialog {
    Q_OBJECT
public:
    explicit UserGuideDialog(QWidget* parent = nullptr);
    QTextBrowser* browser() const { return m_browser; }

private:
    void fitImages();
    QTextBrowser* m_browser = nullptr;
};

}  // namespace wbui
