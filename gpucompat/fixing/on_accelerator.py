"""Verifying a fix on LiteRT's real GPU accelerator: the fixed model runs there (in fp32; ops it
does not take on LiteRT's CPU) and is compared with the original on the reference interpreter, to
fp32 noise (1e-3 of the output's largest magnitude). It shows that a rewrite aimed at a form the
accelerator computes wrongly (GPU005) gives the right numbers there. No Vulkan device: "not run"."""

from __future__ import annotations

import os
import tempfile

import numpy as np

from gpucompat.verification.fix_proof import Backend, NotRun, run_reference
from gpucompat.verification.tolerance import Tolerance

NOISE = Tolerance(0.0, 1e-3, "fp32 noise: 1e-3 of the largest output")


def run_on_litert(model_bytes: bytes, inputs: list[np.ndarray]) -> tuple[list[str], list[np.ndarray]]:
    """A Runner (gpucompat/verification/fix_proof.py) on the accelerator; NotRun without a Vulkan device."""
    from gpucompat import ir
    from gpucompat.confirm.infer import run_on_accelerator
    from gpucompat.confirm.runner import NoDevice

    graph = ir.from_bytes(model_bytes).graphs[0]
    with tempfile.TemporaryDirectory(prefix="gpucompat-fix-") as tmp:
        path = os.path.join(tmp, "fixed.tflite")
        with open(path, "wb") as f:
            f.write(model_bytes)
        try:
            run = run_on_accelerator(path, [inputs], [t.index for t in graph.inputs], [t.index for t in graph.outputs],
                                     partly=True)
        except NoDevice as e:
            raise NotRun(str(e)) from None
    return [t.name for t in graph.outputs], run.outputs[0]


def backend() -> Backend:
    """The accelerator as a verification backend (dynamic dimensions at 1, as on the executor)."""
    return Backend("litert-gpu", run_on_litert, lambda safeties: NOISE, dynamic_dim=1, original_on=run_reference)
