// Marking up a checked poem.
#include "playground/VerseMarkup.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QPainter>
#include <QSet>
#include <QTextDocument>

#include <cmath>

#include "workbench/graphics/QtConversions.h"

namespace wbui {

QString verseHtml(const QString& poem, const wb::VerseReport& report, int* marked,
                  const QString& summaryLine) {
    QSet<QPair<int, int>> broken;
    for (const auto& v : report.violations)
        if (v.position >= 0) broken.insert({v.line, v.position});
    const auto spots = wb::verseSpots(toStd(poem));
    const QList<uint> chars = poem.toUcs4();
    QString html;
    int marks = 0;
    for (int i = 0; i < chars.size() && i < int(spots.size()); ++i) {
        const char32_t c = chars[i];
        const QString text = QString::fromUcs4(&c, 1);
        if (c == U'\n') {
            html += QStringLiteral("<br>");
        } else if (broken.contains({spots[std::size_t(i)].line, spots[std::size_t(i)].position})) {
            html +=
                QStringLiteral("<span style=\"background-color:#ffd5cc; color:#b3261e;\"><u>%1</u></span>")
                    .arg(text.toHtmlEscaped());
            ++marks;
        } else {
            html += text.toHtmlEscaped();
        }
    }
    if (marked) *marked = marks;
    const QString summary =
        (summaryLine.isEmpty() ? toQt(wb::verseSummary(report)) : summaryLine).toHtmlEscaped();
    html += QStringLiteral("<br><span style=\"font-size:small; color:%1;\">%2%3</span>")
                .arg(report.passed ? QStringLiteral("#1b7f3b") : QStringLiteral("#8a5300"),
                     report.passed ? QStringLiteral("✓ ") : QString(), summary);
    return html;
}

QString verseTooltip(const wb::VerseReport& report) {
    QStringList lines{toQt(wb::verseSummary(report))};
    for (const auto& v : report.violations)
        lines << (v.character.empty() ? QObject::tr("line %1: %2").arg(v.line + 1).arg(toQt(v.explanation))
                                      : QObject::tr("line %1, %2: %3")
                                            .arg(v.line + 1)
                                            .arg(toQt(v.character), toQt(v.explanation)));
    return lines.join(QLatin1Char('\n'));
}

namespace {
// The document of an item, laid out at `width`.
void layOut(QTextDocument& doc, const QStyleOptionViewItem& option, const QString& html, int width) {
    doc.setDefaultFont(option.font);
    doc.setHtml(html);
    doc.setTextWidth(std::max(width, 80));
}

int viewWidth(const QStyleOptionViewItem& option) {
    if (const auto* view = qobject_cast<const QAbstractItemView*>(option.widget))
        return view->viewport()->width() - 24;  // the list's spacing and frame: no horizontal scroll bar
    return option.rect.width();
}
}  // namespace

void VerseItemDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                              const QModelIndex& index) const {
    const QString html = index.data(kVerseHtmlRole).toString();
    if (html.isEmpty()) return QStyledItemDelegate::paint(painter, option, index);
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    opt.text.clear();  // the background and selection only: the document draws the text
    const QStyle* style = opt.widget ? opt.widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);
    QTextDocument doc;
    layOut(doc, option, html, option.rect.width() - 8);
    painter->save();
    painter->translate(option.rect.topLeft() + QPoint(4, 2));
    doc.drawContents(painter, QRectF(0, 0, option.rect.width() - 8, option.rect.height() - 4));
    painter->restore();
}

QSize VerseItemDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const {
    const QString html = index.data(kVerseHtmlRole).toString();
    if (html.isEmpty()) return QStyledItemDelegate::sizeHint(option, index);
    QTextDocument doc;
    const int width = viewWidth(option) - 8;
    layOut(doc, option, html, width);
    return {width + 8, int(std::ceil(doc.size().height())) + 4};
}

}  // namespace wbui
