// QCustomPlot for a build without Qt's keywords. Our Qt targets build with QT_NO_KEYWORDS (signals, slots
// and emit are macros that break LibTorch's headers, so our code spells Q_SIGNALS, Q_SLOTS and Q_EMIT),
// but qcustomplot.h itself is written with `signals:` and `foreach`: they are defined as Qt's own spellings
// for that header alone. Include this, never <qcustomplot.h> (scripts/check-layers.sh checks).
#pragma once

#include <QtGlobal>

#if defined(QT_NO_KEYWORDS) && !defined(signals)
#define signals Q_SIGNALS
#define slots Q_SLOTS
#define foreach Q_FOREACH
#include <qcustomplot.h>  // IWYU pragma: export
#undef signals
#undef slots
#undef foreach
#else
#include <qcustomplot.h>  // IWYU pragma: export
#endif
