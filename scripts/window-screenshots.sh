#!/usr/bin/env bash
# The window screenshots of docs/screenshots/window-*.png (issues #45 and #63), made by the ui suite's
# GuideScreenshots tests on the window filling an Xvfb screen of each size the issues name: 1024x768,
# 1280x800, and 1920x1080 at scale 2. Needs build/ (scripts/build.sh) and tang-quatrains-7 prepared.
#   scripts/window-screenshots.sh [GTEST_FILTER]     (default: GuideScreenshots.TwoRunsThatDifferOnlyByDevice)
set -euo pipefail
cd "$(dirname "$0")/.."
filter=${1:-GuideScreenshots.TwoRunsThatDifferOnlyByDevice}
data=${LSTM_WORKBENCH_DATA:-${XDG_CACHE_HOME:-$HOME/.cache}/lstm-workbench/corpora}
build/bin/lstm-workbench-cli prepare tang-quatrains-7 >/dev/null
for size in 1024x768 1280x800 1920x1080@2; do
  screen=${size%@*}
  scale=1
  [ "$size" != "$screen" ] && scale=${size#*@}
  echo "window-screenshots: $screen at scale $scale"
  QT_QPA_PLATFORM=xcb QT_SCALE_FACTOR=$scale LSTM_WORKBENCH_SCREENSHOTS=$PWD/docs/screenshots LSTM_WORKBENCH_DATA=$data \
    xvfb-run -a -s "-screen 0 ${screen}x24" build/bin/ui_tests --gtest_filter="$filter" | tail -3
done
