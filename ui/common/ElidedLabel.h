// A one-line label that never asks for more width than it is given: text too long for it is shortened in
// the middle ("/home/me/…/sweep-20261125"), and the whole text is in the tooltip. For paths and run names,
// which otherwise set the window's minimum width (a long sweep folder made the window 1807 px wide).
#pragma once

#include <QLabel>

namespace wbui {

class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget* parent = nullptr, Qt::TextElideMode mode = Qt::ElideMiddle);

    void setFullText(const QString& text);
    // A run's name among the names shown beside it: fitted with fitRunName (what they all share elided first,
    // its number kept) instead of cut in the middle.
    void setShownRunNames(const QStringList& names);
    QString fullText() const { return m_full; }
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void elide();
    QString m_full;
    Qt::TextElideMode m_mode;
    QStringList m_runNames;
    bool m_runName = false;
};

}  // namespace wbui
