// A panel in a vertical scroll area, as the side tabs and the run progress rows are shown.
#pragma once

#include <QScrollArea>

namespace wbui {

inline QScrollArea* verticallyScrolled(QWidget* inner, QWidget* parent) {
    auto* area = new QScrollArea(parent);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setWidget(inner);
    // Panels wrap their text to the width they get; a sideways scrollbar would only hide the right edge.
    area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return area;
}

}  // namespace wbui
