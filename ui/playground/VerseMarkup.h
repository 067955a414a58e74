// A generated poem as the playground shows it: each character a rule names marked in the text, the form and
// the rules it breaks in a line under it, and what each mark means in its tooltip; plus the delegate that
// draws such rich text in the results list.
#pragma once

#include <QString>
#include <QStyledItemDelegate>

#include "workbench/domain/Verse.h"

namespace wbui {

// Item data roles of a result that has been checked.
inline constexpr int kVerseHtmlRole = Qt::UserRole + 1;     // the marked-up poem and its summary
inline constexpr int kVerseSummaryRole = Qt::UserRole + 2;  // wb::verseSummary, pattern, bits/char
inline constexpr int kVersePassedRole = Qt::UserRole + 3;   // bool
inline constexpr int kVerseMarksRole = Qt::UserRole + 4;    // how many characters are marked

// summary: the line under the poem (wb::verseSummary when empty).
QString verseHtml(const QString& poem, const wb::VerseReport& report, int* marked = nullptr,
                  const QString& summary = {});
QString verseTooltip(const wb::VerseReport& report);

// Draws an item's kVerseHtmlRole as rich text (its DisplayRole, the plain poem, otherwise), wrapped to the
// view's width.
class VerseItemDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

}  // namespace wbui
