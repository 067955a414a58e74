// Issue #35: the mouse wheel over a field the user is not editing scrolls the page, never the value.
#include <QApplication>
#include <QComboBox>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTest>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <gtest/gtest.h>

#include "common/WheelGuard.h"

using namespace wbui;

namespace {
// One notch of the wheel, downwards, over the middle of the widget.
void wheel(QWidget* widget) {
    const QPointF at(widget->width() / 2.0, widget->height() / 2.0);
    QWheelEvent event(at, widget->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(widget, &event);
}
}  // namespace

TEST(WheelGuard, AWheelOverAnUnfocusedFieldScrollsThePageAndChangesNothing) {
    QSpinBox early;  // made before the guard: its constructor sets its policy
    WheelGuard guard;
    QScrollArea area;
    auto* page = new QWidget;
    auto* layout = new QVBoxLayout(page);
    auto* other = new QLineEdit(page);
    auto* spin = new QSpinBox(page);
    spin->setRange(0, 100);
    spin->setValue(42);
    auto* combo = new QComboBox(page);
    combo->addItems({QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")});
    layout->addWidget(other);
    layout->addWidget(spin);
    layout->addWidget(combo);
    layout->addSpacing(2000);  // a page taller than its window
    area.setWidget(page);
    area.setWidgetResizable(true);
    area.resize(300, 200);
    area.show();
    area.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&area));
    other->setFocus();
    ASSERT_TRUE(other->hasFocus());
    // A real mouse's wheel event (a spontaneous one) focuses a field of Qt::WheelFocus before any event
    // filter sees it, and a focused field takes the wheel: no field may keep that policy. (sendEvent below
    // makes events that are not spontaneous, so only the policy shows it.)
    EXPECT_EQ(spin->focusPolicy(), Qt::StrongFocus);
    EXPECT_EQ(combo->focusPolicy(), Qt::StrongFocus);
    EXPECT_EQ(early.focusPolicy(), Qt::StrongFocus);

    wheel(spin);
    wheel(combo);
    EXPECT_EQ(spin->value(), 42);
    EXPECT_EQ(combo->currentIndex(), 0);
    EXPECT_GT(area.verticalScrollBar()->value(), 0);  // the page scrolled instead
    EXPECT_TRUE(other->hasFocus());                   // and the wheel took no focus

    // A field the user is in takes the wheel, as before.
    spin->setFocus();
    ASSERT_TRUE(spin->hasFocus());
    wheel(spin);
    EXPECT_EQ(spin->value(), 41);
}
