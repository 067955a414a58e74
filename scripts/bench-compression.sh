#!/usr/bin/env bash
# Gradients on the wire in fp32 and fp16 (docs/scaling.md, "Compressed gradients"): the default experiment
# (`lstm-workbench-cli train tang-quatrains-7`) for 300 steps in 2 processes of 1 thread, once with each
# --grad-compression, same seed. Prints the bytes each rank all-reduces per step and the largest relative
# difference between the two loss curves (every train and validation loss record), and writes both runs'
# metrics and run.json, with the commands, to docs/benchmarks/compression/default-300.json. About 10 minutes
# here. A quick check of the script itself: STEPS=20 OUT=/tmp/compression.json.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-bench-cli.sh
steps=${STEPS:-300}
out=${OUT:-docs/benchmarks/compression/default-$steps.json}
mkdir -p "$(dirname "$out")"
work=$(mktemp -d /tmp/lstm-workbench-compression.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$cli" inspect tang-quatrains-7 >/dev/null 2>&1 || "$cli" prepare tang-quatrains-7 >&2
flags=(--max-steps "$steps" --nproc 2 --threads 1 --validate-every 50)
for compression in none fp16; do
  "$cli" train tang-quatrains-7 --out "$work/$compression" "${flags[@]}" --grad-compression "$compression" \
    --quiet --json > "$work/$compression.json"
done
python3 - "$out" "$work" "${flags[*]}" <<'PY'
import csv, json, sys, datetime
out, work, flags = sys.argv[1:4]
def losses(run):
    rows = {}
    for r in csv.reader(open(f"{work}/{run}/metrics.csv")):
        if len(r) == 8 and r[6] == "loss":
            rows[f"{r[1]} {r[5]}"] = float(r[7])
    return rows
runs = {c: {"command": f"lstm-workbench-cli train tang-quatrains-7 {flags} --grad-compression {c} --json",
            "run": json.load(open(f"{work}/{c}/run.json")), "losses": losses(c)} for c in ("none", "fp16")}
a, b = runs["none"]["losses"], runs["fp16"]["losses"]
diffs = {k: abs(b[k] - a[k]) / abs(a[k]) for k in a if k in b}
worst = max(diffs, key=diffs.get)
doc = {"date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%MZ"), "script": "scripts/bench-compression.sh",
       "runs": runs, "compared_records": len(diffs), "largest_relative_difference": diffs[worst],
       "largest_at": worst}
with open(out, "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
for c in ("none", "fp16"):
    r = runs[c]["run"]
    print(f'{c}: {r["gradient_bytes_per_step"]} gradient bytes a step, {r["summary"]["us_per_sample"]:.1f} us/sample, '
          f'final train loss {r["summary"]["final_train_loss"]:.4f}, best val loss {r["summary"]["best_val_loss"]:.4f}')
print(f"{len(diffs)} loss records; largest relative difference {diffs[worst]:.2e} (at step/split {worst})")
print(f"raw: {out}")
PY
