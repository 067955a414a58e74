// Wheel events only for the focused field.
#include "common/WheelGuard.h"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QWheelEvent>

namespace wbui {

namespace {
bool isValueField(QObject* object) {
    return qobject_cast<QAbstractSpinBox*>(object) || qobject_cast<QComboBox*>(object);
}

// The field a wheel event is for: a spin box or combo box, or the line edit inside one.
QWidget* valueField(QObject* watched) {
    auto* widget = qobject_cast<QWidget*>(watched);
    for (int depth = 0; widget && depth < 2; ++depth, widget = widget->parentWidget())
        if (isValueField(widget)) return widget;
    return nullptr;
}

// Spin and combo boxes take focus from a wheel (Qt::WheelFocus), and Qt gives it before any event filter
// sees the wheel event that a real mouse makes: the field is then focused, and the guard lets the wheel
// through. So no field may keep that policy: it takes focus from a click or Tab only.
void noWheelFocus(QWidget* field) {
    if ((field->focusPolicy() & Qt::WheelFocus) == Qt::WheelFocus) field->setFocusPolicy(Qt::StrongFocus);
}
}  // namespace

WheelGuard::WheelGuard(QObject* parent) : QObject(parent) {
    qApp->installEventFilter(this);
    for (QWidget* widget : QApplication::allWidgets())  // those made before the guard
        if (isValueField(widget)) noWheelFocus(widget);
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Polish && isValueField(watched)) {  // every field, before it is first shown
        noWheelFocus(static_cast<QWidget*>(watched));
        return false;
    }
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
