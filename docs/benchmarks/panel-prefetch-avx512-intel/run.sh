#!/usr/bin/env bash
# The AVX-512 packed kernel's prefetch of the next pair of panels (on) against none (off), alternating which
# goes first, ROUNDS rounds, fp32, on an idle machine. Run from the repository root:
#   env -u OPENBLAS_CORETYPE docs/benchmarks/panel-prefetch-avx512-intel/run.sh
set -euo pipefail
out=docs/benchmarks/panel-prefetch-avx512-intel
cli=build/bin/lstm-workbench-cli
rounds=${ROUNDS:-4}
lscpu >"$out/lscpu.txt"
uptime >"$out/load_before.txt"
for round in $(seq 1 "$rounds"); do
  for spec in poems:1:8 poems:2:8 charrnn:1:20 charrnn:2:20 imdb:1:20 imdb:2:20; do
    IFS=: read -r preset threads steps <<<"$spec"
    for side in $([ $((round % 2)) = 1 ] && echo "on off" || echo "off on"); do
      LSTM_WORKBENCH_PANEL_PREFETCH=$side "$cli" bench --preset "$preset" --device "cpu:$threads" \
        --precision fp32 --steps "$steps" --json >"$out/$side-$preset-$threads-$round.json"
    done
  done
done
uptime >"$out/load_after.txt"
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import glob, json, statistics, sys
out = sys.argv[1]
for spec in ("poems-1", "poems-2", "charrnn-1", "charrnn-2", "imdb-1", "imdb-2"):
    med = {}
    for side in ("on", "off"):
        v = [json.load(open(p))["us_per_sample"] for p in sorted(glob.glob(f"{out}/{side}-{spec}-*.json"))]
        med[side] = statistics.median(v)
        print(f"{spec} {side}: {', '.join(f'{x:,.0f}' for x in v)} (median {med[side]:,.0f})")
    print(f"{spec}: on/off {med['on'] / med['off']:.3f}")
PY
