#!/usr/bin/env bash
# The main window with a window manager's frame (title bar, borders) opens within the screen's available area
# at 1024x768, 1280x800 and 1920x1080 at scale 2 (issue #63: the frame was added on top of a window sized to
# the screen, and the status bar fell below its edge): at first launch, and at the launch after one that
# showed a paused sweep and was quit with Ctrl+Q (the geometry it saved and the sweep it shows again are
# restored). An offscreen platform has no frame, so this runs the app under Xvfb with Openbox and reads the
# frame from the X server. Exits 77 (skipped) without xvfb-run, openbox, xwininfo, xprop or xdotool.
#
#   tests/ui/window_frame_test.sh APP       (lstm-workbench-cli beside APP makes the paused sweep)
set -euo pipefail
app=$1
for tool in xvfb-run openbox xwininfo xprop xdotool; do
  command -v "$tool" >/dev/null || { echo "window_frame_test: no $tool (skipped)"; exit 77; }
done
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT  # each Xvfb's launches have a home of their own: the first one is a first launch

# The main window: the visible one whose title names the app (Qt also makes an unmapped window of that name,
# and the title names the corpus or run shown too).
main_window() { xdotool search --onlyvisible --name "LSTM Workbench" 2>/dev/null | head -1 || true; }

start_app() {  # inside Xvfb: ARGS...; sets pid and window once the window is mapped and framed
  HOME=$home XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data XDG_CACHE_HOME=$home/cache \
    LSTM_WORKBENCH_DATA=$home/corpora QT_QPA_PLATFORM=xcb "$app" "$@" >>"$home/app.log" 2>&1 &
  pid=$!
  local i
  window=""
  for i in $(seq 40); do
    window=$(main_window)
    [ -n "$window" ] && xprop -id "$window" _NET_FRAME_EXTENTS 2>/dev/null | grep -q = && break
    sleep 0.5
  done
  sleep 2  # the app fits its frame within a second of showing
}

check_frame() {  # inside Xvfb, the app shown: WIDTH HEIGHT WHEN
  local width=$1 height=$2 when=$3 info extents x y w h left right top bottom
  [ -n "$window" ] || { echo "window_frame_test: $when, no window was shown"; return 1; }
  info=$(xwininfo -id "$window")
  extents=$(xprop -id "$window" _NET_FRAME_EXTENTS | sed 's/.*= //; s/,//g')
  read -r left right top bottom <<<"$extents"
  x=$(awk '/Absolute upper-left X/ {print $4}' <<<"$info")
  y=$(awk '/Absolute upper-left Y/ {print $4}' <<<"$info")
  w=$(awk '/Width:/ {print $2}' <<<"$info")
  h=$(awk '/Height:/ {print $2}' <<<"$info")
  [ -n "$w" ] && [ -n "$bottom" ] || { echo "window_frame_test: $when, the window's frame was not read"; return 1; }
  local frame="$((x - left)),$((y - top)) to $((x + w + right)),$((y + h + bottom))"
  local screen="${width}x${height}${QT_SCALE_FACTOR:+ scale $QT_SCALE_FACTOR}"
  if [ $((x - left)) -lt 0 ] || [ $((y - top)) -lt 0 ] || [ $((x + w + right)) -gt "$width" ] ||
     [ $((y + h + bottom)) -gt "$height" ]; then
    echo "window_frame_test: at $screen, $when, the frame spans $frame, past the screen"
    return 1
  fi
  echo "window_frame_test: $screen, $when: frame $frame, within the screen"
}

stop_app() {  # kill: nothing saved, the next launch is still a first one
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

quit_app() {  # Ctrl+Q, as a user quits: the window saves its geometry and the sweep it shows
  xdotool windowactivate --sync "$window" key --clearmodifiers ctrl+q 2>/dev/null
  local i
  for i in $(seq 40); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "window_frame_test: the app did not quit on Ctrl+Q"
    stop_app
    return 1
  fi
  wait "$pid" 2>/dev/null || true
}

# A sweep paused before its first cell (SIGUSR1 as it starts; the app's Pause): every cell queued.
paused_sweep() {
  local cli dir=$home/paused-sweep
  cli="$(dirname "$app")/lstm-workbench-cli"
  printf 'the quick brown fox jumps over the lazy dog\n%.0s' $(seq 200) >"$home/corpus.txt"
  XDG_CACHE_HOME=$home/cache LSTM_WORKBENCH_DATA=$home/corpora "$cli" sweep "$home/corpus.txt" --out "$dir" \
    --grid hidden=8,16 --max-steps 5 --quiet >/dev/null 2>&1 &
  local sweep=$! i
  for i in $(seq 100); do
    [ -f "$dir/sweep.json" ] && break
    sleep 0.1
  done
  kill -USR1 "$sweep" 2>/dev/null || true
  wait "$sweep" 2>/dev/null || true
  grep -q '"queued"' "$dir/sweep.json" || { echo "window_frame_test: no paused sweep in $dir"; return 1; }
  echo "$dir"
}

check() {  # inside Xvfb: WIDTH HEIGHT
  local width=$1 height=$2 sweep status=0
  openbox >/dev/null 2>&1 &
  sleep 1
  start_app
  check_frame "$width" "$height" "at first launch" || status=1
  stop_app
  sweep=$(paused_sweep)
  start_app "$sweep"
  quit_app || status=1
  start_app
  check_frame "$width" "$height" "after quitting with a paused sweep shown" || status=1
  grep -q "shown=.*paused-sweep" "$home"/config/*/*.conf ||
    { echo "window_frame_test: the quit did not save the sweep shown"; status=1; }
  stop_app
  return $status
}
# Inside Xvfb: this script again, with the screen's size.
if [ "${2:-}" = --inside ]; then
  check "$3" "$4"
  exit
fi
status=0
for size in 1024x768 1280x800; do
  xvfb-run -a -s "-screen 0 ${size}x24" "$0" "$app" --inside "${size%x*}" "${size#*x}" || status=1
done
QT_SCALE_FACTOR=2 xvfb-run -a -s "-screen 0 1920x1080x24" "$0" "$app" --inside 1920 1080 || status=1
exit $status
