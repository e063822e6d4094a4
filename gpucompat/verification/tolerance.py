"""The one rule for "close enough", used by `verify`, `fix`'s proof and the tests.

An output of one run passes when every element is within atol + rtol x the output's largest
reference magnitude (finite values; 0 for an empty or all-NaN output):

    |test - ref| <= atol + rtol * max|ref|

Judging each element against the output's magnitude, not its own, is what reordered float sums
need: an element near zero in an output whose values reach 184 carries the rounding of the large
terms it was summed from. NaN on one side only, or infinities that differ, always fail; NaN on
both sides, and equal infinities, agree.

Defaults per precision (docs/verify.md "Default tolerances" has the measurements):
- fp32: rtol 1e-3. On the 13 fully delegable MediaPipe models the executor's worst error is 2.1e-7
  to 3.6e-4 of the output's magnitude, the size of the reference interpreter's own spread between
  its XNNPACK and builtin kernels (the noise floor verify reports); LiteRT's real GPU accelerator
  and Intel's OpenCL CPU runtime reach 4e-4 to 8e-4 of it. Broken kernels are off by 0.16 of it
  and more.
- fp16: rtol 1e-2. Half storage rounds every tensor to 11 significant bits (4.9e-4 relative per
  store); through a model's depth that reaches 2.7e-4 to 3.6e-3 of the magnitude on 10 of the 13
  MediaPipe models (pose_landmark_full and the two selfie_segmentation models move by far more
  and fail, rightly).
- atol 1e-5 (fp32) / 1e-4 (fp16): the floor for outputs that are all (near) zero.

An ill-conditioned output (one that moves far when its inputs move by a rounding) gets a second
allowance, its rounding sensitivity on that run (sensitivity.py): how far the reference itself moves
when every float input moves by one fp32 ulp, or when it runs with its builtin kernels. An element
passes within atol + max(rtol x max|ref|, SENSITIVITY_FACTOR x sensitivity). On
pose_landmark_full's segmentation output (N(0, 1) inputs) one ulp moves the reference by up to 3.2
of max|ref| 1550 and the builtin kernels differ from XNNPACK by up to 7.0, while every GPU op is
within 1e-5 of its own magnitude on the reference's inputs: on the 29 of 150 runs past rtol the
executor's error is at most 2.1 times that run's sensitivity (docs/verify.md "Ill-conditioned
outputs").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DEFAULTS = {"fp32": (1e-5, 1e-3), "fp16": (1e-4, 1e-2)}  # precision -> (atol, rtol)
SENSITIVITY_FACTOR = 4.0  # x the run's rounding sensitivity; measured errors reach 2.1 x of it


@dataclass(frozen=True)
class Tolerance:
    """How far an output may drift: atol + rtol x its largest reference magnitude."""

    atol: float
    rtol: float
    label: str = ""

    def bound(self, ref: np.ndarray, sensitivity: float = 0.0) -> float:
        """The largest absolute error allowed on an output whose reference value is `ref` and
        whose rounding sensitivity on that run is `sensitivity` (0: not measured)."""
        return self.atol + max(self.rtol * magnitude(ref), SENSITIVITY_FACTOR * sensitivity)

    def failing(self, test: np.ndarray, ref: np.ndarray, sensitivity: float = 0.0) -> np.ndarray:
        """Boolean mask of the elements of `test` outside the bound."""
        return abs_error(test, ref) > self.bound(ref, sensitivity)

    def describe(self) -> str:
        """How the tolerance reads in a report."""
        return self.label or f"atol {self.atol:g} + rtol {self.rtol:g} x max|ref|"


def default(precision: str = "fp32", label: str = "") -> Tolerance:
    """The default tolerance of a precision."""
    atol, rtol = DEFAULTS[precision]
    return Tolerance(atol, rtol, label)


def magnitude(ref: np.ndarray) -> float:
    """The largest finite |value| of an output (0 when it has none)."""
    r = np.abs(np.asarray(ref, np.float64))
    r = r[np.isfinite(r)]
    return float(r.max()) if r.size else 0.0


def abs_error(test: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|test - ref| element-wise in float64; values that agree (NaN with NaN, equal infinities)
    are 0, NaN on one side only or differing infinities are infinite."""
    t, r = np.asarray(test, np.float64), np.asarray(ref, np.float64)
    with np.errstate(invalid="ignore"):
        diff = np.abs(t - r)
    agree = (np.isnan(t) & np.isnan(r)) | (t == r)
    return np.where(agree, 0.0, np.where(np.isnan(diff), np.inf, diff))


def max_abs_error(test: np.ndarray, ref: np.ndarray) -> float:
    """The largest element of abs_error (0 for empty outputs)."""
    return float(np.max(abs_error(test, ref), initial=0.0))
