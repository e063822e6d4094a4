"""Error statistics of verify's outputs, judged by the tolerance rule (tolerance.py).

Statistics follow inference_diff (tools/evaluation/stages/inference_profiler_stage.cc): per run and
output, the mean absolute element-wise difference; `avg_error` and `std_dev` are the mean and
standard deviation of that over the runs. `max_abs_error` and `max_ref_abs` are the largest
element-wise difference and reference magnitude seen in any run; `max_rel_error` is the worst
run's largest difference over that run's largest reference magnitude, what the default rtol is
compared with. `noise_floor` is how far the reference interpreter's XNNPACK and builtin kernels
disagree on the same output (first run), and `error_to_noise` the executor's error over it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpucompat.errors import GpucompatError
from gpucompat.verification.tolerance import Tolerance, abs_error, magnitude


class ShapeMismatch(GpucompatError):
    """An output whose two sides disagree on its shape, so no element can be compared."""


@dataclass
class OutputStats:
    """Accumulated comparison of one output over the runs."""

    index: int
    name: str
    tolerance: Tolerance
    run_errors: list[float] = field(default_factory=list)
    max_abs_error: float = 0.0
    max_ref_abs: float = 0.0
    max_rel_error: float = 0.0
    noise_floor: float | None = None
    passed: bool = True

    def add(self, test: np.ndarray, ref: np.ndarray) -> None:
        """Fold in one run's output."""
        if np.shape(test) != np.shape(ref):
            raise ShapeMismatch(f"output {self.name!r} has shape {np.shape(test)} on the test side but "
                                f"{np.shape(ref)} on the reference interpreter")
        diff = abs_error(test, ref)
        if diff.size:
            worst, scale = float(diff.max()), magnitude(ref)
            self.run_errors.append(float(diff.mean()))
            self.max_abs_error = max(self.max_abs_error, worst)
            self.max_ref_abs = max(self.max_ref_abs, scale)
            self.max_rel_error = max(self.max_rel_error, worst / scale if scale else (0.0 if worst == 0 else np.inf))
        self.passed = self.passed and not (diff > self.tolerance.bound(ref)).any()

    def record(self) -> dict:
        """The output's entry in the JSON document."""
        errors = np.asarray(self.run_errors, np.float64)
        with np.errstate(invalid="ignore"):  # inf errors (an output that overflowed): no spread, None
            spread = float(errors.std()) if errors.size else 0.0
        ratio = None
        if self.noise_floor:
            ratio = _finite(self.max_abs_error / self.noise_floor)
        return {"index": self.index, "name": self.name,
                "avg_error": _finite(float(errors.mean())) if errors.size else 0.0,
                "std_dev": _finite(spread),
                "max_abs_error": _finite(self.max_abs_error), "max_ref_abs": self.max_ref_abs,
                "max_rel_error": _finite(self.max_rel_error), "tolerance": self.tolerance.describe(),
                "noise_floor": self.noise_floor, "error_to_noise": ratio, "passed": self.passed}


def _finite(x: float) -> float | None:
    """A number for JSON: None for NaN / infinity (an error that no tolerance covers)."""
    return x if np.isfinite(x) else None
