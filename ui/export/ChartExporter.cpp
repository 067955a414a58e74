// A Qt Charts view as a file, and the new-folder dialog.
#include "export/ChartExporter.h"

#include <QChart>
#include <QChartView>
#include <QFileDialog>
#include <QFileInfo>
#include <QGraphicsLayout>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>

#include "workbench/graphics/PlotFiles.h"
#include "workbench/graphics/QtConversions.h"

namespace wbui {

QString ChartExporter::askForNewFolder(QWidget* parent, const QString& title, const QString& suggested) {
    return QFileDialog::getSaveFileName(parent, title, suggested, QString(), nullptr,
                                        QFileDialog::DontConfirmOverwrite);
}

bool ChartExporter::saveChartView(QChartView* view, const QString& path, QString* error) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    // A shown chart as laid out on screen, scaled up evenly to at least 800x300: the image has the view's
    // aspect ratio, so the chart fills it (a fixed 800x300 left it in a corner), and nothing is re-laid out
    // (a relayout for the export left the old axis labels drawn under the new ones).
    QChart* chart = view->chart();
    const QSizeF shown = chart->sceneBoundingRect().size();
    // A chart on a tab never shown has no real layout yet: it is drawn into 800x300 as it is.
    QSize size = view->size().expandedTo(QSize(800, 300));
    if (view->isVisible() && shown.width() >= 50 && shown.height() >= 50) {
        const double scale = std::max({1.0, 800.0 / shown.width(), 300.0 / shown.height()});
        size = QSize(int(std::ceil(shown.width() * scale)), int(std::ceil(shown.height() * scale)));
    } else {
        // Never laid out (its tab was never shown): lay the chart out at the export size first, or the title,
        // axes and bars are drawn squashed into whatever geometry it was born with.
        chart->resize(QSizeF(size));
        if (chart->layout()) chart->layout()->activate();
    }
    if (suffix == QLatin1String("png")) {
        QImage image(size, QImage::Format_ARGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        chart->scene()->render(&painter, QRectF(QPointF(0, 0), size), chart->sceneBoundingRect());
        painter.end();
        if (!image.save(path))
            return PlotFiles::fail(error, path, QStringLiteral("could not write the image"));
        return true;
    }
    if (suffix == QLatin1String("svg") || suffix == QLatin1String("pdf")) {
        QPainter painter;
        QSvgGenerator svg;
        QPdfWriter pdf(path);
        if (suffix == QLatin1String("svg")) {
            svg.setFileName(path);
            svg.setSize(size);
            svg.setViewBox(QRect(QPoint(0, 0), size));
            painter.begin(&svg);
        } else {
            pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));
            pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
            pdf.setResolution(72);
            painter.begin(&pdf);
        }
        chart->scene()->render(&painter, QRectF(QPointF(0, 0), size), chart->sceneBoundingRect());
        if (!painter.end()) return PlotFiles::fail(error, path, QStringLiteral("could not write the image"));
        return true;
    }
    return PlotFiles::fail(error, path, QStringLiteral("unknown image type; use .png, .svg or .pdf"));
}

}  // namespace wbui
