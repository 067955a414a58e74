#!/usr/bin/env python3
"""Renders scripts/gpu-bench.sh's JSON (ours-PRESET-PRECISION-ROUND.json from `lstm-workbench-cli bench`,
peer-...json from bench/pytorch_peer.py) as the Markdown table docs/benchmarks.md's GPU section holds:
per preset and precision the median over rounds of each side's median µs/sample, and their ratio.
Usage: write_gpu_table.py OUT_DIR"""
import glob
import json
import os
import re
import statistics
import sys


def load(out, side):
    runs = {}
    for path in sorted(glob.glob(os.path.join(out, f"{side}-*.json"))):
        m = re.match(rf"{side}-(\w+)-(fp32|bf16|fp16)-(\d+)\.json$", os.path.basename(path))
        if not m:
            continue
        try:
            with open(path, encoding="utf-8") as f:
                result = json.load(f)
            runs.setdefault((m.group(1), m.group(2)), []).append(result)
        except (OSError, ValueError) as e:
            print(f"write_gpu_table: skipping {path}: {e}", file=sys.stderr)
    return runs


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    ours, peer = load(out, "ours"), load(out, "peer")
    if not ours:
        print(f"write_gpu_table: no ours-*.json in {out}", file=sys.stderr)
        return 1
    first = next(iter(ours.values()))[0]
    versions = {}
    try:
        with open(os.path.join(out, "versions.json"), encoding="utf-8") as f:
            versions = json.load(f)
    except (OSError, ValueError):
        pass
    print(f"Device: {first.get('device_name', first.get('device'))}; LibTorch (C++) {first.get('libtorch')}; "
          f"Python PyTorch {versions.get('torch', '?')}, CUDA {versions.get('cuda', '?')}, "
          f"cuDNN {versions.get('cudnn', '?')}; {len(next(iter(ours.values())))} round(s), "
          f"{first.get('steps')} timed steps each, ours and PyTorch alternately.\n")
    print("| preset | precision | batch | ours µs/sample | PyTorch µs/sample | ours / PyTorch | ours GFLOP/s | "
          "peak GFLOP/s (measured) | ours % of peak |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    order = {"imdb": 0, "charrnn": 1, "poems": 2, "fp32": 0, "bf16": 1, "fp16": 2}
    for key in sorted(ours, key=lambda k: (order.get(k[0], 9), order.get(k[1], 9))):
        o = ours[key]
        us = statistics.median(r["us_per_sample"] for r in o)
        gf = statistics.median(r["gflops"] for r in o)
        peak = statistics.median(r["peak_gflops"] for r in o)
        p = peer.get(key)
        pus = statistics.median(r["us_per_sample"] for r in p) if p else None
        ratio = f"{us / pus:.2f}x" if pus else "–"
        pcell = f"{pus:.1f}" if pus else "–"
        print(f"| {key[0]} | {key[1]} | {o[0]['batch_size']} | {us:.1f} | {pcell} | {ratio} | {gf:.1f} | "
              f"{peak:.1f} | {100 * gf / peak if peak else 0:.1f} % |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
