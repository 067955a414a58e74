// File → Settings…'s runs folder: chosen, it is saved and used at once (the Runs list reads it, a new window
// starts with it); a folder that cannot be written to is refused and nothing changes; with
// $LSTM_WORKBENCH_RUNS set the variable still decides, and the dialog says so.
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>

#include <gtest/gtest.h>

#include "MainWindow.h"
#include "UiTestSupport.h"
#include "common/ErrorPresenter.h"
#include "common/SettingsDialog.h"

#include <unistd.h>

#include <filesystem>

using namespace wbui;

namespace {

// The variable and the saved setting as they were, put back when a test ends.
struct RunsFolderState {
    QByteArray variable = qgetenv(MainWindow::kRunsVariable);
    bool hadVariable = qEnvironmentVariableIsSet(MainWindow::kRunsVariable);
    QVariant setting = QSettings().value(QStringLiteral("runsDirectory"));
    ~RunsFolderState() {
        if (hadVariable)
            qputenv(MainWindow::kRunsVariable, variable);
        else
            qunsetenv(MainWindow::kRunsVariable);
        if (setting.isValid())
            QSettings().setValue(QStringLiteral("runsDirectory"), setting);
        else
            QSettings().remove(QStringLiteral("runsDirectory"));
    }
};

QString canonical(const QString& dir) { return QFileInfo(dir).canonicalFilePath(); }

}  // namespace

TEST(RunsFolderSetting, AChosenFolderIsUsedAtOnceAndByTheNextWindow) {
    const RunsFolderState restore;
    qunsetenv(MainWindow::kRunsVariable);
    wbtest::TempDir tmp;
    const QString chosen = QString::fromStdString(tmp.file("my runs"));  // made when chosen
    {
        MainWindow w;
        w.errors()->setDialogsEnabled(false);
        QString error;
        ASSERT_TRUE(w.setRunsFolderSetting(chosen, &error)) << error.toStdString();
        EXPECT_TRUE(QFileInfo(chosen).isDir());
        EXPECT_EQ(w.runsDirectory(), canonical(chosen));
        EXPECT_EQ(MainWindow::runsFolderSetting(), chosen);
    }
    MainWindow next;
    EXPECT_EQ(next.runsDirectory(), canonical(chosen));
}

TEST(RunsFolderSetting, AFolderThatCannotBeWrittenIsRefusedAndNothingChanges) {
    const RunsFolderState restore;
    qunsetenv(MainWindow::kRunsVariable);
    wbtest::TempDir tmp;
    wbtest::writeText(tmp.path() / "a file", "not a folder");
    MainWindow w;
    w.errors()->setDialogsEnabled(false);
    const QString before = w.runsDirectory();
    const QString settingBefore = MainWindow::runsFolderSetting();
    for (const QString& bad : {QString::fromStdString(tmp.file("a file")),
                               QString::fromStdString(tmp.file("a file")) + QStringLiteral("/runs"),
                               QStringLiteral("relative/runs"), QString()}) {
        QString error;
        EXPECT_FALSE(w.setRunsFolderSetting(bad, &error)) << bad.toStdString();
        EXPECT_FALSE(error.isEmpty());
        EXPECT_EQ(w.runsDirectory(), before);
        EXPECT_EQ(MainWindow::runsFolderSetting(), settingBefore);
    }
    // A folder without write permission (root writes anywhere: checked only where that means something).
    if (geteuid() != 0) {
        const auto locked = tmp.path() / "locked";
        std::filesystem::create_directories(locked);
        std::filesystem::permissions(locked,
                                     std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
        QString error;
        EXPECT_FALSE(w.setRunsFolderSetting(QString::fromStdString(locked.string()), &error));
        EXPECT_TRUE(error.contains(QStringLiteral("Cannot write"))) << error.toStdString();
        std::filesystem::permissions(locked, std::filesystem::perms::owner_all);
    }
}

TEST(RunsFolderSetting, TheEnvironmentVariableStillDecidesAndTheDialogSaysSo) {
    const RunsFolderState restore;
    wbtest::TempDir tmp;
    const QString fromVariable = QString::fromStdString(tmp.file("from-variable"));
    const QString chosen = QString::fromStdString(tmp.file("chosen"));
    qputenv(MainWindow::kRunsVariable, fromVariable.toUtf8());
    MainWindow w;
    w.errors()->setDialogsEnabled(false);
    EXPECT_EQ(w.runsDirectory(), canonical(fromVariable));
    QString error;
    ASSERT_TRUE(w.setRunsFolderSetting(chosen, &error)) << error.toStdString();
    EXPECT_EQ(w.runsDirectory(), canonical(fromVariable));  // the variable wins for this session
    EXPECT_EQ(MainWindow::runsFolderSetting(), chosen);     // and the choice is kept for later

    SettingsDialog withVariable(chosen, fromVariable);
    EXPECT_TRUE(withVariable.runsFolderNote()->text().contains(QStringLiteral("LSTM_WORKBENCH_RUNS is set")));
    EXPECT_TRUE(withVariable.runsFolderNote()->text().contains(QDir::toNativeSeparators(fromVariable)));
    SettingsDialog without(chosen, QString());
    EXPECT_FALSE(without.runsFolderNote()->text().contains(QStringLiteral("LSTM_WORKBENCH_RUNS")));
    // What is typed is read as a full path: "~/x" is under the home folder, "a/../b" is "b".
    without.runsFolderEdit()->setText(QStringLiteral("~/lw-runs/../lw-runs2"));
    EXPECT_EQ(without.runsFolder(), QDir::homePath() + QStringLiteral("/lw-runs2"));
}
