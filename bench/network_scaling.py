"""Renders scripts/bench-network-scaling.sh's sweeps beside docs/scaling.md's cost model.

For each preset, OUT_DIR/PRESET/one-process is a sweep of the preset in one process of 1 thread (the model's
T(1)), and OUT_DIR/PRESET/hosts one of 2 processes of 1 thread on hosts of their own, over a link shaped to
100 Mbit/s, 1 Gbit/s or unshaped, with fp32 or fp16 gradients; every cell repeated. A step's time is a run's
µs/sample × the global batch, and a cell's is the median over its repeats.

The model's prediction for N = 2 over a link of bandwidth B: each rank computes T(1)/2 and all-reduces its S
gradient bytes in a ring, which sends 2(N-1)/N × S = S bytes each way, A = S/B (the latency term, 2(N-1)α,
is microseconds between namespaces on one machine and left out). With no overlap of communication and
backward, a step takes T(1)/2 + A (worst); with backward (2/3 of compute) fully overlapped,
T(1)/6 + max(T(1)/3, A) (best). tbf counts every byte of a packet, so the payload gets about 95 % of the
rate (TCP/IP headers on 1500-byte frames); the model uses 0.95 × rate.

The corrected model. On this machine the unshaped link is not free: both ranks share its 2 cores, and the
all-reduce's copies, sums and Gloo's own thread take CPU time from the compute (and fp16's casts take more,
where nothing is saved on the wire). That overhead does not shrink with bandwidth, so the corrected model
starts from the measured unshaped step of the same gradients, T_u, and adds the link: T_u + A at worst, and
T_u + max(0, A - 2/3 × T(1)/2) when backward hides what it can.

Usage: network_scaling.py OUT_DIR ['PRESET/SWEEP<tab>COMMAND' ...]. Reads the sweep folders under OUT_DIR,
writes OUT_DIR/scaling.json (the commands given, or those already in it) and prints the table in Markdown.
"""

import datetime
import json
import pathlib
import statistics
import sys

RATES = {"100mbit": 100e6 / 8, "1gbit": 1e9 / 8}
PAYLOAD_SHARE = 0.95
PRESETS = ("imdb", "charrnn", "poems")
LINKS = ("unshaped", "1gbit", "100mbit")


def runs(sweep_dir):
    """Each finished cell's runs: (its setting, [(run.json, config.json), ...]) in grid order."""
    sweep = json.load(open(sweep_dir / "sweep.json"))
    cells = {}
    for cell in sweep["cells"]:
        if cell["state"] != "done":
            continue
        run = sweep_dir / cell["run_dir"]
        key = tuple(sorted(cell["setting"].items()))
        cells.setdefault(key, []).append((json.load(open(run / "run.json")), json.load(open(run / "config.json"))))
    return cells


def step_ms(run, config):
    return run["summary"]["us_per_sample"] * config["train"]["batch_size"] / 1000


def main(argv):
    out_dir = pathlib.Path(argv[1])
    out = out_dir / "scaling.json"
    commands = dict(a.split("\t", 1) for a in argv[2:]) if len(argv) > 2 else json.load(open(out))["commands"]
    rows, single = [], {}
    for preset in PRESETS:
        (one,) = runs(out_dir / preset / "one-process").values()
        single[preset] = statistics.median(step_ms(r, c) for r, c in one)
        t1 = single[preset]
        for key, repeats in runs(out_dir / preset / "hosts").items():
            setting = dict(key)
            steps = [step_ms(r, c) for r, c in repeats]
            ms = statistics.median(steps)
            run, config = repeats[0]
            s = run["gradient_bytes_per_step"]
            row = {"preset": preset, "link": setting["link"], "compression": setting["grad_compression"],
                   "batch": config["train"]["batch_size"], "gradient_bytes_per_step": s,
                   "step_ms": round(ms, 2), "step_ms_repeats": [round(x, 2) for x in steps],
                   "one_process_step_ms": round(t1, 2),
                   "one_process_step_ms_repeats": [round(step_ms(r, c), 2) for r, c in one],
                   "speed_up": round(t1 / ms, 3)}
            if row["link"] in RATES:
                a = s / (RATES[row["link"]] * PAYLOAD_SHARE) * 1000
                row.update(model_allreduce_ms=round(a, 2), model_best_ms=round(t1 / 6 + max(t1 / 3, a), 2),
                           model_worst_ms=round(t1 / 2 + a, 2))
            rows.append(row)
    rows.sort(key=lambda r: (PRESETS.index(r["preset"]), LINKS.index(r["link"]), r["compression"] != "none"))
    unshaped = {(r["preset"], r["compression"]): r["step_ms"] for r in rows if r["link"] == "unshaped"}
    for r in rows:
        if "model_allreduce_ms" in r:
            t_u, a, t1 = unshaped[(r["preset"], r["compression"])], r["model_allreduce_ms"], r["one_process_step_ms"]
            r["corrected_best_ms"] = round(t_u + max(0.0, a - 2 / 3 * t1 / 2), 2)
            r["corrected_worst_ms"] = round(t_u + a, 2)
            r["within_model"] = r["model_best_ms"] * 0.95 <= r["step_ms"] <= r["model_worst_ms"] * 1.05
            r["within_corrected"] = r["corrected_best_ms"] * 0.95 <= r["step_ms"] <= r["corrected_worst_ms"] * 1.05
    doc = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ"),
           "script": "scripts/bench-network-scaling.sh", "commands": commands,
           "sweeps": [f"{p}/{s}" for p in PRESETS for s in ("one-process", "hosts")], "rows": rows}
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("| preset | link | gradients | bytes a step | step (ms), median | repeats (ms) | model (ms) | "
          "corrected model (ms) | speed-up over 1 process |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        model = (f'{r["model_best_ms"]:.1f} – {r["model_worst_ms"]:.1f}' if "model_best_ms" in r else "—")
        corrected = (f'{r["corrected_best_ms"]:.1f} – {r["corrected_worst_ms"]:.1f}'
                     if "corrected_best_ms" in r else "—")
        gradients = "fp16" if r["compression"] == "fp16" else "fp32"
        link = {"unshaped": "unshaped", "1gbit": "1 Gbit/s", "100mbit": "100 Mbit/s"}[r["link"]]
        spread = " / ".join(f"{x:.1f}" for x in r["step_ms_repeats"])
        print(f'| {r["preset"]} | {link} | {gradients} | {r["gradient_bytes_per_step"]:,} | {r["step_ms"]:.1f} | '
              f'{spread} | {model} | {corrected} | {r["speed_up"]:.2f} |')
    print("one process (T(1), median): " + ", ".join(f"{p} {ms:.1f} ms" for p, ms in single.items()))
    shaped = [r for r in rows if "within_model" in r]
    print(f"inside the model's range (±5 %): {sum(r['within_model'] for r in shaped)} of {len(shaped)}; "
          f"inside the corrected model's: {sum(r['within_corrected'] for r in shaped)} of {len(shaped)}")
    print(f"raw: {out} and the sweep folders beside it")


if __name__ == "__main__":
    main(sys.argv)
