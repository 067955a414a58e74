// Wheel events only for the focused field.
#include "common/WheelGuard.h"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QWheelEvent>

namespace wbui {

namespace {
// The field a wheel event is for: a spin box or combo box, or the line edit inside one.
QWidget* valueField(QObject* watched) {
    auto* widget = qobject_cast<QWidget*>(watched);
    for (int depth = 0; widget && depth < 2; ++depth, widget = widget->parentWidget())
        if (qobject_cast<QAbstractSpinBox*>(widget) || qobject_cast<QComboBox*>(widget)) return widget;
    return nullptr;
}
}  // namespace

WheelGuard::WheelGuard(QObject* parent) : QObject(parent) { qApp->installEventFilter(this); }

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() != QEvent::Wheel) return false;
    QWidget* field = valueField(watched);
    if (!field || field->hasFocus() || field != watched) return false;
    // Not focused: the field never sees the wheel; the scroll area around it (the Experiment page's) scrolls
    // instead. Qt propagates only the wheel events it made itself, so this one goes to the area's viewport.
    field->setFocusPolicy(Qt::StrongFocus);  // a wheel no longer focuses it either
    QAbstractScrollArea* area = nullptr;
    for (QWidget* w = field->parentWidget(); w && !area; w = w->parentWidget())
        area = qobject_cast<QAbstractScrollArea*>(w);
    if (!area) return true;
    auto* wheel = static_cast<QWheelEvent*>(event);
    QWidget* viewport = area->viewport();
    const QPointF position = field->mapTo(viewport, wheel->position());
    QWheelEvent passed(position, wheel->globalPosition(), wheel->pixelDelta(), wheel->angleDelta(),
                       wheel->buttons(), wheel->modifiers(), wheel->phase(), wheel->inverted(),
                       wheel->source());
    QCoreApplication::sendEvent(viewport, &passed);
    return true;
}

}  // namespace wbui
