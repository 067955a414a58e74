// Labels shortened to their width.
#include "common/ElidedLabel.h"

#include <QResizeEvent>

#include "workbench/graphics/RunNames.h"

namespace wbui {

ElidedLabel::ElidedLabel(QWidget* parent, Qt::TextElideMode mode) : QLabel(parent), m_mode(mode) {
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    setTextFormat(Qt::PlainText);
}

void ElidedLabel::setFullText(const QString& text) {
    m_full = text;
    setToolTip(text);
    elide();
    updateGeometry();
}

QSize ElidedLabel::minimumSizeHint() const {
    // Room for a few characters and the ellipsis; the rest comes from the layout.
    return {fontMetrics().horizontalAdvance(QStringLiteral("M…M")) + 2 * margin(),
            QLabel::minimumSizeHint().height()};
}

QSize ElidedLabel::sizeHint() const {
    return {fontMetrics().horizontalAdvance(m_full) + 2 * margin(), QLabel::sizeHint().height()};
}

void ElidedLabel::resizeEvent(QResizeEvent* event) {
    QLabel::resizeEvent(event);
    elide();
}

void ElidedLabel::setShownRunNames(const QStringList& names) {
    m_runName = true;
    m_runNames = names;
    elide();
}

void ElidedLabel::elide() {
    const int room = std::max(0, width() - 2 * margin());
    const QString shown = m_runName ? fitRunName(m_full, m_runNames, fontMetrics(), room)
                                    : fontMetrics().elidedText(m_full, m_mode, room);
    if (shown != text()) QLabel::setText(shown);
}

}  // namespace wbui
