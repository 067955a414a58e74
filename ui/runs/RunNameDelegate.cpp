// The Run column's fitted names.
#include "runs/RunNameDelegate.h"

#include <QAbstractItemModel>
#include <QApplication>
#include <QStyle>

#include "workbench/graphics/RunNames.h"

namespace wbui {

void RunNameDelegate::initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const {
    QStyledItemDelegate::initStyleOption(option, index);
    const QAbstractItemModel* model = index.model();
    if (!model || option->text.isEmpty()) return;
    QStringList shown;
    for (int row = 0; row < model->rowCount(index.parent()); ++row)
        shown << model->index(row, index.column(), index.parent()).data().toString();
    const QStyle* style = option->widget ? option->widget->style() : QApplication::style();
    // The text's own rectangle (the tick box and the icon take their part), less the margins the style
    // keeps on either side of it.
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, option, option->widget) + 1;
    const int width =
        style->subElementRect(QStyle::SE_ItemViewItemText, option, option->widget).width() - 2 * margin;
    option->text = fitRunName(option->text, shown, option->fontMetrics, width);
}

}  // namespace wbui
