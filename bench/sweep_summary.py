#!/usr/bin/env python3
"""Renders a sweep folder's results.csv (lstm-workbench-cli sweep) as Markdown: the cell rows as a table,
and, when data_fraction is an axis, the least-squares slope of log(training seconds) against
log(training samples) per value of the other axes: how training cost grows with data (1 = linear).

Usage: bench/sweep_summary.py SWEEP_DIR [--columns samples_per_s,us_per_sample,...]
"""
import argparse
import csv
import json
import math
import os
from collections import defaultdict


def slope(xs, ys):
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    sxx = sum((a - mx) ** 2 for a in lx)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sxx if sxx > 0 else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sweep_dir")
    ap.add_argument("--columns", default="samples_per_s,us_per_sample,train_seconds,best_val_loss,peak_rss_mb")
    a = ap.parse_args()
    with open(os.path.join(a.sweep_dir, "sweep.json")) as f:
        axes = [x["field"] for x in json.load(f)["axes"]]
    with open(os.path.join(a.sweep_dir, "results.csv")) as f:
        rows = [r for r in csv.DictReader(f) if r["kind"] == "cell" and r["status"] == "done"]
    columns = a.columns.split(",")
    print("| " + " | ".join(axes + columns + ["runs"]) + " |")
    print("|" + "---|" * (len(axes) + len(columns) + 1))
    for r in rows:
        cells = [r[x] for x in axes]
        for c in columns:
            value, std = r.get(c) or "", r.get(c + "_std") or ""
            cells.append(value + (" ± " + std if std not in ("", "0") else ""))
        print("| " + " | ".join(cells + [r["runs"]]) + " |")
    if "data_fraction" in axes:
        groups = defaultdict(list)
        for r in rows:
            key = tuple((x, r[x]) for x in axes if x != "data_fraction")
            groups[key].append((float(r["samples"]), float(r["train_seconds"])))
        print()
        for key, points in groups.items():
            points.sort()
            name = ", ".join("%s=%s" % kv for kv in key) or "all cells"
            print("- %s: log-log slope of training seconds against samples trained = %.2f (%d points)" %
                  (name, slope([p[0] for p in points], [p[1] for p in points]), len(points)))


if __name__ == "__main__":
    main()
