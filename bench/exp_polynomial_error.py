#!/usr/bin/python3
"""The relative error of the AVX-512 gate kernels' exp polynomials over the reduced range |r| <= ln(2)/2,
evaluated in fp32 as the kernels do (Horner, then y = p r^2 + r + 1), against exp in double:
- exact (model/LstmKernels.cpp, Precision::Exact, fastmath::exp's Cephes coefficients): degree 7;
- bf16 (Precision::Bf16): degree 4, fitted for relative error (refit with --fit).
The range reduction's own error (r = x - n ln 2 in two parts) is not included.

Usage: /usr/bin/python3 bench/exp_polynomial_error.py [--fit]   (needs numpy: Debian's python3-numpy)
"""
import sys

import numpy as np

HALF_LN2 = 0.34657359
EXACT = [5.0000001201e-1, 1.6666665459e-1, 4.1665795894e-2, 8.3334519073e-3, 1.3981999507e-3, 1.9875691500e-4]
BF16 = [0.50005120, 0.16753529, 0.041277673]


def worst_relative_error(coefficients):
    r = np.linspace(-HALF_LN2, HALF_LN2, 400001).astype(np.float32)
    p = np.zeros_like(r)
    for c in reversed(coefficients):
        p = (p * r + np.float32(c)).astype(np.float32)
    y = (p * r * r + r + np.float32(1)).astype(np.float32)
    return float(np.abs(y.astype(np.float64) / np.exp(r.astype(np.float64)) - 1).max())


def fit(degree):
    """Coefficients c2.. of (e^r - 1 - r) / r^2 for a total degree, by reweighted least squares toward the
    smallest largest relative error."""
    r = np.cos(np.linspace(0, np.pi, 4000)) * HALF_LN2
    r = r[np.abs(r) > 1e-6]
    target = (np.expm1(r) - r) / r**2
    weight = r**2 / np.exp(r)
    extra = np.ones_like(r)
    for _ in range(80):
        a = np.vander(r, degree - 1, increasing=True) * (weight * extra)[:, None]
        c, *_ = np.linalg.lstsq(a, target * weight * extra, rcond=None)
        err = (np.vander(r, degree - 1, increasing=True) @ c - target) * weight
        extra = extra * (np.abs(err) / np.abs(err).max()) ** 0.3 + 1e-12
    return [float(x) for x in c.astype(np.float32)]


if __name__ == "__main__":
    if "--fit" in sys.argv:
        print("degree 4 fitted:", fit(4))
    print(f"exact (degree 7): {worst_relative_error(EXACT):.2e}")
    print(f"bf16 (degree 4):  {worst_relative_error(BF16):.2e}")
    print(f"bf16 without its last term: {worst_relative_error(BF16[:-1]):.2e}")
