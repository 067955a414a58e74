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
    return QApplication::exec();
}
