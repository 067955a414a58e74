#!/usr/bin/env python3
"""How well an LSTM's activated gates, kept in bf16 for the backward, give back what the backward needs: the
gate s itself and its derivative (s (1 - s) for a sigmoid gate, 1 - g^2 for the tanh gate), for three ways of
keeping them, against the exact values (float64):

  fp32      the gate rounded to fp32 (what fp32 training keeps, and bf16 where the folded gates do not run or
            LSTM_WORKBENCH_FOLDED_GATES=off; bf16 kept these from session 37 to 47)
  bf16      the gate rounded to bf16 (what bf16 kept before session 37)
  folded    what the bf16 gate kernels keep (core/engine/src/model/LstmKernels.h): a sigmoid gate as
            v = sigma(-|z|), the smaller of s and 1 - s, in bf16 with z's sign bit (s = v where z < 0, else
            1 - v); the tanh gate as the sigmoid it is, g = 2 sigma(2z) - 1, so that 1 - g^2 = 4 s (1 - s)

For pre-activations z over [-ZMAX, ZMAX] (default 16, every 1/64), the worst and the median relative error of
each quantity. Usage: folded_gate_error.py [ZMAX]   (needs torch for bf16 rounding)"""
import sys

import torch


def bf16(x):
    return x.to(torch.bfloat16).to(torch.float64)


def fp32(x):
    return x.to(torch.float32).to(torch.float64)


def fold(z):
    """Pre-activations z -> the bf16 value kept, v = sigma(-|z|) with z's sign; and back to (s, 1 - s)."""
    v = torch.sigmoid(-z.abs())
    kept = bf16(torch.where(torch.signbit(z), -v, v))
    small = kept.abs()
    negative = torch.signbit(kept)
    return torch.where(negative, small, 1 - small), torch.where(negative, 1 - small, small)


def rel(a, b):
    return ((a - b).abs() / b.abs().clamp_min(1e-300))


def main():
    zmax = float(sys.argv[1]) if len(sys.argv) > 1 else 16.0
    z = torch.arange(-zmax, zmax + 1e-9, 1 / 64, dtype=torch.float64)
    s = torch.sigmoid(z)
    exact_ds = s * (1 - s)
    g = torch.tanh(z)
    exact_dg = 1 - g * g
    rows = []
    for name, keep in (("fp32", fp32), ("bf16", bf16)):
        ks, kg = keep(s), keep(g)
        rows.append((name, rel(ks, s), rel(ks * (1 - ks), exact_ds), rel(kg, g.abs().clamp_min(1e-300) * g.sign()),
                     rel(1 - kg * kg, exact_dg)))
    fs, f1 = fold(z)
    sg, sg1 = fold(2 * z)
    fg = 2 * sg - 1
    rows.append(("folded", rel(fs, s), rel(fs * f1, exact_ds), rel(fg, g), rel(4 * sg * sg1, exact_dg)))
    print(f"pre-activations z in [-{zmax:g}, {zmax:g}], step 1/64 ({len(z)} values); relative errors, worst / median")
    print("| kept as | sigmoid s | s (1 - s) | tanh g | 1 - g^2 |")
    print("|---|---|---|---|---|")
    for name, *errs in rows:
        cells = [f"{e.max().item():.2e} / {e.median().item():.2e}" for e in errs]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
