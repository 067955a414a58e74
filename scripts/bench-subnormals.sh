#!/usr/bin/env bash
# Subnormal floats flushed to zero (every CPU job's default, core/engine/src/device/DeviceSetup.h) against
# IEEE 754's gradual underflow (LSTM_WORKBENCH_FLUSH_DENORMALS=off): our training step for every preset at 1
# and 2 threads, the two sides alternately in the same rounds on the same build. On an Intel core an
# operation on a subnormal takes a microcode assist; AMD's cores were not seen to pay for them. JSON into
# OUT_DIR, then a Markdown table of the medians on stdout.
#
# Usage: env -u OPENBLAS_CORETYPE scripts/bench-subnormals.sh
#   (env: ROUNDS=3 PRECISIONS="fp32" OUT_DIR=docs/benchmarks/subnormals BUILD_DIR=build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
ROUNDS=${ROUNDS:-3}
PRECISIONS=${PRECISIONS:-fp32}
OUT_DIR=${OUT_DIR:-docs/benchmarks/subnormals}
cli="$BUILD_DIR/bin/lstm-workbench-cli"
WORKBENCH_BUILD_DIR=$BUILD_DIR ./scripts/build.sh --target lstm-workbench-cli >/dev/null
rm -rf "$OUT_DIR" && mkdir -p "$OUT_DIR"
echo "$(date -u +%FT%TZ) rounds $ROUNDS precisions '$PRECISIONS' OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}: $0" \
  >"$OUT_DIR/commands.txt"
lscpu >"$OUT_DIR/lscpu.txt"
uptime >"$OUT_DIR/load_before.txt"
for round in $(seq 1 "$ROUNDS"); do
  echo "bench-subnormals: round $round" >&2
  for preset in imdb charrnn poems; do
    steps=20; [ $preset = poems ] && steps=6
    for threads in 1 2; do
      for precision in $PRECISIONS; do
        # The order of the two sides turns over every round.
        for side in $( ((round % 2)) && echo "flushed kept" || echo "kept flushed"); do
          switch=$([ $side = kept ] && echo off || echo on)
          LSTM_WORKBENCH_FLUSH_DENORMALS=$switch "$cli" bench --preset $preset --device "cpu:$threads" \
            --precision "$precision" --steps $steps --json >"$OUT_DIR/$side-$preset-$threads-$precision-$round.json"
        done
      done
    done
  done
done
uptime >"$OUT_DIR/load_after.txt"
python3 - "$OUT_DIR" <<'EOF'
import json, statistics, sys
from collections import defaultdict
from pathlib import Path
runs = defaultdict(list)
for f in Path(sys.argv[1]).glob("*.json"):
    side, preset, threads, precision, _ = f.stem.split("-")
    runs[(preset, int(threads), precision, side)].append(json.loads(f.read_text())["us_per_sample"])
print("| preset | threads | precision | subnormals kept (µs/sample) | flushed (µs/sample) | kept / flushed |")
print("|---|---:|---|---:|---:|---:|")
for preset in ["imdb", "charrnn", "poems"]:
    for (p, t, pr, side) in sorted(k for k in runs if k[0] == preset and k[3] == "kept"):
        kept, flushed = (statistics.median(runs[(p, t, pr, s)]) for s in ("kept", "flushed"))
        print(f"| {p} | {t} | {pr} | {kept:,.0f} | {flushed:,.0f} | {kept / flushed:.2f}x |")
EOF
