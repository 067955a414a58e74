#!/usr/bin/env bash
# Where a training step's time goes, by function: `perf record` over `lstm-workbench-cli bench` (enough steps
# that loading the program is a small part), then perf's report by shared object and by symbol, into
# docs/benchmarks/profile/PRESET-xTHREADS-PRECISION.txt with the command and the machine.
#
# Usage: scripts/profile-step.sh PRESET THREADS PRECISION [STEPS]   (needs perf: linux-perf)
# The reports are cut with sed -n, not head: head left before perf's report ended, and under pipefail its
# SIGPIPE stopped the script after writing the file, without its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=$1 threads=$2 precision=$3 steps=${4:-200}
BUILD_DIR=${BUILD_DIR:-build}
command -v perf >/dev/null || { echo "profile-step: needs perf (apt-get install linux-perf)" >&2; exit 1; }
out_dir=docs/benchmarks/profile
mkdir -p "$out_dir"
out="$out_dir/$preset-x$threads-$precision.txt"
data=$(mktemp)
trap 'rm -f "$data"' EXIT
cmd=("$BUILD_DIR/bin/lstm-workbench-cli" bench --preset "$preset" --device "cpu:$threads" --precision "$precision" --steps "$steps")
perf record -q -o "$data" "${cmd[@]}" >/dev/null 2>&1
{
  echo "# $(date -u +%FT%TZ) perf record over: ${cmd[*]} (OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset})"
  echo "# $(lscpu | grep -E '^Model name|^CPU family|^Model:' | tr -s ' ' | paste -sd ';')"
  echo "## by shared object"
  perf report -i "$data" --no-children --sort dso --stdio 2>/dev/null | grep -E '^ +[0-9]' | sed -n '1,8p'
  echo "## by symbol (the top 30)"
  perf report -i "$data" --no-children --sort sym --stdio 2>/dev/null | grep -E '^ +[0-9]' | sed -n '1,30p'
} >"$out"
echo "profile-step: wrote $out" >&2
