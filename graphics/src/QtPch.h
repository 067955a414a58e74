// The precompiled header of the Qt targets (workbench_graphics makes it; workbench_ui and ui_tests reuse it):
// Qt Widgets whole and QCustomPlot, which nearly every source of theirs includes in part. Each source parsed
// about 140,000 lines of Qt headers for 2-5 s of its compile; loading them precompiled takes a fraction of
// that (docs/benchmarks.md, "Build and CI time"). Never LibTorch: these targets never include it.
#pragma once

#include <QtWidgets/QtWidgets>

#include "workbench/graphics/QCustomPlot.h"
