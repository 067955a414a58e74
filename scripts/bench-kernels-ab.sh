#!/usr/bin/env bash
# Round three's CPU changes (#49), each against what it replaced, alternately in the same rounds on the same
# build, through the switches that keep the old path: the fp32 recurrence on AVX-512 against AVX2
# (LSTM_WORKBENCH_FP32_KERNELS=avx2, which also keeps the packed recurrence to H <= 256, so poems runs per-step
# BLAS as before), the fused softmax cross-entropy against ATen's (LSTM_WORKBENCH_FUSED_LOSS=off), and Adam in
# one pass against the tensor operations (LSTM_WORKBENCH_ONE_PASS_ADAM=off, its time from bench --profile's
# phases). JSON into OUT_DIR, the table into its section of docs/benchmarks.md.
#
# Usage: env -u OPENBLAS_CORETYPE scripts/bench-kernels-ab.sh   (env: ROUNDS=3 OUT_DIR=docs/benchmarks/kernels-ab)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
ROUNDS=${ROUNDS:-3}
OUT_DIR=${OUT_DIR:-docs/benchmarks/kernels-ab}
cli="$BUILD_DIR/bin/lstm-workbench-cli"
WORKBENCH_BUILD_DIR=$BUILD_DIR ./scripts/build.sh --target lstm-workbench-cli >/dev/null
rm -rf "$OUT_DIR" && mkdir -p "$OUT_DIR"
echo "$(date -u +%FT%TZ) rounds $ROUNDS OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}: $0" >"$OUT_DIR/commands.txt"
lscpu >"$OUT_DIR/lscpu.txt"
uptime >"$OUT_DIR/load_before.txt"
run() {  # NAME SWITCH PRESET THREADS PRECISION STEPS [--profile]
  local name=$1 switch=$2 preset=$3 threads=$4 precision=$5 steps=$6
  shift 6
  env $switch "$cli" bench --preset "$preset" --device "cpu:$threads" --precision "$precision" --steps "$steps" \
    "$@" --json >"$OUT_DIR/$name-$preset-$threads-$precision-$round.json"
}
for round in $(seq 1 "$ROUNDS"); do
  echo "bench-kernels-ab: round $round" >&2
  for preset in imdb charrnn poems; do
    steps=20; [ $preset = poems ] && steps=6
    for threads in 1 2; do
      # The order of the two sides turns over every round.
      for side in $( ((round % 2)) && echo "new old" || echo "old new"); do
        if [ $side = new ]; then
          run fp32-avx512 LSTM_WORKBENCH_FP32_KERNELS=auto $preset $threads fp32 $steps
        else
          run fp32-avx2 LSTM_WORKBENCH_FP32_KERNELS=avx2 $preset $threads fp32 $steps
        fi
      done
    done
  done
  for preset in charrnn poems; do
    steps=20; [ $preset = poems ] && steps=6
    for threads in 1 2; do
      for side in $( ((round % 2)) && echo "new old" || echo "old new"); do
        if [ $side = new ]; then
          run loss-fused LSTM_WORKBENCH_FUSED_LOSS=on $preset $threads bf16 $steps
        else
          run loss-aten LSTM_WORKBENCH_FUSED_LOSS=off $preset $threads bf16 $steps
        fi
      done
    done
  done
  for side in $( ((round % 2)) && echo "new old" || echo "old new"); do
    if [ $side = new ]; then
      run adam-onepass LSTM_WORKBENCH_ONE_PASS_ADAM=on poems 1 bf16 6 --profile
    else
      run adam-tensorops LSTM_WORKBENCH_ONE_PASS_ADAM=off poems 1 bf16 6 --profile
    fi
  done
done
uptime >>"$OUT_DIR/load_after.txt"
table=$(mktemp)
trap 'rm -f "$table"' EXIT
python3 - "$OUT_DIR" >"$table" <<'PY'
import json, statistics, sys
from collections import defaultdict
from pathlib import Path
runs = defaultdict(list)
for f in Path(sys.argv[1]).glob("*.json"):
    name, preset, threads, precision, _ = f.stem.rsplit("-", 4)
    runs[(name, preset, int(threads), precision)].append(json.loads(f.read_text()))
med = lambda rows, key: statistics.median(r[key] for r in rows)
rounds = max(len(v) for v in runs.values())
print("### Round three's CPU changes, each against what it replaced\n")
print(f"µs per trained sample (median over {rounds} alternating rounds on one build; lower is better), each "
      "change against the path it replaced, kept behind a switch for this comparison. Made by "
      "`env -u OPENBLAS_CORETYPE scripts/bench-kernels-ab.sh`; raw JSON in `docs/benchmarks/kernels-ab/`.\n")
print("| change | preset | threads | precision | before (µs/sample) | after | after / before |")
print("|---|---|---|---|---|---|---|")
for new, old, label in [("fp32-avx512", "fp32-avx2", "fp32 recurrence: AVX-512 (packed to H = 512) against AVX2"),
                        ("loss-fused", "loss-aten", "softmax cross-entropy: fused against ATen's")]:
    for (name, preset, threads, precision), rows in sorted(runs.items(), key=lambda kv: (kv[0][1], kv[0][2])):
        if name != new:
            continue
        before, after = med(runs[(old, preset, threads, precision)], "us_per_sample"), med(rows, "us_per_sample")
        print(f"| {label} | {preset} | {threads} | {precision} | {before:,.0f} | {after:,.0f} | {after / before:.2f} |")
one, ops = runs[("adam-onepass", "poems", 1, "bf16")], runs[("adam-tensorops", "poems", 1, "bf16")]
if one and ops:
    a = statistics.median(r["phases_ms"]["optimizer"] for r in one)
    b = statistics.median(r["phases_ms"]["optimizer"] for r in ops)
    print(f"| Adam: one pass against the tensor operations (the optimizer's ms a step) | poems | 1 | bf16 | "
          f"{b:.1f} ms | {a:.1f} ms | {a / b:.2f} |")
PY
python3 bench/put_section.py docs/benchmarks.md "$table" kernels-ab scripts/bench-kernels-ab.sh
echo "bench-kernels-ab: wrote the kernels-ab section of docs/benchmarks.md" >&2
