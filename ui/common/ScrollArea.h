// A panel in a vertical scroll area, as the side tabs and the run progress rows are shown.
#pragma once

#include <QScrollArea>
#include <QScrollBar>

namespace wbui {

// Never narrower than its panel's minimum width plus the vertical scroll bar: with the sideways scroll bar
// off, a narrower area cut off the right edge of the panel (the Experiment form's spin-box arrows, under
// its scroll bar).
class VerticalScrollArea : public QScrollArea {
public:
    using QScrollArea::QScrollArea;
    QSize minimumSizeHint() const override {
        QSize hint = QScrollArea::minimumSizeHint();
        if (widget())
            hint.setWidth(std::max(hint.width(), widget()->minimumSizeHint().width() +
                                                     verticalScrollBar()->sizeHint().width() +
                                                     2 * frameWidth()));
        return hint;
    }
};

inline QScrollArea* verticallyScrolled(QWidget* inner, QWidget* parent) {
    auto* area = new VerticalScrollArea(parent);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setWidget(inner);
    // Panels wrap their text to the width they get; a sideways scrollbar would only hide the right edge.
    area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return area;
}

}  // namespace wbui
