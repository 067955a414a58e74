#!/usr/bin/env python3
"""Renders scripts/gpu-bench.sh's profile stage as Markdown: where one training step's time goes on the GPU.

Inputs in OUT_DIR:
  profile-ours-PRECISION.json     `lstm-workbench-cli bench --profile --json`: each phase's median ms, op by op
  profile-peer-PRECISION.jsonl    bench/pytorch_peer.py --profile: kernels per step, their summed time, the
                                  step's wall time while profiled, and the heaviest kernels
Usage: write_gpu_profile.py OUT_DIR"""
import glob
import json
import os
import sys

from write_gpu_table import read_results


def results_in(out, pattern):
    """Every result of the files matching pattern in out, file by file; an unreadable file is skipped."""
    for path in sorted(glob.glob(os.path.join(out, pattern))):
        try:
            yield from read_results(path)
        except (OSError, ValueError) as e:
            print(f"write_gpu_profile: skipping {path}: {e}", file=sys.stderr)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    print("Ours op by op, each phase timed with the device synchronised around it (ms, median of 10 steps):\n")
    print("| preset | batch | precision | step | zero_grad | forward + loss | backward | clip | optimizer |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results_in(out, "profile-ours-*.json"):
        p = r.get("phases_ms", {})
        cells = " | ".join(f"{p.get(k, 0):.3f}" for k in ("zero_grad", "forward_loss", "backward", "clip",
                                                           "optimizer"))
        print(f"| {r['preset']} | {r['batch_size']} | {r['precision']} | {sum(p.values()):.3f} | {cells} |")
    print("\nPyTorch eager under torch.profiler (5 steps after its timed ones): kernel launches and summed kernel "
          "time per step against the median step of its timed steps (without the profiler); the rest is the "
          "host's launching and waiting.\n")
    print("| preset | batch | precision | step ms | kernel ms/step | kernels busy | launches/step | "
          "heaviest kernels (ms/step) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results_in(out, "profile-peer-*.jsonl"):
        prof = r.get("profile", {})
        if "error" in prof or not prof:
            print(f"| {r['preset']} | {r['batch_size']} | {r['precision']} | – | – | – | – | "
                  f"{prof.get('error', 'no profile')} |")
            continue
        # Profiles from before the peer left them out count the optimizer's annotation ranges
        # (Optimizer.step#Adam.step) as kernels: taken out here where they are among the listed ones.
        ranges = [k for k in prof["top_kernels"] if k["name"].startswith("Optimizer.")]
        kernels = [k for k in prof["top_kernels"] if not k["name"].startswith("Optimizer.")]
        wall = r["median_step_ms"]  # the same process's timed steps, without the profiler's own cost
        kern = prof["kernel_ms_per_step"] - sum(k["ms_per_step"] for k in ranges)
        launches = prof["kernel_launches_per_step"] - sum(k["calls_per_step"] for k in ranges)
        top = "; ".join(f"{k['name'][:48]} {k['ms_per_step']:.3f}" for k in kernels[:3])
        print(f"| {r['preset']} | {r['batch_size']} | {r['precision']} | {wall:.3f} | {kern:.3f} | "
              f"{100 * kern / wall if wall else 0:.0f} % | {launches:.0f} | {top} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
