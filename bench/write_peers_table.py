#!/usr/bin/env python3
"""Renders scripts/bench-peers.sh's JSON as the Markdown section of docs/benchmarks.md: per preset, thread
count and precision, our µs per trained sample next to PyTorch 1.13's and PyTorch 2.6's at their best
setting (OpenBLAS threads x oneDNN on/off), each the median over its rounds, and the ratio to the faster
peer; plus what PyTorch 2.6 costs at its defaults (oneDNN on, OpenBLAS at its own thread count).

Usage: write_peers_table.py DIR   (files: ours-P-T-PREC-R.json, pytorch113|pytorch26-P-T-PREC-BLAS-MKLDNN-R.json)
"""
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

PRESETS = ["imdb", "charrnn", "poems"]


def main():
    folder = Path(sys.argv[1])
    ours = defaultdict(list)   # (preset, threads, precision) -> [us]
    peers = defaultdict(list)  # (name, preset, threads, precision, blas, mkldnn) -> [us]
    versions = {}
    ours_precision = {}
    for f in sorted(folder.glob("*.json")):
        if f.stat().st_size == 0:
            continue  # a run still writing (a table drawn while the benchmark goes on)
        parts = f.stem.split("-")
        if parts[0] != "ours" and not parts[0].startswith("pytorch"):
            continue  # another measurement kept beside the peers' (onednn-profile-imdb.json)
        j = json.loads(f.read_text())
        if parts[0] == "ours":
            _, preset, threads, precision, _ = parts
            ours[(preset, int(threads), precision)].append(j["us_per_sample"])
            versions["ours"] = j["libtorch"]
            ours_precision[(preset, int(threads), precision)] = j["precision"]
        else:
            name, preset, threads, precision, blas, mkldnn, _ = parts
            peers[(name, preset, int(threads), precision, blas, mkldnn)].append(j["us_per_sample"])
            versions[name] = j["torch"]

    def best(name, preset, threads, precision):
        medians = {(b, m): statistics.median(v) for (n, p, t, pr, b, m), v in peers.items()
                   if (n, p, t, pr) == (name, preset, threads, precision)}
        if not medians:
            return None, None
        setting = min(medians, key=medians.get)
        return medians[setting], setting

    rounds = max((len(v) for v in ours.values()), default=0)
    out = []
    out.append("### Ours against PyTorch 1.13 and PyTorch 2.6\n")
    out.append(
        f"µs per trained sample (median over {rounds} round{'s' if rounds != 1 else ''}; lower is better) of one "
        "training step: ours "
        f"(LibTorch {versions.get('ours', '?')}, the Debian 12 build, fused CPU LSTM) next to Python PyTorch "
        f"{versions.get('pytorch113', '?')} (Debian 12) and {versions.get('pytorch26', '?')} (Debian 13, in "
        "`scripts/debian13.sh`'s root) running the identical model (`bench/pytorch_peer.py`), each at its best "
        "setting of OpenBLAS threads (as torch's, or OpenBLAS's default) and oneDNN (on, PyTorch's default, or "
        "off). bf16: ours on its AVX512_BF16 kernels, the peers through CPU autocast. The ratio is ours over "
        "the faster peer: below 1 ours is faster. \"threads\" is torch's thread count; with \"BLAS default\" "
        "OpenBLAS uses one thread per core beside it. Made by `sudo scripts/bench-peers.sh`; raw JSON in "
        "`docs/benchmarks/peers/`, and `commands.txt` there says which parts of the grid each command measured.\n")
    out.append("| preset | threads | precision | ours | PyTorch 1.13 best | PyTorch 2.6 best | "
               "PyTorch 2.6 at its defaults | ours / faster peer |")
    out.append("|---|---|---|---|---|---|---|---|")
    label = {("same", "on"): "oneDNN on", ("same", "off"): "oneDNN off",
             ("default", "on"): "oneDNN on, BLAS default", ("default", "off"): "oneDNN off, BLAS default"}
    for preset in PRESETS:
        for threads in (1, 2):
            for precision in ("fp32", "bf16"):
                key = (preset, threads, precision)
                if key not in ours:
                    continue
                us = statistics.median(ours[key])
                old, old_set = best("pytorch113", preset, threads, precision)
                new, new_set = best("pytorch26", preset, threads, precision)
                defaults = peers.get(("pytorch26", preset, threads, precision, "default", "on"))
                faster = min(x for x in (old, new) if x is not None) if (old or new) else None
                shown = precision if ours_precision.get(key) == precision else \
                    f"{precision} (ours ran {ours_precision.get(key)})"
                cell = lambda v, s: "—" if v is None else f"{v:,.0f} ({label[s]})"
                out.append(
                    f"| {preset} | {threads} | {shown} | {us:,.0f} | {cell(old, old_set)} | {cell(new, new_set)} | "
                    f"{'—' if not defaults else f'{statistics.median(defaults):,.0f}'} | "
                    f"{'—' if faster is None else f'{us / faster:.2f}'} |")
    out.append("")
    # Each at its best over everything it was given (threads, precision and, for the peers, the settings).
    out.append("Each at its very best (over threads, precision and settings):\n")
    out.append("| preset | ours best | PyTorch 1.13 best | PyTorch 2.6 best | ours / faster peer |")
    out.append("|---|---|---|---|---|")

    def overall(name, preset):
        found = []
        for threads in (1, 2):
            for precision in ("fp32", "bf16"):
                v, setting = best(name, preset, threads, precision)
                if v is not None:
                    found.append((v, f"x{threads} {precision}, {label[setting]}"))
        return min(found) if found else (None, None)

    for preset in PRESETS:
        mine = [(statistics.median(v), f"x{k[1]} {k[2]}") for k, v in ours.items() if k[0] == preset]
        if not mine:
            continue
        us, where = min(mine)
        old, old_where = overall("pytorch113", preset)
        new, new_where = overall("pytorch26", preset)
        faster = min(x for x in (old, new) if x is not None) if (old or new) else None
        cell = lambda v, w: "—" if v is None else f"{v:,.0f} ({w})"
        out.append(f"| {preset} | {us:,.0f} ({where}) | {cell(old, old_where)} | {cell(new, new_where)} | "
                   f"{'—' if faster is None else f'{us / faster:.2f}'} |")
    out.append("")
    # What oneDNN does for each peer: its best with oneDNN off over its best with it on, where both ran.
    out.append("oneDNN off against on (each at its better OpenBLAS setting; above 1: off is slower):\n")
    out.append("| preset | threads | precision | PyTorch 1.13 off / on | PyTorch 2.6 off / on |")
    out.append("|---|---|---|---|---|")

    def setting_best(name, preset, threads, precision, mkldnn):
        v = [statistics.median(x) for (n, p, t, pr, b, m), x in peers.items()
             if (n, p, t, pr, m) == (name, preset, threads, precision, mkldnn)]
        return min(v) if v else None

    for preset in PRESETS:
        for threads in (1, 2):
            for precision in ("fp32", "bf16"):
                cells = []
                for name in ("pytorch113", "pytorch26"):
                    on = setting_best(name, preset, threads, precision, "on")
                    off = setting_best(name, preset, threads, precision, "off")
                    cells.append(f"{off / on:.2f}" if on and off else "not measured")
                if cells != ["not measured"] * 2:
                    out.append(f"| {preset} | {threads} | {precision} | {cells[0]} | {cells[1]} |")
    out.append("")
    load = [line.strip() for p in (folder / "load_before.txt", folder / "load_after.txt") if p.exists()
            for line in p.read_text().splitlines() if line.strip()]
    if load:
        out.append("Load average (1, 5, 15 min) at the start and end of each command: " +
                   "; ".join(line[line.find("load average:") + 14:] for line in load) + ".\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
