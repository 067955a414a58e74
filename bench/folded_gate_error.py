#!/usr/bin/env python3
"""How well an LSTM's activated gates, kept in bf16 for the backward, give back what the backward needs: the
gate s itself and its derivative (s (1 - s) for a sigmoid gate, 1 - g^2 for the tanh gate), for three ways of
keeping them, against the exact values (float64):

  fp32      the gate rounded to fp32 (what the bf16 path keeps today: docs/benchmarks.md, "fp32 saved gates")
  bf16      the gate rounded to bf16 (what it kept before)
  folded    a sigmoid gate kept as the smaller of s and 1 - s in bf16, the sign bit saying which (s > 1/2 is
            kept as -(1 - s)); the tanh gate as the sigmoid it is, g = 2 sigma(2z) - 1, so that
            1 - g^2 = 4 s (1 - s)

For pre-activations z over [-ZMAX, ZMAX] (default 16, every 1/64), the worst and the median relative error of
each quantity. Usage: folded_gate_error.py [ZMAX]   (needs torch for bf16 rounding)"""
import sys

import torch


def bf16(x):
    return x.to(torch.bfloat16).to(torch.float64)


def fp32(x):
    return x.to(torch.float32).to(torch.float64)


def fold(s):
    """s in (0, 1) -> the bf16 value kept: s where s <= 1/2, else -(1 - s); and back to (s, 1 - s)."""
    kept = bf16(torch.where(s <= 0.5, s, -(1 - s)))
    small = kept.abs()
    negative = torch.signbit(kept)
    return torch.where(negative, 1 - small, small), torch.where(negative, small, 1 - small)


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
    fs, f1 = fold(s)
    sg, sg1 = fold(torch.sigmoid(2 * z))
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
