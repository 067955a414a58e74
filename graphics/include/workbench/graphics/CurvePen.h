// Pens for curves that may grow to hundreds of thousands of points. Qt's raster engine strokes an
// antialiased line wider than one pixel as a filled outline, ~25x slower than a one-pixel line: with four
// runs of 10,000 points a replot took 170 ms at width 1.8 and 2 ms at width 1 (bench/ui_replot.cpp). Dense
// curves are therefore drawn one pixel wide; short ones keep the heavier, easier-to-read line.
#pragma once

#include <QColor>
#include <QPen>

#include "workbench/graphics/QCustomPlot.h"

namespace wbui {

inline QPen curvePen(const QColor& color, double width, int points, Qt::PenStyle style = Qt::SolidLine) {
    constexpr int kDense = 1500;  // about the number of pixel columns a chart spans
    return QPen(color, points > kDense ? 1.0 : width, style);
}

// A curve of one point draws no line at all, and one of a few points hides where its values are: sparse
// curves mark each point; dense ones would only be cluttered by markers.
inline QCPScatterStyle curveMarkers(int points) {
    constexpr int kSparse = 40;
    return points <= kSparse ? QCPScatterStyle(QCPScatterStyle::ssDisc, 5)
                             : QCPScatterStyle(QCPScatterStyle::ssNone);
}

}  // namespace wbui
