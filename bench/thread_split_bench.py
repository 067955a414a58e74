#!/usr/bin/env python3
"""How a CPU step should use two threads, measured side by side: per preset, `lstm-workbench-cli bench` on
1 thread, on 2 threads splitting every operation (--thread-split ops) and on 2 threads each training its
share of the batch (--thread-split batch), and two independent 1-thread runs at once (the machine's own
ceiling for two threads: what two cores give two workloads that share nothing), alternating round after
round; then the same with a busy neighbour (a process spinning on core 0, as another program on the machine
would). Writes
OUT/thread-split.json (every measurement) and OUT/thread-split.md (medians and ratios).

Usage: thread_split_bench.py CLI OUT [--rounds 3] [--steps 20] [--poems-steps 6]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CONFIGS = [("1 thread", "cpu:1", "ops"), ("2 threads, ops", "cpu:2", "ops"), ("2 threads, batch", "cpu:2", "batch")]
PRESETS = ["imdb", "charrnn", "poems"]
PAIR = "two 1-thread runs at once"


def command(cli, preset, device, split, steps):
    return [cli, "bench", "--preset", preset, "--device", device, "--thread-split", split, "--steps", str(steps), "--json"]


def bench(cli, preset, device, split, steps):
    out = subprocess.run(command(cli, preset, device, split, steps), check=True, capture_output=True, text=True)
    return json.loads(out.stdout)["us_per_sample"]


def bench_pair(cli, preset, steps):
    """Two 1-thread runs started together; the µs/sample of the slower one (both ran the whole time)."""
    procs = [subprocess.Popen(command(cli, preset, "cpu:1", "ops", steps), stdout=subprocess.PIPE, text=True) for _ in range(2)]
    results = []
    for p in procs:
        out, _ = p.communicate()
        if p.returncode != 0:
            raise RuntimeError(f"bench failed ({p.returncode})")
        results.append(json.loads(out)["us_per_sample"])
    return max(results)


def measure(cli, rounds, steps, poems_steps, busy):
    spinner = None
    if busy:  # one core taken by another process for the whole measurement
        spinner = subprocess.Popen(["taskset", "-c", "0", "sh", "-c", "while :; do :; done"])
        time.sleep(1)
    try:
        rows = []
        for r in range(rounds):
            for preset in PRESETS:
                n = poems_steps if preset == "poems" else steps
                for name, device, split in CONFIGS:
                    us = bench(cli, preset, device, split, n)
                    rows.append({"round": r + 1, "preset": preset, "config": name, "busy": busy, "us_per_sample": us})
                    print(f"{'busy' if busy else 'idle'} {r + 1} {preset} {name}: {us:.1f}", file=sys.stderr)
                if not busy:
                    us = bench_pair(cli, preset, n)
                    rows.append({"round": r + 1, "preset": preset, "config": PAIR, "busy": busy, "us_per_sample": us})
                    print(f"idle {r + 1} {preset} {PAIR}: {us:.1f}", file=sys.stderr)
        return rows
    finally:
        if spinner:
            spinner.kill()
            spinner.wait()


def render(rows, meta):
    lines = ["### Two threads: splitting the batch or every operation", "",
             f"Measured {meta['date']} on {meta['cpu']} ({meta['cores']} cores), {meta['rounds']} rounds alternating "
             "the three settings, median µs/sample of `lstm-workbench-cli bench` (synthetic data of the preset's "
             "shape). *ops*: LibTorch and OpenBLAS split every operation between 2 threads; *batch* (the default): "
             "each thread trains half of every batch for the whole step, the gradients meet in the shared weights. "
             "Busy: another process spins on core 0 throughout. Ceiling: two independent 1-thread runs of the "
             "preset started together (sharing no data), their combined throughput over one run's alone: what this "
             "machine's two cores give when nothing is shared or waited for (the memory system, the shared L3 and "
             "the clock under load set it). Raw: `docs/benchmarks/thread-split.json`.", "",
             "| preset | machine | 1 thread | 2 threads, ops | 2 threads, batch | speed-up of 2 threads, ops | speed-up of 2 threads, batch | ceiling |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    verdicts = []
    for busy in (False, True):
        for preset in PRESETS:
            med = {}
            for name, _, _ in CONFIGS:
                values = [x["us_per_sample"] for x in rows if x["busy"] == busy and x["preset"] == preset and x["config"] == name]
                med[name] = statistics.median(values)
            one = med["1 thread"]
            pair = [x["us_per_sample"] for x in rows if x["busy"] == busy and x["preset"] == preset and x["config"] == PAIR]
            ceiling = f"{2 * one / statistics.median(pair):.2f}x" if pair else "—"
            lines.append(f"| {preset} | {'busy core' if busy else 'idle'} | {one:.0f} | {med['2 threads, ops']:.0f} | "
                         f"{med['2 threads, batch']:.0f} | {one / med['2 threads, ops']:.2f}x | {one / med['2 threads, batch']:.2f}x | {ceiling} |")
            speedup = one / med["2 threads, batch"]
            goal = 1.0 if busy else 1.7
            verdicts.append(f"| 2 threads ≥ {goal}x 1 thread, {preset}, {'busy core' if busy else 'idle'} | {speedup:.2f}x | "
                            f"{'yes' if speedup >= goal else 'no'} |")
    lines += ["", "Targets (judged on the default split, batch: what a user gets):", "", "| target | measured | met? |",
              "| --- | --- | --- |"] + verdicts
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("out")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--poems-steps", type=int, default=6)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    cpu = "unknown CPU"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cpu": cpu, "cores": os.cpu_count(),
            "rounds": a.rounds, "load_average_before": os.getloadavg()[0]}
    rows = measure(a.cli, a.rounds, a.steps, a.poems_steps, False) + measure(a.cli, a.rounds, a.steps, a.poems_steps, True)
    json.dump({"meta": meta, "measurements": rows}, open(os.path.join(a.out, "thread-split.json"), "w"), indent=1)
    open(os.path.join(a.out, "thread-split.md"), "w").write(render(rows, meta))


if __name__ == "__main__":
    main()
