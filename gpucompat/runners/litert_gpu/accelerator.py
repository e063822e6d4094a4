"""The runner on LiteRT's real GPU accelerator: every input set in one child process, in fp32 or
at the accelerator's default precision (fp16); ops it does not take run on LiteRT's CPU. No Vulkan
device: NotRun, with what to install."""

from __future__ import annotations

import os
import tempfile
import time
from typing import TYPE_CHECKING

from gpucompat.progress import status
from gpucompat.runners.base import Job, NotRun, Opened, fp32_noise

if TYPE_CHECKING:
    import numpy as np

    from gpucompat import ir
    from gpucompat.verification.tolerance import Tolerance

class LiteRTGPURunner:
    """The accelerator; a fix's proof holds it to fp32 noise (1e-3 of the output's largest
    magnitude): it shows that a rewrite aimed at a form the accelerator computes wrongly gives the
    right numbers there."""

    name = title = "litert-gpu"
    about = "LiteRT's real GPU accelerator; ops it does not take run on LiteRT's CPU"
    default_runs = 3  # the first inference compiles shaders for 10-40 s on the software Vulkan driver
    dynamic_dim = 1
    placed = False
    proves_every_fix = False
    real_delegate = True

    def open(self, job: Job) -> Opened:
        """Run every input set of `job` up front; `run` then hands out each set's outputs in turn."""
        from gpucompat.confirm.runner import NoDevice, launcher
        from gpucompat.runners.litert_gpu.infer import run_on_accelerator

        t0 = time.perf_counter()
        graph = job.model.graphs[0]
        with tempfile.TemporaryDirectory(prefix="gpucompat-accelerator-") as tmp:
            path = job.path
            if path is None:
                path = os.path.join(tmp, "model.tflite")
                with open(path, "wb") as f:
                    f.write(job.data)
            with status(f"running {len(job.feeds)} input sets on LiteRT's GPU accelerator (the first compiles "
                        f"its shaders)"):
                try:
                    run = run_on_accelerator(path, job.feeds, [t.index for t in graph.inputs],
                                             [t.index for t in graph.outputs], precision=job.precision, partly=True)
                except NoDevice as e:
                    raise NotRun(str(e)) from None
        results = iter(run.outputs)
        kind = "fp32" if job.precision == "fp32" else "fp16 (its default precision)"
        whole = "" if run.fully_accelerated else ", partly delegated: the other ops on LiteRT's CPU"
        # a shader the runtime could not build leaves its partition's outputs unwritten: the cause, in its words
        logged = f"; the runtime logged: {run.device_errors[0]}" if run.device_errors else ""
        device = f"LiteRT GPU accelerator, {kind}{whole} ({launcher().driver}){logged}"
        return Opened(device, time.perf_counter() - t0, lambda feeds: next(results), timed=False,
                      whole_on_gpu=run.fully_accelerated)

    def tolerance(self, safeties: set[str]) -> Tolerance:
        """fp32 noise for every safety class."""
        return fp32_noise(safeties)

    def reference_where(self, model: ir.Model, where: dict[int, list[str]]) -> dict[int, list[str]]:
        """Where the accelerator places each op, as litert-mldrift predicts it (equal to the
        accelerator on every model measured), whatever profile `where` came from: a hybrid op it
        takes computes in float, one it leaves to LiteRT's CPU quantizes its input there, as the
        reference's hybrid kernel does."""
        from gpucompat.verification.placements import placements_by_subgraph

        return placements_by_subgraph(model, "litert-mldrift")

    def localize(self, job: Job, opened: Opened, reference: bytes, feeds: list[np.ndarray],
                 tol: Tolerance) -> dict | None:
        """Every float intermediate of the main subgraph probed as an extra output (localize.py)."""
        from gpucompat.runners.litert_gpu.localize import first_divergent_op

        return first_divergent_op(job.data, feeds, job.precision, tol)


LITERT_GPU = LiteRTGPURunner()
