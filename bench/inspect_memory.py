#!/usr/bin/env python3
"""Peak memory of `lstm-workbench-cli inspect` on plain text of three shapes (issue #46): a file of many
paragraphs, one paragraph of many lines (no blank line anywhere), and one single line. Each file is made in a
scratch folder (made-up words, SIZE_MB each), inspected once, and the child's peak resident set read from
getrusage; prints a table and writes the raw numbers as JSON.

Usage: bench/inspect_memory.py CLI OUT_JSON [--size-mb 300] [--scratch /tmp]
"""
import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time


def words(rng, n):
    syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "en", "al", "or", "ve"]
    return [("".join(rng.choice(syllables) for _ in range(rng.randint(1, 4)))) for _ in range(n)]


def make(path, shape, size_mb):
    rng = random.Random(46)
    vocab = words(rng, 5000)
    target = size_mb * 1024 * 1024
    written = 0
    with open(path, "w", encoding="utf-8") as f:
        while written < target:
            line = " ".join(rng.choice(vocab) for _ in range(12))
            if shape == "paragraphs":
                text = line + ("\n\n" if rng.random() < 0.2 else "\n")
            elif shape == "one-paragraph":
                text = line + "\n"
            else:  # one-line
                text = line + " "
            f.write(text)
            written += len(text)
        f.write("\n")


def inspect(cli, path):
    start = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    run = subprocess.run([cli, "inspect", path, "--json"], capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if run.returncode != 0:
        sys.exit(f"inspect {path} failed: {run.stderr.strip()}")
    # ru_maxrss of the children is the largest any child reached: inspect each shape in its own process.
    return {"peak_rss_mib": after / 1024, "earlier_children_peak_mib": before / 1024,
            "seconds": round(time.monotonic() - start, 2), "overview": json.loads(run.stdout)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("out")
    ap.add_argument("--size-mb", type=int, default=300)
    ap.add_argument("--scratch", default=tempfile.gettempdir())
    ap.add_argument("--shape", action="append", choices=["paragraphs", "one-paragraph", "one-line"])
    a = ap.parse_args()
    results = []
    for shape in a.shape or ["paragraphs", "one-paragraph", "one-line"]:
        path = os.path.join(a.scratch, f"inspect-{shape}-{a.size_mb}mb.txt")
        if not os.path.exists(path):
            make(path, shape, a.size_mb)
        # A fresh interpreter per shape, so that ru_maxrss of its children is this shape's alone.
        probe = subprocess.run([sys.executable, __file__, "--probe", a.cli, path], capture_output=True, text=True)
        if probe.returncode != 0:
            sys.exit(probe.stderr)
        r = json.loads(probe.stdout)
        stats = r["overview"].get("stats", r["overview"])
        results.append({"shape": shape, "bytes": os.path.getsize(path), "peak_rss_mib": round(r["peak_rss_mib"], 1),
                        "seconds": r["seconds"], "documents": stats.get("documents")})
        print(f"{shape:14s} {os.path.getsize(path) / 2**20:7.0f} MiB  peak {r['peak_rss_mib']:7.1f} MiB"
              f"  {r['seconds']:6.1f} s  documents {stats.get('documents')}", flush=True)
    with open(a.out, "w") as f:
        json.dump({"command": " ".join(sys.argv), "cli": a.cli, "results": results}, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--probe":
        print(json.dumps(inspect(sys.argv[2], sys.argv[3])))
    else:
        main()
