// Files dropped anywhere on a window. Text fields and spin boxes accept drops themselves and would insert
// "file:///…"; this application-wide event filter takes a file drop on any child widget of the window to
// the window's handler instead, while a text drag still goes into the field under it.
#pragma once

#include <QObject>
#include <QStringList>

#include <functional>

class QMimeData;
class QWidget;

namespace wbui {

// The local files among a drag's URLs (none for a text drag).
QStringList droppedFiles(const QMimeData* mime);

class FileDropRouter : public QObject {
    Q_OBJECT
public:
    // Installs itself on the application; open is called with the files of every drop on window's
    // children (the window's own drops arrive in its dropEvent, as usual).
    FileDropRouter(QWidget* window, std::function<void(const QStringList&)> open);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* m_window;
    std::function<void(const QStringList&)> m_open;
};

}  // namespace wbui
