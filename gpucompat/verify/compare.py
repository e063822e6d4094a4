"""Error statistics and the pass/fail rule.

Statistics follow inference_diff (tools/evaluation/stages/inference_profiler_stage.cc): per run and
output, the mean absolute element-wise difference; `avg_error` and `std_dev` are the mean and
standard deviation of that over the runs. `max_abs_error` and `max_ref_abs` are the largest
element-wise difference and reference magnitude seen in any run.

Pass/fail follows Polygraphy: an element fails only when it exceeds both the absolute and the
relative tolerance, |test - ref| > atol and |test - ref| > rtol * |ref|; NaN always fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpucompat.errors import GpucompatError

# Defaults per precision (docs/verify.md): fp32 is the target of 1e-5 x max|ref| on fully
# delegated float models; fp16 storage rounds every tensor to 11 significant bits.
DEFAULT_TOLERANCE = {"fp32": (1e-5, 1e-5), "fp16": (1e-2, 1e-2)}


class ShapeMismatch(GpucompatError):
    """An output whose two sides disagree on its shape, so no element can be compared."""


@dataclass(frozen=True)
class Tolerance:
    atol: float
    rtol: float


def failing(test: np.ndarray, ref: np.ndarray, tol: Tolerance) -> np.ndarray:
    """Boolean mask of the elements that exceed both tolerances (or are NaN where ref is not)."""
    t, r = np.asarray(test, np.float64), np.asarray(ref, np.float64)
    diff = np.abs(t - r)
    bad = (diff > tol.atol) & (diff > tol.rtol * np.abs(r))
    return bad | (np.isnan(t) & ~np.isnan(r))


@dataclass
class OutputStats:
    """Accumulated comparison of one output over the runs."""

    index: int
    name: str
    tolerance: Tolerance
    run_errors: list[float] = field(default_factory=list)
    max_abs_error: float = 0.0
    max_ref_abs: float = 0.0
    passed: bool = True

    def add(self, test: np.ndarray, ref: np.ndarray) -> None:
        """Fold in one run's output."""
        if np.shape(test) != np.shape(ref):
            raise ShapeMismatch(f"output {self.name!r} has shape {np.shape(test)} on the test side but "
                                f"{np.shape(ref)} on the reference interpreter")
        diff = np.abs(np.asarray(test, np.float64) - np.asarray(ref, np.float64))
        if diff.size:
            self.run_errors.append(float(diff.mean()))
            self.max_abs_error = float(np.max([self.max_abs_error, diff.max()]))  # NaN sticks
            self.max_ref_abs = max(self.max_ref_abs, float(np.abs(ref).max()))
        self.passed = self.passed and not failing(test, ref, self.tolerance).any()

    def record(self) -> dict:
        """The output's entry in the JSON document."""
        errors = np.asarray(self.run_errors, np.float64)
        return {"index": self.index, "name": self.name,
                "avg_error": float(errors.mean()) if errors.size else 0.0,
                "std_dev": float(errors.std()) if errors.size else 0.0,
                "max_abs_error": None if np.isnan(self.max_abs_error) else self.max_abs_error,
                "max_ref_abs": self.max_ref_abs, "passed": self.passed}
