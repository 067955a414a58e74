#!/usr/bin/env bash
# fp32 against bf16 on the default experiment itself (tang-quatrains-7, every setting at its default, 2 threads),
# and bf16 with the backward's saved gates folded into bf16 (the default since session 47) against fp32 ones
# (LSTM_WORKBENCH_FOLDED_GATES=off, the default from session 37 to 47),
# the three alternating, ROUNDS rounds of STEPS steps each: each run's `train --json` output (its summary:
# train time without validation; its metrics.csv beside it, for the validation losses) as ROUND-VARIANT.json
# and ROUND-VARIANT-metrics.csv beside this script. Run from the repository root on an idle machine:
#   env -u OPENBLAS_CORETYPE docs/benchmarks/precision-default-zen4/run.sh   (env: CLI, ROUNDS=3, STEPS=616)
set -euo pipefail
here=$(dirname "$0")
cli=${CLI:-build/bin/lstm-workbench-cli}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
lscpu >"$here/lscpu.txt"
run() {  # VARIANT PRECISION [VAR=VALUE]
  local variant=$1 precision=$2 out="$scratch/$round-$1"
  env ${3:-WORKBENCH_NOTHING=} "$cli" train tang-quatrains-7 --threads 2 --precision "$precision" \
    --max-steps "${STEPS:-616}" --out "$out" --quiet --json >"$here/$round-$variant.json"
  cp "$out/metrics.csv" "$here/$round-$variant-metrics.csv"
  python3 - "$here/$round-$variant.json" "$out/metrics.csv" "$round $variant" <<'PY'
import csv, json, sys
s = json.load(open(sys.argv[1]))["summary"]
val = [(int(r[1]), float(r[7])) for r in csv.reader(open(sys.argv[2])) if len(r) >= 8 and r[5] == "val" and r[6] == "bpc"]
print(sys.argv[3], s["steps"], "steps", round(s["us_per_sample"]), "us/sample, val bpc", " ".join(f"{st}:{v:.3f}" for st, v in val))
PY
}
for round in $(seq 1 "${ROUNDS:-3}"); do
  run fp32 fp32
  run bf16 bf16
  run bf16-fp32-gates bf16 LSTM_WORKBENCH_FOLDED_GATES=off
done
