// The run names of a list (the Runs list's Run column, Compare's table): each fitted to its column among the
// names listed (fitRunName), so that what every listed run shares is elided first and the run's number and
// what tells it apart stay ("run 2 · 11-28 0…ang-quatrains-7" had lost the time that tells two runs apart,
// issue #63).
#pragma once

#include <QStyledItemDelegate>

namespace wbui {

class RunNameDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;
};

}  // namespace wbui
