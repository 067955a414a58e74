#!/usr/bin/env python3
"""Reads a Ninja build's .ninja_log and says where a build's time went: seconds per target (the sum of its
steps: compiling, precompiled headers, Qt's moc and rcc, linking) and the slowest steps.

Usage: build_times.py BUILD_DIR [--top N] [--json FILE]

Ninja appends one line per step it ran (start and end in ms since that build started); when a step ran more
than once, the last run counts, so run it after a cold build (scripts/build-times.sh does).
"""
import argparse
import collections
import json
import os
import re


def read_log(build_dir):
    """The last run of each output: {output: seconds}."""
    steps = {}
    with open(os.path.join(build_dir, ".ninja_log")) as log:
        for line in log:
            if line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 4:
                continue
            start, end, output = int(fields[0]), int(fields[1]), fields[3]
            steps[output] = (end - start) / 1000.0
    return steps


def target_of(output):
    """The CMake target an output belongs to, from where CMake puts it."""
    m = re.search(r"CMakeFiles/([^/]+)\.dir/", output)
    if m:
        return m.group(1)
    m = re.search(r"([^/]+)_autogen/", output)
    if m:
        return m.group(1)
    name = os.path.basename(output)
    m = re.match(r"lib(.+)\.(a|so)$", name)
    if m:
        return m.group(1)
    if output.startswith("bin/"):
        return name
    return "(other: " + output.split("/")[0] + ")"


def kind_of(output):
    if output.endswith(".gch") or output.endswith(".pch"):
        return "pch"
    if output.endswith(".o"):
        return "compile"
    if output.endswith(".a") or output.startswith("bin/"):
        return "link"
    return "other"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--json")
    args = parser.parse_args()

    steps = read_log(args.build_dir)
    per_target = collections.defaultdict(lambda: collections.Counter())
    for output, seconds in steps.items():
        per_target[target_of(output)][kind_of(output)] += seconds
    total = sum(steps.values())

    print(f"{len(steps)} steps, {total:.0f} s of compiler time in all (one core's worth)")
    print(f"{'target':<34} {'seconds':>8} {'compile':>8} {'pch':>6} {'link':>6} {'other':>6}")
    for target, kinds in sorted(per_target.items(), key=lambda kv: -sum(kv[1].values())):
        print(f"{target:<34} {sum(kinds.values()):8.1f} {kinds['compile']:8.1f} {kinds['pch']:6.1f} "
              f"{kinds['link']:6.1f} {kinds['other']:6.1f}")
    print(f"\nslowest {args.top} steps:")
    for output, seconds in sorted(steps.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"{seconds:8.1f}  {output}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"total_s": total, "steps": steps,
                       "targets": {t: dict(k) for t, k in per_target.items()}}, out, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
