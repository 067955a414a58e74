// Help → User guide: docs/user-guide.md and its screenshots compiled into the program; F1 opens it.
#include <QAction>
#include <QMenuBar>
#include <QRegularExpression>
#include <QTextBrowser>
#include <QTextDocument>
#include <QUrl>

#include <gtest/gtest.h>

#include "TestWindow.h"
#include "help/UserGuide.h"

using namespace wbui;

// Issue #35: the guide is written for users (what the app does, a tour, where files go), not the developer
// README, and every screenshot it shows is in the program.
TEST(UserGuide, TheUsersGuideIsInTheProgramWithItsScreenshots) {
    const QString guide = userGuideMarkdown();
    EXPECT_TRUE(guide.startsWith(QStringLiteral("# LSTM Workbench — user guide")))
        << guide.left(80).toStdString();
    for (const char* heading : {"## A first run", "## Comparing", "## Where files go", "## Keys"})
        EXPECT_TRUE(guide.contains(QLatin1String(heading))) << heading;
    EXPECT_FALSE(guide.contains(QStringLiteral("sanitizer")));  // no build instructions
    UserGuideDialog dialog;
    EXPECT_TRUE(dialog.browser()->toPlainText().contains(QStringLiteral("Where files go")));
    const QRegularExpression image(QStringLiteral("!\\[[^\\]]*\\]\\(([^)]+)\\)"));
    int images = 0;
    for (auto it = image.globalMatch(guide); it.hasNext(); ++images) {
        const QString path = it.next().captured(1);
        const QVariant loaded = dialog.browser()->loadResource(QTextDocument::ImageResource, QUrl(path));
        EXPECT_TRUE(loaded.isValid() && !loaded.toByteArray().isEmpty()) << path.toStdString();
    }
    EXPECT_GE(images, 5);
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
