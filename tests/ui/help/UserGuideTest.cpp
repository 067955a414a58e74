// Help → User guide: the README compiled into the program, shown without its image lines; F1 opens it.
#include <QAction>
#include <QMenuBar>
#include <QTextBrowser>

#include <gtest/gtest.h>

#include "TestWindow.h"
#include "help/UserGuide.h"

using namespace wbui;

TEST(UserGuide, TheReadmeIsInTheProgramWithoutImages) {
    const QString guide = userGuideMarkdown();
    EXPECT_TRUE(guide.startsWith(QStringLiteral("# LSTM Workbench"))) << guide.left(80).toStdString();
    EXPECT_TRUE(guide.contains(QStringLiteral("## The command line")));
    EXPECT_FALSE(guide.contains(QStringLiteral("![")));
    UserGuideDialog dialog;
    EXPECT_TRUE(dialog.browser()->toPlainText().contains(
        QStringLiteral("lstm-workbench-cli prepare tang-quatrains-7")));
}

TEST(UserGuide, TheHelpMenuOpensItWithF1) {
    wbuitest::TestWindow win;
    QAction* guide = nullptr;
    for (QAction* menu : win.w->menuBar()->actions())
        if (menu->menu())
            for (QAction* a : menu->menu()->actions())
                if (a->shortcut() == QKeySequence(QKeySequence::HelpContents)) guide = a;
    ASSERT_NE(guide, nullptr);
    guide->trigger();
    EXPECT_NE(win.w->findChild<UserGuideDialog*>(), nullptr);
}
