// main() of ui_tests: an offscreen QApplication with test-mode standard paths (QSettings and the runs
// folder never touch the user's), then GoogleTest.
#include <QApplication>
#include <QDir>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include "support/SuiteExit.h"
#include "workbench/engine/Allocator.h"

int main(int argc, char** argv) {
    wb::tuneAllocatorForTraining();  // as the app does, before any thread starts
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    // No prepared corpora leak in from the machine's cache: first launch behaves the same everywhere. An
    // empty cache of the suite's own, removed when it ends: runs write their token stores and baselines
    // there.
    QTemporaryDir cache(QDir::tempPath() + QStringLiteral("/lstm-workbench-ui-tests-XXXXXX"));
    if (qEnvironmentVariableIsEmpty("LSTM_WORKBENCH_DATA"))
        qputenv("LSTM_WORKBENCH_DATA", cache.path().toUtf8());
    ::testing::InitGoogleTest(&argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("lstm-workbench-tests"));
    QApplication::setApplicationName(QStringLiteral("lstm-workbench-tests"));
    return wbtest::suiteExitCode(RUN_ALL_TESTS());
}
