#!/usr/bin/env python3
"""The verdicts of performance round three (#49), computed from scripts/bench-peers.sh's JSON: ours (the
Debian 12 build) against PyTorch 1.13, 2.6 and 2.15 measured in the same run, each number the median over its
rounds.

- ours at its best setting ≤ 0.5x the time of each peer's best setting, per preset;
- ours wins every equal-setting cell (same threads, same precision) against every peer at its best there;
- ours at 2 threads ≥ 1.7x the throughput of ours at 1 thread, per preset and precision;
- ours at 2 threads reaches ≥ 70 % of the floor in fp32 and bf16. The floor is the fastest matrix-product rate
  our bench measured in the round at that thread count and precision (`peak_gflops` in its JSON; every run
  measures it): a neighbour's load can only lower a measured rate, and a run's own measurement, taken on a
  busy moment, made the share of that run look higher than it was.

And #62's line for every cell (preset, threads, precision): ours ≥ 85 % of that floor, or ≤ 0.5x PyTorch 2.15's
best setting at the same thread count and precision.

Usage: round_three_targets.py DIR [SECTION]   (prints a Markdown section; SECTION: the heading of DIR's peers
table, default the main run's)
"""
import json
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path

PRESETS = ["imdb", "charrnn", "poems"]
PEER_LABELS = {"pytorch113": "PyTorch 1.13", "pytorch26": "PyTorch 2.6", "pytorch215": "PyTorch 2.15"}
PEERS_SECTION = "Ours against PyTorch 1.13 (Debian 12), PyTorch 2.6 (Debian 13), PyTorch 2.15 (PyPI)"
# The AMD generations machines of this kind have come with (lscpu's CPU family and model), and what decides the
# floor: whether they have AVX-512, and how wide its units are. Family 25 is Zen 3 (models 0-15) and Zen 4
# (models 16 and up: 17 is Genoa); family 26 is Zen 5.
def generation_of(family, model):
    if family == "25":
        if model.isdigit() and int(model) < 16:
            return ("AMD Zen 3", "which has no AVX-512: every product runs on 256-bit AVX2 units")
        return ("AMD Zen 4", "whose AVX-512 instructions run on 256-bit units in two halves: half the products "
                             "per cycle of Zen 5, with the same memory to feed them")
    if family == "26":
        return ("AMD Zen 5", "whose AVX-512 units are full width")
    if family == "6":  # Intel's Core and Xeon: the model alone, as a virtual machine may report another
        return (f"an Intel CPU (family 6 model {model})", "")
    return ("", "")

def main():
    folder = Path(sys.argv[1])
    section = sys.argv[2] if len(sys.argv) > 2 else PEERS_SECTION
    ours = defaultdict(list)    # (preset, threads, precision) -> [json]
    peers = defaultdict(list)   # (peer, preset, threads, precision, blas, mkldnn) -> [us]
    for f in sorted(folder.glob("*.json")):
        parts = f.stem.split("-")
        if f.stat().st_size == 0:
            continue
        if parts[0] == "ours" and len(parts) == 5:
            ours[(parts[1], int(parts[2]), parts[3])].append(json.loads(f.read_text()))
        elif parts[0].startswith("pytorch") and len(parts) == 7:
            # A peer with subnormals flushed (pytorch215ftz) is one more setting of the same PyTorch.
            name, flushed = (parts[0][:-3], "+ftz") if parts[0].endswith("ftz") else (parts[0], "")
            peers[(name, parts[1], int(parts[2]), parts[3], parts[4], parts[5] + flushed)].append(
                json.loads(f.read_text())["us_per_sample"])
    ours_us = {k: statistics.median(j["us_per_sample"] for j in v) for k, v in ours.items()}
    fastest = defaultdict(float)  # (threads, precision) -> the round's highest measured product rate
    for (_, threads, precision), v in ours.items():
        for j in v:
            fastest[(threads, precision)] = max(fastest[(threads, precision)], j["peak_gflops"])
    ours_floor = {k: 100 * statistics.median(j["gflops"] for j in v) / fastest[(k[1], k[2])]
                  for k, v in ours.items()}
    peer_us = {k: statistics.median(v) for k, v in peers.items()}
    names = sorted({k[0] for k in peer_us}, key=lambda n: list(PEER_LABELS).index(n) if n in PEER_LABELS else 9)
    rounds = max((len(v) for v in ours.values()), default=0)

    def peer_best(name, preset, threads=None, precision=None, pinned=False):
        cands = {k: v for k, v in peer_us.items() if k[0] == name and k[1] == preset and
                 (threads is None or k[2] == threads) and (precision is None or k[3] == precision) and
                 (not pinned or k[4] == "same")}
        if not cands:
            return None, None
        k = min(cands, key=cands.get)
        return cands[k], k

    def setting(k):
        return (f"x{k[2]} {k[3]}, oneDNN {k[5].removesuffix('+ftz')}" +
                (", threads unpinned" if k[4] == "default" else "") +
                (", subnormals flushed" if k[5].endswith("+ftz") else ""))

    rows = []
    for preset in PRESETS:
        mine = {k: v for k, v in ours_us.items() if k[0] == preset}
        if not mine:
            continue
        best_k = min(mine, key=mine.get)
        for name in names:
            theirs, k = peer_best(name, preset)
            if theirs is None:
                continue
            ratio = mine[best_k] / theirs
            # What half their time asks of ours: the share of the floor (the measured product rate at our best
            # setting) a step that fast would need. Above 100 % it is faster than the products can run.
            floor_us = mine[best_k] * ours_floor[best_k] / 100
            needs = floor_us / (0.5 * theirs) * 100
            rows.append((f"ours best ≤ 0.5x {PEER_LABELS.get(name, name)}'s best, {preset}",
                         f"{ratio:.2f}x (ours {mine[best_k]:,.0f} µs, x{best_k[1]} {best_k[2]}; theirs {theirs:,.0f}, "
                         f"{setting(k)}); 0.5x needs {needs:.0f} % of our x{best_k[1]} {best_k[2]} floor",
                         ratio <= 0.5))
    # An equal setting is the same thread count with the peer's OpenMP and BLAS threads pinned to it: a peer
    # whose threads are left unpinned runs OpenBLAS on every core beside its one torch thread, which is not a
    # one-thread run. Those cells are counted on their own line.
    for pinned in (True, False):
        cells, lost = 0, []
        for (preset, threads, precision), us in sorted(ours_us.items()):
            for name in names:
                theirs, k = peer_best(name, preset, threads, precision, pinned)
                if theirs is None:
                    continue
                cells += 1
                if us >= theirs:
                    lost.append(f"{preset} x{threads} {precision} against {PEER_LABELS.get(name, name)} "
                                f"({us / theirs:.2f}x{'' if pinned else ', ' + setting(k)})")
        target = ("ours wins every equal-setting cell against every peer (the peer's threads pinned to the "
                  "same count)" if pinned else
                  "the same, against each peer's best at that torch thread count, pinned or not")
        rows.append((target, f"{cells - len(lost)} of {cells}" + (f"; lost: {'; '.join(lost)}" if lost else ""),
                     not lost))
    for preset in PRESETS:
        for precision in ("fp32", "bf16"):
            one, two = ours_us.get((preset, 1, precision)), ours_us.get((preset, 2, precision))
            if one and two:
                rows.append((f"ours x2 ≥ 1.7x ours x1, {preset} {precision}", f"{one / two:.2f}x", one / two >= 1.7))
    for preset in PRESETS:
        for precision in ("fp32", "bf16"):
            share = ours_floor.get((preset, 2, precision))
            if share is not None:
                rows.append((f"ours x2 ≥ 70 % of the floor, {preset} {precision}", f"{share:.0f} %", share >= 70))
    # #62, per cell: at every thread count and precision, ours near the machine's floor or far ahead of
    # PyTorch 2.15 at its best setting at that thread count (oneDNN on or off, its threads pinned or not).
    def order(item):  # preset, then threads, fp32 before bf16
        (preset, threads, precision), _ = item
        return PRESETS.index(preset), threads, precision != "fp32"
    for (preset, threads, precision), us in sorted(ours_us.items(), key=order):
        share = ours_floor[(preset, threads, precision)]
        theirs, k = peer_best("pytorch215", preset, threads, precision)
        against = f"; {us / theirs:.2f}x PyTorch 2.15's best ({theirs:,.0f} µs, {setting(k)})" if theirs else ""
        rows.append((f"ours ≥ 85 % of the floor or ≤ 0.5x PyTorch 2.15's best, {preset} x{threads} {precision}",
                     f"{math.floor(share)} % (ours {us:,.0f} µs){against}",  # 84.6 % is not 85
                     share >= 85 or (theirs is not None and us / theirs <= 0.5)))
    cpu = {}
    lscpu = folder / "lscpu.txt"
    if lscpu.exists():
        for line in lscpu.read_text().splitlines():
            key, _, value = line.partition(":")
            cpu[key.strip()] = value.strip()
    flags = set(cpu.get("Flags", "").split())
    generation, why = generation_of(cpu.get("CPU family", ""), cpu.get("Model", ""))
    wide = [f for f in ("avx512f", "avx512_bf16", "avx512_vnni", "amx_bf16") if f in flags] or ["no AVX-512"]
    print(f"## Performance round three (#49), at a glance{': ' + generation if generation else ''}\n")
    if cpu:
        print(f"Machine: {cpu.get('Model name', '?')}, CPU family {cpu.get('CPU family', '?')} model "
              f"{cpu.get('Model', '?')}, {cpu.get('CPU(s)', '?')} CPUs; "
              f"{', '.join(wide)} "
              f"(`lscpu.txt` beside the JSON)." + (f" Family {cpu['CPU family']} is {generation}, {why}." if why
                                                     else "") + "\n")
    print(f"Computed by `bench/round_three_targets.py` from `{folder}/` (`scripts/bench-peers.sh`, "
          f"medians of {rounds} alternating rounds; the peers' tables are in \"{section}\" below). The floor is "
          f"the fastest matrix-product rate our bench measured in the round at the same thread count and "
          f"precision (docs/performance.md, \"The floor\"). The last rows are #62's: every cell near that floor or "
          f"far ahead of PyTorch 2.15.\n")
    print("| target | measured | met? |")
    print("| --- | --- | --- |")
    for target, measured, ok in rows:
        print(f"| {target} | {measured} | {'yes' if ok else 'no'} |")
    print()


if __name__ == "__main__":
    main()
