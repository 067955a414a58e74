#!/usr/bin/env python3
"""Renders scripts/bench-peers.sh's JSON as a Markdown section of docs/benchmarks.md: per preset, thread
count and precision, our µs per trained sample (each build of ours that ran) next to each Python PyTorch peer
at its best setting (OpenBLAS/OpenMP threads x oneDNN on/off), each the median over its rounds, and the ratio
of our first build to the faster peer; plus what the newest peer costs at its defaults (oneDNN on, BLAS and
OpenMP threads unpinned), and which oneDNN implementations each peer's oneDNN ran (`ref` means its slow
reference code).

Usage: write_peers_table.py DIR [HEADING_SUFFIX]   (the suffix tells a second machine's run apart: "on AMD Zen 4")
  files: OURS-P-T-PREC-R.json (OURS: ours, ours215, ...), PEER-P-T-PREC-BLAS-MKLDNN-R.json (PEER: pytorch113,
  pytorch26, pytorch215, ...)
"""
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

PRESETS = ["imdb", "charrnn", "poems"]
# How each side is named in the tables; a name not listed here is shown as it is.
OURS_LABELS = {"ours": "ours, Debian 12 build", "ours215": "ours, PyTorch 2.15 build"}
PEER_LABELS = {"pytorch113": "PyTorch 1.13 (Debian 12)", "pytorch26": "PyTorch 2.6 (Debian 13)",
               "pytorch215": "PyTorch 2.15 (PyPI)",
               "pytorch215ftz": "PyTorch 2.15 (PyPI, subnormals flushed)"}
# A peer whose name ends so runs with a setting that is not PyTorch's default (torch.set_flush_denormal).
FLUSHED = "ftz"
SETTING_LABELS = {("same", "on"): "oneDNN on", ("same", "off"): "oneDNN off",
                  ("default", "on"): "oneDNN on, threads unpinned",
                  ("default", "off"): "oneDNN off, threads unpinned"}


def version_key(version):
    """(major, minor) of a torch version string: '1.13.0a0' -> (1, 13), '2.15.0+cu132' -> (2, 15)."""
    parts = version.split(".")
    return tuple(int("".join(c for c in p if c.isdigit()) or 0) for p in parts[:2])


def load(folder):
    ours = defaultdict(list)   # (name, preset, threads, precision) -> [us]
    peers = defaultdict(list)  # (name, preset, threads, precision, blas, mkldnn) -> [us]
    onednn = defaultdict(set)  # (name, preset, precision) -> {"rnn: impl", ...}
    versions, ours_precision = {}, {}
    for f in sorted(folder.glob("*.json")):
        if f.stat().st_size == 0:
            continue  # a run still writing (a table drawn while the benchmark goes on)
        parts = f.stem.split("-")
        if parts[0].startswith("ours") and len(parts) == 5:
            name, preset, threads, precision, _ = parts
            j = json.loads(f.read_text())
            ours[(name, preset, int(threads), precision)].append(j["us_per_sample"])
            versions[name] = j["libtorch"]
            ours_precision[(name, preset, int(threads), precision)] = j["precision"]
        elif parts[0].startswith("pytorch") and len(parts) == 7:
            name, preset, threads, precision, blas, mkldnn, _ = parts
            j = json.loads(f.read_text())
            peers[(name, preset, int(threads), precision, blas, mkldnn)].append(j["us_per_sample"])
            versions[name] = j["torch"]
            for kind, impls in j.get("onednn_implementations", {}).items():
                onednn[(name, preset, precision)].update(f"{kind}: {impl}" for impl in impls)
        # anything else is another measurement kept beside the peers' (onednn-profile-imdb.json)
    return ours, peers, onednn, versions, ours_precision


def main():
    folder = Path(sys.argv[1])
    ours, peers, onednn, versions, ours_precision = load(folder)
    our_names = sorted({k[0] for k in ours}, key=lambda n: (n != "ours", n))
    peer_names = sorted({k[0] for k in peers}, key=lambda n: (version_key(versions[n]), n.endswith(FLUSHED)))
    if not our_names:
        sys.exit("write_peers_table: no results of ours in " + str(folder))
    # "At its defaults" is the newest peer as installed: not one with subnormals flushed.
    as_installed = [n for n in peer_names if not n.endswith(FLUSHED)] or peer_names
    newest = as_installed[-1] if as_installed else None
    ours_label = lambda n: f"{OURS_LABELS.get(n, n)} (LibTorch {versions.get(n, '?')})"
    peer_label = lambda n: PEER_LABELS.get(n, n)

    def best(name, preset, threads, precision):
        medians = {(b, m): statistics.median(v) for (n, p, t, pr, b, m), v in peers.items()
                   if (n, p, t, pr) == (name, preset, threads, precision)}
        if not medians:
            return None, None
        setting = min(medians, key=medians.get)
        return medians[setting], setting

    def cell(v, setting=None):
        if v is None:
            return "—"
        return f"{v:,.0f}" + (f" ({SETTING_LABELS[setting]})" if setting else "")

    rounds = max((len(v) for v in ours.values()), default=0)
    heading = f"Ours against {', '.join(peer_label(n) for n in peer_names)}"
    # A second machine's run (HEADING_SUFFIX) gets a heading of its own.
    out = [f"### {heading}{' ' + sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else ''}\n"]
    out.append(
        f"µs per trained sample (median over {rounds} round{'s' if rounds != 1 else ''}; lower is better) of one "
        f"training step: {'; '.join(ours_label(n) for n in our_names)}, with the fused CPU LSTM, next to Python "
        f"PyTorch ({', '.join(f'{peer_label(n)}: {versions[n]}' for n in peer_names)}) running the identical "
        "model (`bench/pytorch_peer.py`), each peer at its best setting of threads (OpenMP and BLAS threads "
        "pinned to torch's, or left to their defaults) and oneDNN (on, PyTorch's default, or off). bf16: ours on "
        "its bf16 kernels (on AMX tiles where the CPU has them, as `devices` says; else on AVX512_BF16), the "
        "peers through CPU autocast. The ratio is ours (the first column) over the "
        "faster peer: below 1 ours is faster. \"threads\" is torch's thread count. Made by "
        "`scripts/bench-peers.sh`; raw JSON beside `commands.txt`, which says which parts of the grid each "
        f"command measured, in `{folder.as_posix()}/`.\n")
    header = (["preset", "threads", "precision"] + [OURS_LABELS.get(n, n) for n in our_names] +
              [f"{peer_label(n)} best" for n in peer_names] +
              ([f"{peer_label(newest)} at its defaults"] if newest else []) + ["ours / faster peer"])
    out.append("| " + " | ".join(header) + " |")
    out.append("|" + "---|" * len(header))
    for preset in PRESETS:
        for threads in (1, 2):
            for precision in ("fp32", "bf16"):
                first = (our_names[0], preset, threads, precision)
                if first not in ours:
                    continue
                row = [preset, str(threads)]
                ran = ours_precision.get(first)
                row.append(precision if ran == precision else f"{precision} (ours ran {ran})")
                for n in our_names:
                    v = ours.get((n, preset, threads, precision))
                    row.append(cell(statistics.median(v)) if v else "—")
                bests = [best(n, preset, threads, precision) for n in peer_names]
                row += [cell(v, s) for v, s in bests]
                if newest:
                    d = peers.get((newest, preset, threads, precision, "default", "on"))
                    row.append(cell(statistics.median(d)) if d else "—")
                found = [v for v, _ in bests if v is not None]
                row.append(f"{statistics.median(ours[first]) / min(found):.2f}" if found else "—")
                out.append("| " + " | ".join(row) + " |")
    out.append("")

    # Each at its very best (over threads, precision and, for the peers, the settings).
    out.append("Each at its very best (over threads, precision and settings):\n")
    header = (["preset"] + [f"{OURS_LABELS.get(n, n)} best" for n in our_names] +
              [f"{peer_label(n)} best" for n in peer_names] + ["ours / faster peer"])
    out.append("| " + " | ".join(header) + " |")
    out.append("|" + "---|" * len(header))

    def overall_peer(name, preset):
        found = []
        for threads in (1, 2):
            for precision in ("fp32", "bf16"):
                v, setting = best(name, preset, threads, precision)
                if v is not None:
                    found.append((v, f"x{threads} {precision}, {SETTING_LABELS[setting]}"))
        return min(found) if found else (None, None)

    for preset in PRESETS:
        row, mine = [preset], []
        for n in our_names:
            runs = [(statistics.median(v), f"x{k[2]} {k[3]}") for k, v in ours.items() if k[:2] == (n, preset)]
            mine.append(min(runs) if runs else (None, None))
        if mine[0][0] is None:
            continue
        row += [f"{v:,.0f} ({w})" if v is not None else "—" for v, w in mine]
        theirs = [overall_peer(n, preset) for n in peer_names]
        row += [f"{v:,.0f} ({w})" if v is not None else "—" for v, w in theirs]
        found = [v for v, _ in theirs if v is not None]
        row.append(f"{mine[0][0] / min(found):.2f}" if found else "—")
        out.append("| " + " | ".join(row) + " |")
    out.append("")

    # What oneDNN does for each peer: its best with oneDNN off over its best with it on, where both ran.
    out.append("oneDNN off against on (each at its better thread setting; above 1: off is slower):\n")
    out.append("| preset | threads | precision | " + " | ".join(f"{peer_label(n)} off / on" for n in peer_names)
               + " |")
    out.append("|---|---|---|" + "---|" * len(peer_names))

    def setting_best(name, preset, threads, precision, mkldnn):
        v = [statistics.median(x) for (n, p, t, pr, b, m), x in peers.items()
             if (n, p, t, pr, m) == (name, preset, threads, precision, mkldnn)]
        return min(v) if v else None

    for preset in PRESETS:
        for threads in (1, 2):
            for precision in ("fp32", "bf16"):
                cells = []
                for name in peer_names:
                    on = setting_best(name, preset, threads, precision, "on")
                    off = setting_best(name, preset, threads, precision, "off")
                    cells.append(f"{off / on:.2f}" if on and off else "not measured")
                if any(c != "not measured" for c in cells):
                    out.append(f"| {preset} | {threads} | {precision} | " + " | ".join(cells) + " |")
    out.append("")
    if onednn:
        out.append("The oneDNN implementations each peer ran with oneDNN on (`ONEDNN_VERBOSE`, one step after the "
                   "timed ones). `ref` names oneDNN's reference code, slow for most primitives (a oneDNN built "
                   "without this CPU's kernels); for `rnn` it is also the name of oneDNN's RNN driver, whose "
                   "products are jitted GEMMs, so an `rnn: ref` is judged by the time beside it:\n")
        out.append("| peer | preset | precision | implementations |")
        out.append("|---|---|---|---|")
        for (name, preset, precision), impls in sorted(
                onednn.items(), key=lambda kv: (version_key(versions[kv[0][0]]), PRESETS.index(kv[0][1]), kv[0][2])):
            out.append(f"| {peer_label(name)} | {preset} | {precision} | {', '.join(sorted(impls))} |")
        out.append("")
    load_lines = [line.strip() for p in (folder / "load_before.txt", folder / "load_after.txt") if p.exists()
                  for line in p.read_text().splitlines() if line.strip()]
    if load_lines:
        out.append("Load average (1, 5, 15 min) at the start and end of each command: " +
                   "; ".join(line[line.find("load average:") + 14:] for line in load_lines) + ".\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
