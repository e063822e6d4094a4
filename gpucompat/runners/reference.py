"""The reference interpreter as a runner: ai_edge_litert's CPU interpreter (XNNPACK) on the model
as verify runs its reference (verification/reference_model.py: a hybrid-quantized op the job places
on the GPU is computed in float, as the GPU computes it), allocated at the input sets' shapes."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from gpucompat.runners.base import Job, Opened

if TYPE_CHECKING:
    from gpucompat import ir
    from gpucompat.verification.tolerance import Tolerance

RELATIVE_TOLERANCE = 1e-5


class ReferenceRunner:
    """The reference interpreter; a fix's proof holds it to identical outputs when every rewrite
    applied is exact, else to 1e-5 of the output's largest magnitude."""

    name = "reference"
    title = "reference-interpreter"
    about = "the reference interpreter (ai_edge_litert's CPU interpreter)"
    default_runs = 50
    dynamic_dim = 2  # a batch mix-up shows at 2
    placed = False
    proves_every_fix = True
    real_delegate = False
    localize = None

    def open(self, job: Job) -> Opened:
        """The interpreter on the reference's model, allocated at the first input set's shapes."""
        import numpy as np

        from gpucompat.verification.interpreter import reference_interpreter, run_reference
        from gpucompat.verification.reference_model import reference_model

        t0 = time.perf_counter()
        data, _ = reference_model(job.data, job.where, job.model)
        it = reference_interpreter(data, job.path or "the model",
                                   input_shapes=[np.shape(f) for f in job.feeds[0]] if job.feeds else None)
        return Opened("CPU", time.perf_counter() - t0, lambda feeds: run_reference(it, feeds))

    def tolerance(self, safeties: set[str]) -> Tolerance:
        """0 when every applied rewrite is exact, else 1e-5 relative."""
        from gpucompat.verification.tolerance import Tolerance

        if safeties <= {"exact"}:
            return Tolerance(0.0, 0.0, "exact")
        return Tolerance(0.0, RELATIVE_TOLERANCE, f"relative {RELATIVE_TOLERANCE:g}")

    def reference_where(self, model: ir.Model, where: dict[int, list[str]]) -> dict[int, list[str]]:
        """Nothing on the GPU: hybrid kernels run as stored."""
        return {}


REFERENCE = ReferenceRunner()
