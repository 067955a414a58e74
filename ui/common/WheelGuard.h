// The mouse wheel changes a field only when the field has the keyboard focus. Without this, scrolling the
// Experiment page changed whichever spin box or combo box passed under the pointer (gradient clipping from
// 5.00 to off, the seed from 42 to 39), silently. An unfocused field passes the wheel on to what holds it,
// so the page scrolls as the user meant; a click (or Tab) gives the field the focus, and then the wheel
// steps its value, as before. Installed once on the application by the main window.
#pragma once

#include <QObject>

namespace wbui {

class WheelGuard : public QObject {
    Q_OBJECT
public:
    explicit WheelGuard(QObject* parent = nullptr);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
};

}  // namespace wbui
