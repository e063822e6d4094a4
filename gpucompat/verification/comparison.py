"""Error statistics of verify's outputs, judged by the tolerance rule (tolerance.py).

Statistics follow inference_diff (tools/evaluation/stages/inference_profiler_stage.cc): per run and
output, the mean absolute element-wise difference; `avg_error` and `std_dev` are the mean and
standard deviation of that over the runs. `max_abs_error` and `max_ref_abs` are the largest
element-wise difference and reference magnitude seen in any run; `max_rel_error` is the worst
run's largest difference over that run's largest reference magnitude, what the default rtol is
compared with. `noise_floor` is how far the reference interpreter's XNNPACK and builtin kernels
disagree on the same output (first run), and `error_to_noise` the executor's error over it.
`sensitivity` is the largest rounding sensitivity measured on a run where the output exceeded
atol + rtol x max|ref| (sensitivity.py; None when no run did), what judged those runs. `task`
holds the task-level numerics (task_metrics.py); with `forbid_flips` (fp16 without
--allow-class-flips) a class flip fails the output whatever its error.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpucompat.errors import GpucompatError
from gpucompat.verification.task_metrics import TaskStats
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
    sensitivity: float | None = None
    within: bool = True
    task: TaskStats = field(default_factory=lambda: TaskStats(False))
    forbid_flips: bool = False

    @property
    def passed(self) -> bool:
        """Within tolerance on every run, and no class flip where flips are failures."""
        return self.within and not (self.forbid_flips and self.task.flip_count)

    def add(self, test: np.ndarray, ref: np.ndarray) -> bool:
        """Fold in one run's output; whether it is within atol + rtol x max|ref| (a run that is not
        is judged by `settle` once its rounding sensitivity is measured)."""
        if np.shape(test) != np.shape(ref):
            raise ShapeMismatch(f"output {self.name!r} has shape {np.shape(test)} on the test side but "
                                f"{np.shape(ref)} on the reference interpreter")
        self.task.add(test, ref)
        diff = abs_error(test, ref)
        if diff.size:
            worst, scale = float(diff.max()), magnitude(ref)
            self.run_errors.append(float(diff.mean()))
            self.max_abs_error = max(self.max_abs_error, worst)
            self.max_ref_abs = max(self.max_ref_abs, scale)
            self.max_rel_error = max(self.max_rel_error, worst / scale if scale else (0.0 if worst == 0 else np.inf))
        return not (diff > self.tolerance.bound(ref)).any()

    def settle(self, test: np.ndarray, ref: np.ndarray, sensitivity: float) -> bool:
        """Judge a run that exceeded atol + rtol x max|ref| against its rounding sensitivity too;
        whether it passes."""
        self.sensitivity = max(self.sensitivity or 0.0, sensitivity)
        within = not self.tolerance.failing(test, ref, sensitivity).any()
        self.within = self.within and within
        return within

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
                "noise_floor": self.noise_floor, "error_to_noise": ratio, "sensitivity": self.sensitivity,
                "task": self.task.record(), "within_tolerance": self.within, "passed": self.passed}


def _finite(x: float) -> float | None:
    """A number for JSON: None for NaN / infinity (an error that no tolerance covers)."""
    return x if np.isfinite(x) else None
