#!/usr/bin/env bash
# bf16 on AMX tiles (core/engine/src/model/Bf16Amx.h) against bf16 on AVX512_BF16 alone (LSTM_WORKBENCH_AMX=off)
# and against fp32 (what `auto` chose on an Intel CPU before the tiles): our training step for every preset at
# 1 and 2 threads, the three sides alternately in the same rounds on the same build, on a CPU with AMX-BF16
# (Intel Sapphire Rapids or later). JSON into OUT_DIR, then a Markdown table of the medians on stdout.
#
# Usage: env -u OPENBLAS_CORETYPE scripts/bench-amx.sh   (env: ROUNDS=3 OUT_DIR=docs/benchmarks/amx BUILD_DIR=build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
ROUNDS=${ROUNDS:-3}
OUT_DIR=${OUT_DIR:-docs/benchmarks/amx}
cli="$BUILD_DIR/bin/lstm-workbench-cli"
WORKBENCH_BUILD_DIR=$BUILD_DIR ./scripts/build.sh --target lstm-workbench-cli >/dev/null
if ! "$cli" devices | grep -q 'on AMX tiles'; then
  echo "bench-amx: this CPU's bf16 kernels do not run on AMX tiles ($("$cli" devices | grep kernels))" >&2
  exit 1
fi
rm -rf "$OUT_DIR" && mkdir -p "$OUT_DIR"
echo "$(date -u +%FT%TZ) rounds $ROUNDS OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}: $0" >"$OUT_DIR/commands.txt"
lscpu >"$OUT_DIR/lscpu.txt"
uptime >"$OUT_DIR/load_before.txt"
sides=(amx avx512bf16 fp32)
for round in $(seq 1 "$ROUNDS"); do
  echo "bench-amx: round $round" >&2
  for preset in imdb charrnn poems; do
    steps=20; [ $preset = poems ] && steps=6
    for threads in 1 2; do
      # The sides' order turns by one every round.
      for i in 0 1 2; do
        side=${sides[$(((i + round) % 3))]}
        precision=$([ $side = fp32 ] && echo fp32 || echo bf16)
        amx=$([ $side = avx512bf16 ] && echo off || echo on)
        LSTM_WORKBENCH_AMX=$amx "$cli" bench --preset $preset --device "cpu:$threads" --precision $precision \
          --steps $steps --json >"$OUT_DIR/$side-$preset-$threads-$round.json"
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
    side, preset, threads, _ = f.stem.split("-")
    runs[(preset, int(threads), side)].append(json.loads(f.read_text())["us_per_sample"])
print("| preset | threads | fp32 (µs/sample) | bf16 on AVX512_BF16 | bf16 on AMX tiles | AMX / AVX512_BF16 | AMX / fp32 |")
print("|---|---:|---:|---:|---:|---:|---:|")
for preset in ["imdb", "charrnn", "poems"]:
    for threads in (1, 2):
        fp32, avx, amx = (statistics.median(runs[(preset, threads, s)]) for s in ("fp32", "avx512bf16", "amx"))
        print(f"| {preset} | {threads} | {fp32:,.0f} | {avx:,.0f} | {amx:,.0f} | {amx / avx:.2f}x | {amx / fp32:.2f}x |")
EOF
