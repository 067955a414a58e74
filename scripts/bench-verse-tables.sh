#!/usr/bin/env bash
# What docs/verse.md ("Where the tables come from", "Validation of the rhyme groups", "Which reading is a
# character's") says of the verse tables: prepares tang-quatrains-7 when missing and writes, to
# docs/benchmarks/verse/tables.json, its manifest's table entries (characters, paragraphs aligned and
# skipped, rhyme groups and their held-out validation), rhymes.json's settings and group names, the
# level/oblique/either counts of the characters the page cites, and the size of the package's tarball. Seconds once the corpus is prepared.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-bench-cli.sh
"$cli" inspect tang-quatrains-7 >/dev/null 2>&1 || "$cli" prepare tang-quatrains-7 >&2
cache=$(python3 -c 'import sys; sys.path.insert(0, "datasets"); from workbench_corpora.manifest import default_cache_dir; print(default_cache_dir())')
out=docs/benchmarks/verse/tables.json
python3 - "$cache/tang-quatrains-7" "$out" <<'PY'
import json, os, sys, datetime
corpus, out = sys.argv[1:3]
manifest = json.load(open(f"{corpus}/manifest.json", encoding="utf-8"))
tones = json.load(open(f"{corpus}/tones.json", encoding="utf-8"))
rhymes = json.load(open(f"{corpus}/rhymes.json", encoding="utf-8"))
cited = "山不干乾幹中三深如看更长思过重为空十白国当教吹调"
doc = {"date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%MZ"), "script": "scripts/bench-verse-tables.sh",
       "corpus_manifest": {k: manifest.get(k) for k in ("name", "source_package", "source_version", "converter",
                                                          "source_poems", "tones", "rhymes", "sources")},
       # The download a new user waits for (README, user guide: "85 MB"), as the registry's tarball.
       "source_tarball_bytes": {s["file"]: os.path.getsize(os.path.join(os.path.dirname(corpus), ".downloads", s["file"]))
                                for s in manifest.get("sources", [])
                                if os.path.exists(os.path.join(os.path.dirname(corpus), ".downloads", s["file"]))},
       "rhymes_settings": {k: v for k, v in rhymes.items() if k != "groups"},
       "rhyme_groups": [g.get("name") for g in rhymes["groups"]],
       "counts_of_cited_characters": {
           "order": tones["counts"],
           "simplified": {c: tones.get("simplified", {}).get(c) for c in cited if c in tones.get("simplified", {})},
           "traditional": {c: tones["traditional"].get(c) for c in cited if c in tones["traditional"]}}}
with open(out, "w", encoding="utf-8") as f:
    json.dump(doc, f, ensure_ascii=False, indent=1)
    f.write("\n")
print(f"raw: {out}")
PY
