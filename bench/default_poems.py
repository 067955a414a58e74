#!/usr/bin/env python3
"""The first-launch default experiment against its n-gram baseline: reads a finished run of it (metrics.csv,
baseline.json, samples.jsonl, run.json) and a `generate --json` of its last weights, and writes the Markdown
section of docs/benchmarks.md: val bits per character after 2, 5 and 10 minutes of training next to the
5-gram's, a few poems from each of those points, and how many generated poems pass the verse checker, free
and (with a second `generate --json`) in strict meter.

Usage: default_poems.py RUN_DIR GENERATE_JSON [STRICT_GENERATE_JSON] > section.md
(scripts/bench-default-poems.sh runs it; HEADING_SUFFIX, e.g. "on AMD Zen 3", ends the heading)
"""
import csv
import json
import os
import sys
from pathlib import Path


def main():
    run, generated_path = Path(sys.argv[1]), Path(sys.argv[2])
    baseline = json.loads((run / "baseline.json").read_text())
    info = json.loads((run / "run.json").read_text())
    config = json.loads((run / "config.json").read_text())
    bpc = [(float(r["wall_s"]), int(r["step"]), float(r["value"]))
           for r in csv.DictReader(open(run / "metrics.csv")) if r["split"] == "val" and r["metric"] == "bpc"]
    samples = [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines() if line]
    generated = json.loads(generated_path.read_text())
    five = baseline["bits_per_token"]
    t, m, d = config["train"], config["model"], config["data"]
    out = []
    suffix = os.environ.get("HEADING_SUFFIX", "")
    out.append("## The default experiment against the 5-gram baseline" + (f" {suffix}" if suffix else "")
               + " (scripts/bench-default-poems.sh)\n")
    out.append(f"The first-launch experiment as it ships: `{d['corpus']}`, {m['layers']}×{m['hidden']} LSTM, "
               f"embedding {m['embedding']}, dropout {m['dropout']}, sequence length {d['seq_len']}, batch "
               f"{t['batch_size']}, Adam at {t['learning_rate']} with {t['lr_warmup_steps']} warm-up steps and "
               f"{t['lr_schedule']} decay over {t['max_steps']} steps, weight decay {t['weight_decay']}, in "
               f"{info.get('precision', '?')}"
               + (f" ({info['precision_choice']})" if info.get("precision_choice") else "") +
               f", on {info.get('threads', '?')} threads ({info.get('host', '?')}, load average "
               f"{info.get('load_average', float('nan')):.1f} at the start). Wall time is training time with validation, "
               f"as `metrics.csv` counts it. The baseline is the interpolated Kneser-Ney 5-gram of the same "
               f"split: **{five:.3f} bits per character** (orders 1–5: "
               + ", ".join(f"{b:.2f}" for b in baseline["bits_per_token_by_order"]) + ").\n")
    out.append("| after | step | val bits/char | against the 5-gram |")
    out.append("|---|---:|---:|---:|")
    points = []
    for minutes in (2, 5, 10):
        before = [p for p in bpc if p[0] <= minutes * 60]
        # A mark after the run ended is not a point of the run: its end is said as "the end" below.
        if before and bpc[-1][0] >= minutes * 60:
            points.append((minutes, before[-1]))
    if bpc and (not points or points[-1][1] != bpc[-1]):
        points.append((bpc[-1][0] / 60, bpc[-1]))
    for minutes, (wall, step, value) in points:
        label = f"{minutes} min ({wall:.0f} s)" if isinstance(minutes, int) else f"the end ({wall / 60:.1f} min)"
        out.append(f"| {label} | {step} | {value:.3f} | {value - five:+.3f} |")
    first_below = next((p for p in bpc if p[2] < five), None)
    out.append("")
    if first_below:
        out.append(f"The run first scored below the 5-gram at step {first_below[1]}, after "
                   f"{first_below[0] / 60:.1f} minutes ({first_below[2]:.3f} bits per character).\n")
    else:
        out.append("The run never scored below the 5-gram.\n")
    # The targets of the first-launch issue (#28): below the 5-gram within 2.5 minutes on 2 idle cores, and
    # at least 0.2 bits per character below it at the end.
    end = bpc[-1][2] if bpc else float("nan")
    beat = first_below[0] / 60 if first_below else float("inf")
    out.append("| target | measured | met? |")
    out.append("|---|---:|---|")
    out.append(f"| below the 5-gram within 2.5 minutes | {beat:.1f} min | {'yes' if beat <= 2.5 else 'no'} |")
    out.append(f"| at the end, at least 0.2 bits per character below it | {end - five:+.3f} | "
               f"{'yes' if end - five <= -0.2 else 'no'} |")
    out.append("")
    out.append("Poems the run wrote at its validations nearest those points (`samples.jsonl`, temperature 0.8), "
               "with the verse checker's verdict:\n")
    for minutes, (wall, step, value) in points:
        nearest = min(samples, key=lambda s: abs(s["step"] - step))
        out.append(f"- step {nearest['step']} ({nearest['val_bpc']:.3f} bits/char):")
        for poem, verse in zip(nearest["samples"], nearest.get("verse", [{}] * len(nearest["samples"]))):
            out.append(f"  - {poem.replace(chr(10), ' ')} — {verse.get('summary', 'not checked')}")
    verse = generated.get("verse", [])
    passed = sum(1 for v in verse if v["passed"])
    out.append("")
    out.append(f"{len(verse)} poems generated from the last weights (`generate --form quatrain7 --samples "
               f"{len(verse)} --temperature 0.8`): **{passed} pass every rule** "
               f"({100 * passed / max(1, len(verse)):.1f} %), mean share of checks passed "
               f"{sum(v['score'] for v in verse) / max(1, len(verse)):.3f}. Real Tang 7-character quatrains: "
               f"see docs/verse.md.\n")
    if len(sys.argv) > 3:
        strict = json.loads(Path(sys.argv[3]).read_text())
        verse = strict.get("verse", [])
        bits = lambda g: sum(s["bits_per_token"] for s in g["scores"]) / max(1, len(g["scores"]))
        out.append(f"With the same settings and `--meter strict`, {len(verse)} poems: "
                   f"**{sum(1 for v in verse if v['passed'])} pass every rule**. The model gives them "
                   f"{bits(strict):.2f} bits per character on average, the free ones {bits(generated):.2f}.\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
