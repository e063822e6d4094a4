"""The runner on the classic TFLite GL delegate (mediapipe's build, confirm/gl_runner.py): every input
set in one child process, in fp32 or with precision loss allowed (fp16); ops it does not take run on
the interpreter's builtin CPU kernels, and a model whose delegation fails runs on them whole (said in
the device line). No set-up or EGL driver: NotRun, with what to install."""

from __future__ import annotations

import os
import tempfile
import time
from typing import TYPE_CHECKING

from gpucompat.errors import GpucompatError
from gpucompat.progress import status
from gpucompat.runners.base import Job, NotRun, Opened, fp32_noise

if TYPE_CHECKING:
    from gpucompat import ir
    from gpucompat.verification.tolerance import Tolerance

class GLDelegateRunner:
    """The classic GL delegate; a fix's proof holds it to fp32 noise, as LiteRT's accelerator."""

    name = title = "gl-delegate"
    about = "the classic TFLite GL delegate (mediapipe's build, OpenGL ES through EGL); ops it leaves run on the CPU"
    default_runs = 3
    dynamic_dim = 1
    placed = False
    proves_every_fix = False
    real_delegate = True
    localize = None

    def open(self, job: Job) -> Opened:
        """Run every input set of `job` up front; `run` then hands out each set's outputs in turn."""
        from gpucompat.confirm.gl_runner import GlJob, NoGl, delegate_models, gl_launcher

        t0 = time.perf_counter()
        graph = job.model.graphs[0]
        try:
            launch = gl_launcher()
        except NoGl as e:
            raise NotRun(str(e)) from None
        with tempfile.TemporaryDirectory(prefix="gpucompat-gl-run-") as tmp:
            path = job.path
            if path is None:
                path = os.path.join(tmp, "model.tflite")
                with open(path, "wb") as f:
                    f.write(job.data)
            with status(f"running {len(job.feeds)} input sets on the classic GL delegate"):
                try:
                    report = delegate_models([GlJob(path, job.precision, job.feeds, [t.index for t in graph.inputs])],
                                             launch)[0]
                except NoGl as e:
                    raise NotRun(str(e)) from None
        if report.outputs is None:
            raise GpucompatError(f"{job.what}: the classic GL delegate gave no outputs: {report.reason or 'no reason'}")
        total = sum(len(g.ops) for g in job.model.graphs)
        taken = (f"its delegation failed ({report.reason}): every op on the CPU" if report.failed else
                 f"{report.gpu_nodes} of {total} ops on the GPU")
        kind = "fp32" if job.precision == "fp32" else "fp16 (precision loss allowed)"
        results = iter([[run[t.index] for t in graph.outputs] for run in report.outputs])
        return Opened(f"classic GL delegate, {kind}, {taken} ({launch.driver})", time.perf_counter() - t0,
                      lambda feeds: next(results), timed=False,
                      whole_on_gpu=not report.failed and report.gpu_nodes == total)

    def tolerance(self, safeties: set[str]) -> Tolerance:
        """fp32 noise for every safety class."""
        return fp32_noise(safeties)

    def reference_where(self, model: ir.Model, where: dict[int, list[str]]) -> dict[int, list[str]]:
        """Where the GL delegate places each op, as gl-delegate predicts it."""
        from gpucompat.rules.support.profile import Options
        from gpucompat.verification.placements import placements_by_subgraph

        return placements_by_subgraph(model, "gl-delegate", Options(backend="gl"))


GL_DELEGATE = GLDelegateRunner()
