"""The OpenCL executor as a runner: hybrid execution, the ops the simulated delegate places on the
GPU on the included OpenCL executor (gpucompat/opencl/), the rest on the reference interpreter
(verification/hybrid.py). It is built for the model's declared input shapes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpucompat.errors import GpucompatError
from gpucompat.progress import status
from gpucompat.runners.base import Job, NotRun, Opened

if TYPE_CHECKING:
    import numpy as np

    from gpucompat import ir
    from gpucompat.opencl.runtime import Runtime
    from gpucompat.verification.tolerance import Tolerance


class OpenCLRunner:
    """Hybrid execution on the executor; a fix's proof holds it to verify's fp32 default for every
    safety class (a rewrite exact on the CPU can still move ops between partitions)."""

    name = "opencl"
    title = "opencl-executor"
    about = "hybrid execution on the included OpenCL executor"
    default_runs = 50
    dynamic_dim = 1  # the executor runs the declared shapes
    placed = True
    proves_every_fix = True
    real_delegate = False

    def start(self, device: str | None = None) -> None:
        """Start opening the OpenCL device (`device`: as --device names it, None: the first that
        works) in the background, so that its probe overlaps with what comes before `open`, which
        takes it (opencl/device.py open_ahead)."""
        from gpucompat.opencl.device import open_ahead

        open_ahead(device)

    def open(self, job: Job) -> Opened:
        """The executor's programs built for the model; NotRun when there is no OpenCL device or an
        op has no kernel."""
        from gpucompat.opencl.device import PassedOver
        from gpucompat.opencl.executor import UnsupportedOp
        from gpucompat.verification.hybrid import HybridRunner, open_runtime

        on_gpu = any("gpu" in p for p in job.where.values())

        def hybrid(early: bool) -> tuple[Runtime | None, HybridRunner]:
            runtime = open_runtime(job, job.data, early) if on_gpu else None
            return runtime, HybridRunner(job.model, job.where[0], runtime, called=job.where, data=job.data)

        with status("opening the OpenCL device and building the executor's programs"):
            try:
                try:  # the builds start while the first candidate device is still being probed
                    runtime, runner = hybrid(early=True)
                except PassedOver:  # it failed the probe: again on the device chosen instead
                    runtime, runner = hybrid(early=False)
            except UnsupportedOp as e:
                raise NotRun(f"{job.what}: the executor cannot run it: {e}") from None
            except GpucompatError as e:  # no OpenCL device (a line per device tried), pyopencl missing
                raise NotRun(str(e), e.lines()) from None
        device = runtime.device.name if runtime else "none (every op runs on the CPU)"
        graph = runner.graph

        def run(feeds: list[np.ndarray]) -> list[np.ndarray]:
            for t, value in zip(graph.inputs, feeds):
                if tuple(value.shape) != t.shape:
                    raise NotRun(f"input {t.name!r} runs at {tuple(value.shape)}, the executor only at its "
                                 f"declared shape {t.shape}")
            return runner.run(feeds)

        return Opened(device, runner.init_s, run, state=runtime)

    def tolerance(self, safeties: set[str]) -> Tolerance:
        """verify's fp32 default for every safety class."""
        from gpucompat.verification import tolerance

        atol, rtol = tolerance.DEFAULTS["fp32"]
        return tolerance.default("fp32", f"executor fp32: atol {atol:g}, rtol {rtol:g}")

    def reference_where(self, model: ir.Model, where: dict[int, list[str]]) -> dict[int, list[str]]:
        """The simulated delegate's placements: the ops it places on the GPU computed as the GPU does."""
        return where

    def localize(self, job: Job, opened: Opened, reference: bytes, feeds: list[np.ndarray],
                 tol: Tolerance) -> dict | None:
        """Hybrid execution again, recording every GPU op's output and every CPU partition's
        outputs, each compared with the reference interpreter's intermediate (localize.py)."""
        from gpucompat.verification.localize import first_divergent_op

        if opened.state is None:  # every op on the CPU: the reference interpreter on both sides
            return None
        return first_divergent_op(job.model, reference, job.where, opened.state, feeds, tol)


OPENCL = OpenCLRunner()
