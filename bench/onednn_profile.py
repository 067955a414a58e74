#!/usr/bin/python3
"""Where a PyTorch 2.x CPU training step of an LSTM spends its time with oneDNN on (PyTorch's default) and
off: the preset's model from bench/pytorch_peer.py, a few steps under torch.profiler, the operators with the
most self CPU time for each setting. docs/performance.md ("The PyTorch peers") quotes it.

Usage (Debian 13's python3-torch, e.g. in scripts/debian13.sh's root):
  python3 bench/onednn_profile.py [--preset charrnn] [--threads 1] [--steps 5] [--top 8]
"""
import argparse
import json
import os
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", default="charrnn")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--top", type=int, default=8)
    args = ap.parse_args()
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pytorch_peer import PRESETS, NUM_SPECIAL, GRAD_CLIP
    import torch
    from torch import nn
    from torch.profiler import profile, ProfilerActivity

    torch.set_num_threads(args.threads)
    p = PRESETS[args.preset]
    out = {"torch": torch.__version__, "preset": args.preset, "threads": args.threads, "settings": {}}
    for mkldnn in (True, False):
        torch.backends.mkldnn.enabled = mkldnn
        torch.manual_seed(42)
        emb = nn.Embedding(p["vocab"], p["emb"])
        lstm = nn.LSTM(p["emb"], p["hidden"], num_layers=p["layers"], batch_first=True)
        head = nn.Linear(p["hidden"], p["classes"] if p["task"] == "classify" else p["vocab"])
        params = list(emb.parameters()) + list(lstm.parameters()) + list(head.parameters())
        opt = torch.optim.Adam(params, lr=p["lr"])
        x = torch.randint(NUM_SPECIAL, p["vocab"], (p["batch"], p["seq"]))
        y = (torch.randint(0, p["classes"], (p["batch"],)) if p["task"] == "classify"
             else torch.randint(NUM_SPECIAL, p["vocab"], (p["batch"] * p["seq"],)))

        def step():
            opt.zero_grad()
            h, _ = lstm(emb(x))
            logits = head(h[:, -1] if p["task"] == "classify" else h).reshape(-1, head.out_features)
            nn.functional.cross_entropy(logits, y).backward()
            nn.utils.clip_grad_norm_(params, GRAD_CLIP)
            opt.step()

        for _ in range(3):
            step()
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            for _ in range(args.steps):
                step()
        events = sorted(prof.key_averages(), key=lambda e: e.self_cpu_time_total, reverse=True)
        total = sum(e.self_cpu_time_total for e in events)
        out["settings"]["oneDNN on" if mkldnn else "oneDNN off"] = {
            "ms_per_step": total / 1e3 / args.steps,
            "top": [{"op": e.key, "self_ms_per_step": e.self_cpu_time_total / 1e3 / args.steps,
                     "share": e.self_cpu_time_total / total, "calls_per_step": e.count / args.steps}
                    for e in events[:args.top]]}
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
