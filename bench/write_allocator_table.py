#!/usr/bin/env python3
"""Renders scripts/bench-peer-allocator.sh's JSON as a Markdown section of docs/benchmarks.md: each peer's µs
per trained sample with glibc's allocator tuned (as our programs tune theirs) and at glibc's default, the
ratio, and what the default costs in page faults and kernel time a step; ours beside them; the 2.6 peer
without /proc; the machine's page-fault cost and CPU.

Usage: write_allocator_table.py DIR   (files: SIDE-PRESET-THREADS-PRECISION-ALLOCATOR-ROUND.json, lscpu.txt)
"""
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

LABELS = {"ours": "ours", "pytorch113": "PyTorch 1.13 (Debian 12)", "pytorch26": "PyTorch 2.6 (Debian 13)",
          "pytorch26-noproc": "PyTorch 2.6, root without /proc", "pytorch215": "PyTorch 2.15 (PyPI)"}
ORDER = ["ours", "pytorch113", "pytorch26", "pytorch26-noproc", "pytorch215"]
# µs per sample of PyTorch 2.6 on imdb measured on another machine of this kind with the peer script of that
# day (which did not tune the allocator), as reported in issue #49: (threads, precision) -> µs.
SLOW_MACHINE = {(1, "fp32"): 8392, (1, "bf16"): 3801, (2, "bf16"): 3886}


def main():
    folder = Path(sys.argv[1])
    runs = defaultdict(list)  # (side, preset, threads, precision, allocator) -> [json]
    for f in sorted(folder.glob("*.json")):
        if f.stat().st_size == 0:
            continue
        parts = f.stem.rsplit("-", 5)
        if len(parts) != 6:
            continue
        side, preset, threads, precision, allocator, _ = parts
        try:
            runs[(side, preset, int(threads), precision, allocator)].append(json.loads(f.read_text()))
        except json.JSONDecodeError:
            continue  # a peer that failed (its error is in the script's output)
    med = lambda rows, key: statistics.median(r[key] for r in rows)
    rounds = max((len(v) for v in runs.values()), default=0)
    cells = sorted({k[1:4] for k in runs}, key=lambda c: (c[0], c[1], c[2] != "fp32"))
    versions = {k[0]: r.get("torch", r.get("libtorch", "")) for k, v in runs.items() for r in v}
    print("### Why the same peer runs several times slower on another machine\n")
    print(f"µs per trained sample (median over {rounds} rounds), each peer with glibc's allocator tuned as our "
          "programs tune theirs (`bench/pytorch_peer.py --allocator tuned`: no mmap per large block, no "
          "trimming, one arena; what `scripts/bench-peers.sh` measures) and at glibc's default (what running "
          "the peer by hand gave before the script tuned it itself), in the same rounds. Faults and kernel "
          "time are per step at the default. Made by `sudo scripts/bench-peer-allocator.sh`; raw JSON and "
          "`lscpu.txt` in `docs/benchmarks/peer-allocator/`.\n")
    print("| preset | threads | precision | side | tuned | default | default / tuned | page faults a step "
          "(default) | kernel time a step (default) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for preset, threads, precision in cells:
        for side in ORDER:
            tuned = runs.get((side, preset, threads, precision, "tuned"))
            default = runs.get((side, preset, threads, precision, "default"))
            if not tuned and not default:
                continue
            t = med(tuned, "us_per_sample") if tuned else None
            d = med(default, "us_per_sample") if default else None
            label = LABELS.get(side, side) + (f" {versions[side]}" if side == "ours" else "")
            ratio = f"{d / t:.2f}" if t and d else "—"
            faults = f"{med(default, 'page_faults_per_step'):,.0f}" if default else "—"
            system = (f"{med(default, 'system_ms_per_step'):.1f} ms ({100 * med(default, 'system_share'):.0f} %)"
                      if default else "—")
            print(f"| {preset} | {threads} | {precision} | {label} | {f'{t:,.0f}' if t else '—'} | "
                  f"{f'{d:,.0f}' if d else '—'} | {ratio} | {faults} | {system} |")
    fault_us = [r["page_fault_us"] for v in runs.values() for r in v if "page_fault_us" in r]
    signs = sorted({s for v in runs.values() for r in v for s in r.get("slow_signs", [])
                    if "page faults" not in s and "% of the step" not in s})
    cpu = next((r["cpu"] for v in runs.values() for r in v if r.get("cpu")), {})
    print()
    if fault_us:
        print(f"One page fault costs this machine {statistics.median(fault_us):.1f} µs (median of the peers' "
              f"measurements, {min(fault_us):.1f}–{max(fault_us):.1f}). CPU: {cpu.get('model_name', '?')}, family "
              f"{cpu.get('family', '?')} model {cpu.get('model', '?')}, flags {' '.join(cpu.get('flags', []))}.")
    if signs:
        print("\nOther slow signs the peers reported: " + "; ".join(signs) + ".")
    fit = [(k, v) for k, v in SLOW_MACHINE.items() if runs.get(("pytorch26", "imdb", k[0], k[1], "default"))]
    if fit:
        print("\nThe slow machine's numbers (PyTorch 2.6, imdb, reported in #49 from another machine of this kind) "
              "against this machine's default-allocator step with its faults priced at the cost that fits them: "
              "the step's time outside the kernel here, plus its faults times that cost.\n")
        print("| threads | precision | there | here, default allocator | faults a step | the fault cost that "
              "gives their number | here with faults at 15 µs |")
        print("|---|---|---|---|---|---|---|")
        for (threads, precision), there in fit:
            rows = runs[("pytorch26", "imdb", threads, precision, "default")]
            step, system = med(rows, "median_step_ms"), med(rows, "system_ms_per_step")
            faults, batch = med(rows, "page_faults_per_step"), rows[0]["batch_size"]
            implied = (there * batch / 1e3 - (step - system)) / faults * 1e3
            at15 = ((step - system) + faults * 15 / 1e3) * 1e3 / batch
            print(f"| {threads} | {precision} | {there:,} | {step * 1e3 / batch:,.0f} | {faults:,.0f} | "
                  f"{implied:.1f} µs | {at15:,.0f} |")
    print()


if __name__ == "__main__":
    main()
