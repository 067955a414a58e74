// The window's tabs, picked by page rather than by index: the main ones (Training, Compare, Playground,
// Sweep), each page in a scroll area of its own, and the side's (Corpus, Experiment, Runs). For the main
// ones: a QTabWidget is as large as the largest minimum of all its pages, and those pages together made the
// window wider and taller than a 1024×768 screen, or a 1920×1080 one at scale factor 2 (issue #45). A page
// smaller than it needs scrolls instead; at any larger size it fills the tab as before.
#pragma once

#include <QScrollArea>
#include <QTabWidget>

namespace wbui {

class PageTabs : public QTabWidget {
public:
    using QTabWidget::QTabWidget;

    int addPage(QWidget* page, const QString& title) {
        auto* area = new QScrollArea(this);
        area->setWidgetResizable(true);
        area->setFrameShape(QFrame::NoFrame);
        area->setWidget(page);
        return addTab(area, title);
    }
    // The page (not its scroll area) shown now, and showing one (in a scroll area or not).
    QWidget* currentPage() const { return pageAt(currentIndex()); }
    void showPage(QWidget* page) {
        for (int i = 0; i < count(); ++i)
            if (pageAt(i) == page) setCurrentIndex(i);
    }
    QWidget* pageAt(int index) const {
        auto* area = qobject_cast<QScrollArea*>(widget(index));
        return area ? area->widget() : widget(index);
    }
};

}  // namespace wbui
