// lstm-workbench: the desktop app. Sets up the application (names for QSettings, icon) and shows the main
// window; everything else lives in workbench_ui.
#include <QApplication>
#include <QIcon>

#include "MainWindow.h"
#include "workbench/Allocator.h"

int main(int argc, char** argv) {
    wb::tuneAllocatorForTraining();  // before any thread starts (workbench/Allocator.h)
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("lstm-workbench"));
    QApplication::setApplicationName(QStringLiteral("lstm-workbench"));
    QApplication::setApplicationDisplayName(QStringLiteral("LSTM Workbench"));
    QApplication::setApplicationVersion(QStringLiteral(WORKBENCH_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("lstm-workbench"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/lstm-workbench.svg")));

    wbui::MainWindow window;
    window.show();
    window.startFirstLaunch();
    // `lstm-workbench RUN_DIR… | CORPUS`: what a file manager's "Open with" or a shell passes; each path opens
    // as if dropped on the window (a run folder joins the comparison, anything else loads as the corpus).
    const QStringList paths = QApplication::arguments().mid(1);
    for (const QString& path : paths) window.openPath(path);
    return QApplication::exec();
}
