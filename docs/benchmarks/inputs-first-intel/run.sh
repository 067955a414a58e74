#!/usr/bin/env bash
# The input projections of all steps first (FusedLstm.cpp, inputsFirst: where the packed weights outgrow L2)
# against both terms in every step (LSTM_WORKBENCH_INPUTS_FIRST=off), poems at 1 and 2 threads in fp32 and
# bf16, alternately in the same rounds on the same build. Run from the repository root on an idle machine:
#   env -u OPENBLAS_CORETYPE docs/benchmarks/inputs-first-intel/run.sh
set -euo pipefail
out=${OUT:-docs/benchmarks/inputs-first-intel}  # OUT: another folder, for a later build
mkdir -p "$out"
cli=build/bin/lstm-workbench-cli
lscpu >"$out/lscpu.txt"
for round in 1 2 3; do
  for precision in bf16 fp32; do
    for threads in 2 1; do
      for side in $( ((round % 2)) && echo "on off" || echo "off on"); do
        LSTM_WORKBENCH_INPUTS_FIRST=$side "$cli" bench --preset poems --device "cpu:$threads" \
          --precision $precision --steps 6 --json >"$out/$side-poems-$threads-$precision-$round.json"
      done
    done
  done
done
python3 - "$out" <<'PY'
import json, statistics, sys
from collections import defaultdict
from pathlib import Path
runs = defaultdict(list)
for f in Path(sys.argv[1]).glob("*.json"):
    side, preset, threads, precision, _ = f.stem.split("-")
    runs[(preset, int(threads), precision, side)].append(json.loads(f.read_text())["us_per_sample"])
print("| preset | threads | precision | both terms every step (µs/sample) | inputs first | first / every step |")
print("|---|---:|---|---:|---:|---:|")
for (p, t, pr, side) in sorted(k for k in runs if k[3] == "off"):
    off, on = (statistics.median(runs[(p, t, pr, s)]) for s in ("off", "on"))
    print(f"| {p} | {t} | {pr} | {off:,.0f} | {on:,.0f} | {on / off:.2f}x |")
PY
