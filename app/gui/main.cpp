// lstm-workbench: the desktop app. Sets up the application (names for QSettings, icon) and shows the main
// window; everything else lives in workbench_ui.
#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

#include <cstring>

#include "MainWindow.h"
#include "workbench/engine/Allocator.h"

namespace {

void describeCommandLine(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral(
        "LSTM Workbench: train small LSTM text models with LibTorch and compare, side by side and timed, how "
        "they train on different devices (CPU threads, CUDA GPUs, processes).\n\n"
        "Without arguments the app opens the last corpus, else the default corpus tang-quatrains-7 when it "
        "is "
        "prepared (lstm-workbench-cli prepare tang-quatrains-7). Each PATH opens as if dropped on the "
        "window: "
        "a run folder joins the comparison, anything else loads as the corpus."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("PATH"),
                                 QStringLiteral("Run folders to compare, or a corpus file or folder to load"),
                                 QStringLiteral("[PATH…]"));
}

bool asksForTextOnly(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        for (const char* flag : {"-h", "--help", "--help-all", "-v", "--version"})
            if (std::strcmp(argv[i], flag) == 0) return true;
    return false;
}

void nameApplication() {
    QCoreApplication::setOrganizationName(QStringLiteral("lstm-workbench"));
    QCoreApplication::setApplicationName(QStringLiteral("lstm-workbench"));
    QCoreApplication::setApplicationVersion(QStringLiteral(WORKBENCH_VERSION));
}

}  // namespace

int main(int argc, char** argv) {
    // --help and --version answer without a display (over ssh, or when help2man writes the man page).
    if (asksForTextOnly(argc, argv)) {
        QCoreApplication app(argc, argv);
        nameApplication();
        QCommandLineParser parser;
        describeCommandLine(parser);
        parser.process(app);  // prints and exits
        return 0;
    }
    wb::tuneAllocatorForTraining();  // before any thread starts (workbench/engine/Allocator.h)
    QApplication app(argc, argv);
    nameApplication();
    QApplication::setApplicationDisplayName(QStringLiteral("LSTM Workbench"));
    QApplication::setDesktopFileName(QStringLiteral("lstm-workbench"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/lstm-workbench.svg")));
    QCommandLineParser parser;
    describeCommandLine(parser);
    parser.process(app);  // an unknown option is an error, said on stderr

    wbui::MainWindow window;
    window.show();
    window.startFirstLaunch();
    // `lstm-workbench RUN_DIR… | CORPUS`: what a file manager's "Open with" or a shell passes; each path
    // opens as if dropped on the window (a run folder joins the comparison, anything else loads as the
    // corpus).
    for (const QString& path : parser.positionalArguments()) window.openPath(path);
    return QApplication::exec();
}
