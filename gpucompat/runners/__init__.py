"""Who runs a model: one table of runners by name (what `verify --runner` and `fix --verify-on`
take), each following the Runner protocol (base.py). The reference interpreter (reference.py), the
included OpenCL executor (opencl.py), LiteRT's real GPU accelerator (litert_gpu/) and the classic GL
delegate (gl_delegate.py). `--backend`
elsewhere is the delegate's API (cl, gl, metal), not a runner."""

from __future__ import annotations

from gpucompat.errors import GpucompatError
from gpucompat.runners.base import Job, NotRun, Opened, Runner
from gpucompat.runners.gl_delegate import GL_DELEGATE
from gpucompat.runners.litert_gpu.accelerator import LITERT_GPU
from gpucompat.runners.opencl import OPENCL
from gpucompat.runners.reference import REFERENCE

__all__ = ["Job", "NotRun", "Opened", "Runner", "RUNNERS", "REFERENCE", "OPENCL", "REAL_GPU", "named",
           "verify_choices", "on_request"]

RUNNERS: dict[str, Runner] = {r.name: r for r in (REFERENCE, OPENCL, LITERT_GPU, GL_DELEGATE)}
REAL_GPU: Runner = LITERT_GPU  # the runner that is the real accelerator: a fix it passed is proven on a GPU


def verify_choices() -> list[str]:
    """The runners `verify` can test against the reference interpreter: every one but the reference."""
    return [name for name, r in RUNNERS.items() if r is not REFERENCE]


def on_request() -> list[str]:
    """The runners a fix is proven on only when asked (`fix --verify-on`)."""
    return [name for name, r in RUNNERS.items() if not r.proves_every_fix]


def named(name: str, option: str, choices: list[str]) -> Runner:
    """The runner called `name`, one of `choices`; a one-line GpucompatError naming `option` otherwise."""
    if name not in choices:
        raise GpucompatError(f"{option} must be one of {', '.join(choices)}, got {name!r}")
    return RUNNERS[name]
