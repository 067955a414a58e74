#!/usr/bin/env bash
# Generated poems against the verse checker (docs/verse.md, "Generated poems"): trains the default experiment
# (`lstm-workbench-cli train tang-quatrains-7`, the app's first-launch experiment) into a scratch folder,
# timing it against the estimate the app shows at first launch (`sweep --plan`, the same planner); then, from
# its last weights, 100 poems per form and meter at temperature 0.8 (`--rng-seed 1`): how many pass every
# rule, the mean share of checks passed, and the model's bits per character of them (mean and median), and
# the time of 500 quatrains strict and free; and every row under the dominant-reading check (80 % rule) of
# bench/verse_readings.py. Writes everything, with the commands, to docs/benchmarks/verse/generation.json.
# About 16 minutes here; run on an idle machine.
# A quick check of the script itself: TRAIN_FLAGS="--max-steps 20" OUT=/tmp/generation.json.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-bench-cli.sh
out=${OUT:-docs/benchmarks/verse/generation.json}
# shellcheck disable=SC2206  # flags split on spaces on purpose
train_flags=(${TRAIN_FLAGS:-})
mkdir -p "$(dirname "$out")"
work=$(mktemp -d /tmp/lstm-workbench-verse-generation.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$cli" inspect tang-quatrains-7 >/dev/null 2>&1 || "$cli" prepare tang-quatrains-7 >&2

estimate=$("$cli" sweep tang-quatrains-7 --out "$work/plan" --grid seed=42 "${train_flags[@]}" --plan --json |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["estimated_seconds"])')
start=$(date +%s.%N)
"$cli" train tang-quatrains-7 --out "$work/run" "${train_flags[@]}" --quiet --json > "$work/train.json"
trained=$(python3 -c "import time; print(round(time.time() - $start, 1))")
echo "default experiment: estimated $estimate s, trained in $trained s" >&2

for form in quatrain7 regulated7 quatrain5; do
  for meter in free strict; do
    "$cli" generate "$work/run" --form "$form" --meter "$meter" --samples 100 --temperature 0.8 --rng-seed 1 \
      --json > "$work/$form-$meter.json"
  done
done
: > "$work/timings.txt"
for meter in strict free; do
  start=$(date +%s.%N)
  "$cli" generate "$work/run" --form quatrain7 --meter "$meter" --samples 500 --temperature 0.8 --rng-seed 1 \
    --json > /dev/null
  seconds=$(python3 -c "import time; print(round(time.time() - $start, 2))")
  start=$(date +%s.%N)
  "$cli" generate "$work/run" --form quatrain7 --meter "$meter" --samples 1 --temperature 0.8 --rng-seed 1 \
    --json > /dev/null
  one=$(python3 -c "import time; print(round(time.time() - $start, 2))")
  echo "$meter $seconds $one" >> "$work/timings.txt"
done
tones="$(python3 -c 'import sys; sys.path.insert(0, "datasets"); from workbench_corpora.manifest import default_cache_dir; print(default_cache_dir())')/tang-quatrains-7/tones.json"
python3 - "$out" "$estimate" "$trained" "$work" "$tones" <<'PY'
import json, statistics, subprocess, sys, datetime
out, estimate, trained, work, tones = sys.argv[1:6]
train = json.load(open(f"{work}/train.json"))
summary, rows = [], []
for form in ("quatrain7", "regulated7", "quatrain5"):
    for meter in ("free", "strict"):
        o = json.load(open(f"{work}/{form}-{meter}.json"))
        bits = [s["bits_per_token"] for s in o["scores"]]
        scores = [v["score"] for v in o["verse"]]
        summary.append({"form": form, "meter": meter, "passed": o["verse_passed"], "poems": len(o["verse"]),
                        "mean_share_of_checks": round(statistics.mean(scores), 3),
                        "bits_mean": round(statistics.mean(bits), 3), "bits_median": round(statistics.median(bits), 3)})
        # The poems and each one's verdict and score; the per-rule detail stays out (it is what the checker
        # recomputes from the text).
        poems = [{"text": t, "passed": v["passed"], "score": v["score"], "summary": v["summary"],
                  "bits_per_token": s["bits_per_token"]}
                 for t, v, s in zip(o["samples"], o["verse"], o["scores"])]
        rows.append({"form": form, "meter": meter,
                     "command": f"lstm-workbench-cli generate RUN --form {form} --meter {meter} --samples 100 "
                                "--temperature 0.8 --rng-seed 1 --json", "poems": poems})
timings = []
for line in open(f"{work}/timings.txt"):
    meter, seconds, one = line.split()
    timings.append({"meter": meter, "poems": 500, "seconds": float(seconds), "one_poem_seconds": float(one)})
doc = {"date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%MZ"), "script": "scripts/bench-verse-generation.sh",
       "train": {"command": "lstm-workbench-cli train tang-quatrains-7 --json", "estimated_seconds": round(float(estimate), 1),
                 "wall_seconds": float(trained), "output": train},
       "summary": summary, "timings": timings, "rows": rows}
with open(out, "w") as f:
    json.dump(doc, f, indent=1, ensure_ascii=False)
    f.write("\n")
doc["readings"] = {"command": "python3 bench/verse_readings.py CACHE/tang-quatrains-7/tones.json check OUT",
                   "rows": json.loads(subprocess.check_output(["python3", "bench/verse_readings.py", tones,
                                                               "check", out]))}
with open(out, "w") as f:
    json.dump(doc, f, indent=1, ensure_ascii=False)
    f.write("\n")
bpc = train["summary"].get("best_val_bpc")
print(f"default experiment: estimate {float(estimate):.0f} s, trained in {float(trained):.0f} s; "
      f"best val {bpc} bits per character")
print("| form | meter | pass every rule | mean share of checks | bits per character (mean / median) |")
print("| --- | --- | ---: | ---: | ---: |")
for s in summary:
    print(f'| {s["form"]} | {s["meter"]} | {s["passed"]} / {s["poems"]} | {s["mean_share_of_checks"]:.3f} | '
          f'{s["bits_mean"]:.2f} / {s["bits_median"]:.2f} |')
print("| poems | 80 % of level+oblique marks: pass, ambiguous | 80 % of all marks: pass, ambiguous |")
print("| --- | ---: | ---: |")
for r in doc["readings"]["rows"]:
    a, b = r["80_percent_of_level+oblique_marks"], r["80_percent_of_all_marks"]
    print(f'| {r["poems_of"]} | {a["passed"]} / {a["poems"]}, {100 * a["ambiguous_share"]:.1f}% | '
          f'{b["passed"]} / {b["poems"]}, {100 * b["ambiguous_share"]:.1f}% |')
for t in timings:
    print(f'500 quatrains {t["meter"]}: {t["seconds"]} s (one poem\'s run: {t["one_poem_seconds"]} s)')
print(f"raw: {out}")
PY
