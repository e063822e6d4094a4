"""Rounding sensitivity: how far the reference's own output moves on one run's inputs when those
inputs move by a rounding (each float element one fp32 ulp up or down, NUDGES seeded draws) or when
the reference runs with its builtin kernels instead of XNNPACK. A correct implementation rounds
differently from the reference at every op; on an ill-conditioned output (a deep stack of
saturating activations amplifying rounding, as in pose_landmark_full's segmentation head on
N(0, 1) inputs) that alone moves the output by more than rtol x max|ref|. Verify measures it only
for the runs where an output exceeds that bound, so well-conditioned models cost nothing extra.
"""

from __future__ import annotations

import numpy as np

from gpucompat.verification.tolerance import abs_error

NUDGES = 4  # perturbed reference runs per measured run


def nudged(feeds: list[np.ndarray], draw: int) -> list[np.ndarray]:
    """The inputs with every float element moved one ulp up or down (seeded by `draw`); other
    inputs unchanged."""
    gen = np.random.default_rng(draw)
    out = []
    for v in feeds:
        v = np.asarray(v)
        if v.dtype.kind == "f":
            toward = np.where(gen.integers(0, 2, v.shape).astype(bool), np.inf, -np.inf).astype(v.dtype)
            v = np.nextafter(v, toward)
        out.append(v)
    return out


def spread(ref: np.ndarray, other: np.ndarray) -> float:
    """The largest finite |other - ref| (a perturbed run that overflows somewhere excuses nothing
    there)."""
    diff = abs_error(other, ref)
    diff = diff[np.isfinite(diff)]
    return float(diff.max()) if diff.size else 0.0
