"""Can `confirm` run here? A listed Vulkan driver is not proof (Debian bookworm's Mesa 22 lavapipe
is listed but lacks what LiteRT's accelerator requires), so the answer is a real compilation: one
ADD of two [1, 8, 8, 4] float tensors, which the accelerator delegates wherever it works at all;
and for `confirm --delegate gl`, the same model handed to the classic GL delegate."""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass

import numpy as np

from gpucompat.errors import GpucompatError

TIMEOUT = 60.0  # seconds: a software driver compiles the probe in a few


@dataclass
class ConfirmProbe:
    """Whether LiteRT's accelerator compiled the probe model on GPU, why not, and how long it took."""

    works: bool
    why: str | None
    seconds: float

    def record(self) -> dict:
        """JSON form."""
        return {"works": self.works, "why": self.why, "seconds": round(self.seconds, 2)}


def probe_model() -> bytes:
    """The probe: output = input + a constant, one delegable ADD."""
    from gpucompat.ir.build import Sketch

    s = Sketch()
    x = s.input("input", (1, 8, 8, 4))
    s.output(s.op("ADD", [x, s.const("bias", np.full((1, 8, 8, 4), 0.5, np.float32))], (1, 8, 8, 4)))
    return s.to_bytes()


def probe(launch) -> ConfirmProbe:
    """Compile the probe model on the accelerator with `launch` (runner.Launcher): it works when
    the GPU delegate took the ADD; otherwise the runtime's reason (for a missing device, what to
    install)."""
    from gpucompat.confirm import runner

    report, seconds = _probed(lambda path: runner.compile_models([path], launch, TIMEOUT)[0])
    if isinstance(report, ConfirmProbe):
        return report
    if not report.compiled:
        return ConfirmProbe(False, f"the probe model did not compile: {report.error}", seconds)
    if not sum(report.facts.gpu_ops.values()):
        return ConfirmProbe(False, "the accelerator compiled the probe model but put no op on the GPU", seconds)
    return ConfirmProbe(True, None, seconds)


def probe_gl(setup_dir: str | None = None) -> ConfirmProbe:
    """Can `confirm --delegate gl` run here: the classic GL delegate's set-up is there and it takes
    the probe model's ADD (an EGL / GL ES driver answered); else why not."""
    from gpucompat.confirm.gl_runner import GlJob, delegate_models, gl_launcher

    report, seconds = _probed(lambda path: delegate_models([GlJob(path)], gl_launcher(setup_dir), TIMEOUT)[0])
    if isinstance(report, ConfirmProbe):
        return report
    if report.gpu_nodes != 1:
        return ConfirmProbe(False, f"the GL delegate did not take the probe model: {report.reason or 'no reason'}",
                            seconds)
    return ConfirmProbe(True, None, seconds)


def _probed(run):
    """`run` (path -> the runtime's report) on the probe model written to a file: (its report, the
    seconds it took), or (a failed ConfirmProbe with the one-line error, the seconds)."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="gpucompat-probe-") as tmp:
        path = os.path.join(tmp, "probe.tflite")
        with open(path, "wb") as f:
            f.write(probe_model())
        try:
            report = run(path)
        except GpucompatError as e:
            return ConfirmProbe(False, str(e), time.monotonic() - start), time.monotonic() - start
    return report, time.monotonic() - start
