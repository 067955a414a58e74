"""Renders scripts/bench-network-scaling.sh's runs beside docs/scaling.md's cost model.

Each entry is a run.json of rank 0: one process of 1 thread (the model's T(1)), or 2 hosts over a link
shaped to 100 Mbit/s, 1 Gbit/s or unshaped, with fp32 or fp16 gradients. A step's time is its µs/sample ×
the global batch. The model's prediction for N = 2 over a link of bandwidth B: each rank computes T(1)/2 and
all-reduces its S gradient bytes in a ring, which sends 2(N-1)/N × S = S bytes each way, A = S/B (the
latency term, 2(N-1)α, is microseconds between namespaces on one machine and left out). With no overlap of
communication and backward, a step takes T(1)/2 + A (worst); with backward (2/3 of compute) fully
overlapped, T(1)/6 + max(T(1)/3, A) (best). tbf counts every byte of a packet, so the payload gets about
95 % of the rate (TCP/IP headers on 1500-byte frames); the model uses 0.95 × rate.

The corrected model. On this machine the unshaped link is not free: both ranks share its 2 cores, and the
all-reduce's copies, sums and Gloo's own thread take CPU time from the compute (and fp16's casts take more,
where nothing is saved on the wire). That overhead does not shrink with bandwidth, so the corrected model
starts from the measured unshaped step of the same gradients, T_u, and adds the link: T_u + A at worst, and
T_u + max(0, A - 2/3 × T(1)/2) when backward hides what it can.

Usage: network_scaling.py OUT_JSON 'ENTRY,ENTRY,...' (the JSON objects, comma-joined, as the script builds
them), or network_scaling.py OUT_JSON --rerender (the entries already in OUT_JSON). Writes OUT_JSON and
prints the table in Markdown.
"""

import datetime
import json
import sys

RATES = {"100mbit": 100e6 / 8, "1gbit": 1e9 / 8}
PAYLOAD_SHARE = 0.95
PRESET_BATCH = {"imdb": 64, "charrnn": 64, "poems": 32}  # the presets' batch_size (core/formats ConfigFields)


def main(argv):
    out, joined = argv[1], argv[2]
    if joined == "--rerender":
        previous = json.load(open(out))
        entries, date = previous["entries"], previous["date"]
    else:
        entries, date = json.loads("[" + joined + "]"), datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%MZ")
    rows = []
    single = {}
    for e in entries:
        run = e["run"]
        batch = PRESET_BATCH[e["preset"]]
        ms = run["summary"]["us_per_sample"] * batch / 1000
        if e["link"] == "one process":
            single[e["preset"]] = ms
            continue
        t1 = single[e["preset"]]
        s = run["gradient_bytes_per_step"]
        row = {"preset": e["preset"], "link": e["link"], "compression": e["compression"], "batch": batch,
               "gradient_bytes_per_step": s, "step_ms": round(ms, 2), "one_process_step_ms": round(t1, 2),
               "speed_up": round(t1 / ms, 3)}
        if e["link"] in RATES:
            a = s / (RATES[e["link"]] * PAYLOAD_SHARE) * 1000
            row.update(model_allreduce_ms=round(a, 2), model_best_ms=round(t1 / 6 + max(t1 / 3, a), 2),
                       model_worst_ms=round(t1 / 2 + a, 2))
        rows.append(row)
    unshaped = {(r["preset"], r["compression"]): r["step_ms"] for r in rows if r["link"] == "none"}
    for r in rows:
        if "model_allreduce_ms" in r:
            t_u, a, t1 = unshaped[(r["preset"], r["compression"])], r["model_allreduce_ms"], r["one_process_step_ms"]
            r["corrected_best_ms"] = round(t_u + max(0.0, a - 2 / 3 * t1 / 2), 2)
            r["corrected_worst_ms"] = round(t_u + a, 2)
            r["within_corrected"] = r["corrected_best_ms"] * 0.95 <= r["step_ms"] <= r["corrected_worst_ms"] * 1.05
    doc = {"date": date,
           "script": "scripts/bench-network-scaling.sh", "rows": rows, "entries": entries}
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("| preset | link | gradients | bytes a step | step (ms) | model (ms) | corrected model (ms) | "
          "speed-up over 1 process |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        model = (f'{r["model_best_ms"]:.1f} – {r["model_worst_ms"]:.1f}' if "model_best_ms" in r else "—")
        corrected = (f'{r["corrected_best_ms"]:.1f} – {r["corrected_worst_ms"]:.1f}'
                     if "corrected_best_ms" in r else "—")
        gradients = "fp16" if r["compression"] == "fp16" else "fp32"
        link = {"none": "unshaped", "1gbit": "1 Gbit/s", "100mbit": "100 Mbit/s"}[r["link"]]
        print(f'| {r["preset"]} | {link} | {gradients} | {r["gradient_bytes_per_step"]:,} | {r["step_ms"]:.1f} | '
              f'{model} | {corrected} | {r["speed_up"]:.2f} |')
    print(f"one process (T(1)): " + ", ".join(f"{p} {ms:.1f} ms" for p, ms in single.items()))
    print(f"raw: {out}")


if __name__ == "__main__":
    main(sys.argv)
