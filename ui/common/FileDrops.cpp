// Routing file drops on a window's children to the window.
#include "common/FileDrops.h"

#include <QApplication>
#include <QDropEvent>
#include <QMimeData>
#include <QUrl>
#include <QWidget>

namespace wbui {

QStringList droppedFiles(const QMimeData* mime) {
    QStringList paths;
    if (mime && mime->hasUrls())
        for (const QUrl& url : mime->urls())
            if (url.isLocalFile()) paths << url.toLocalFile();
    return paths;
}

FileDropRouter::FileDropRouter(QWidget* window, std::function<void(const QStringList&)> open)
    : QObject(window), m_window(window), m_open(std::move(open)) {
    qApp->installEventFilter(this);
}

bool FileDropRouter::eventFilter(QObject* watched, QEvent* event) {
    const auto type = event->type();
    if (type != QEvent::DragEnter && type != QEvent::DragMove && type != QEvent::Drop) return false;
    auto* widget = qobject_cast<QWidget*>(watched);
    if (!widget || widget == m_window || widget->window() != m_window) return false;
    // QDragEnterEvent and QDragMoveEvent are QDropEvents too.
    auto* drop = static_cast<QDropEvent*>(event);
    const QStringList files = droppedFiles(drop->mimeData());
    if (files.isEmpty()) return false;
    drop->acceptProposedAction();
    if (type == QEvent::Drop) m_open(files);
    return true;
}

}  // namespace wbui
