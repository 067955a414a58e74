#!/usr/bin/env python3
"""Renders scripts/bench-binaries-ab.sh's JSON (SIDE-PRESET-THREADS-PRECISION-ROUND.json, SIDE old or new) as a
Markdown table: per preset, threads and precision, the median µs per sample of each side over the rounds and
new / old.
Usage: write_ab_table.py OUT_DIR"""
import glob
import json
import os
import re
import statistics
import sys


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    runs = {}
    for path in glob.glob(os.path.join(sys.argv[1], "*.json")):
        m = re.match(r"(old|new)-(\w+)-(\d+)-(fp32|bf16)-(\d+)\.json$", os.path.basename(path))
        if not m:
            continue
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
        result = value[0] if isinstance(value, list) else value
        runs.setdefault((m.group(2), int(m.group(3)), m.group(4), m.group(1)), []).append(result["us_per_sample"])
    if not runs:
        print("write_ab_table: no results", file=sys.stderr)
        return 1
    order = {"imdb": 0, "charrnn": 1, "poems": 2}
    cases = sorted({k[:3] for k in runs}, key=lambda c: (order.get(c[0], 9), c[1], c[2]))
    rounds = max(len(v) for v in runs.values())
    print(f"µs per training sample, median of {rounds} round(s); the two sides (builds, or one build with a switch) alternate within a round.\n")
    print("| preset | threads | precision | old | new | new / old |")
    print("| --- | --- | --- | --- | --- | --- |")
    for case in cases:
        old, new = (statistics.median(runs.get(case + (side,), [float("nan")])) for side in ("old", "new"))
        print(f"| {case[0]} | {case[1]} | {case[2]} | {old:.1f} | {new:.1f} | {new / old:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
