"""The Runner protocol: one way to run a model (the reference interpreter, the OpenCL executor,
LiteRT's GPU accelerator), as `verify` runs its test side and `fix` proves a rewrite.

A runner opens a Job (the model, where the simulated delegate places its ops, every input set it
will be asked for) and hands back an Opened model that runs one input set at a time. It names the
tolerance a fix's proof holds it to, and may offer a recording hook that localises the first op
whose output diverges from the reference interpreter's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from gpucompat.errors import GpucompatError

if TYPE_CHECKING:  # the table is read when the CLI starts: numpy and the IR load when a model runs
    import numpy as np

    from gpucompat import ir
    from gpucompat.verification.tolerance import Tolerance


class NotRun(GpucompatError):
    """A runner cannot run a model on this machine (no device, no kernel for an op): `verify`
    stops with the reason (exit 2); a fix's proof reports it as "not run", not as a failure.
    `lines`: how the command line prints it, when the cause gave one line per device."""

    def __init__(self, message: str, lines: list[str] | None = None) -> None:
        super().__init__(message)
        self._lines = lines

    def lines(self) -> list[str]:
        return self._lines or [str(self)]


@dataclass
class Job:
    """What a runner runs: the model (`model` read from `data`; `path` the file holding exactly
    `data`, None for a copy changed in memory; `what` how messages name it), the simulated
    delegate's placements per subgraph, every input set it will be asked to run (the accelerator
    runs them all in one child process), and the settings a runner reads."""

    model: ir.Model
    data: bytes
    where: dict[int, list[str]]
    feeds: list[list[np.ndarray]]
    precision: str = "fp32"
    device: str | None = None  # OpenCL device: index or part of its name (None: a GPU, else PoCL)
    cache_dir: str | None = None  # compiled-program cache (None: the user cache directory, "": none)
    path: str | None = None
    what: str = "the model"


@dataclass
class Opened:
    """A model opened on a runner: the device it runs on, the seconds opening took, `run` (one
    input set's outputs, in the model's output order), whether `run`'s latency is the runner's own
    (False: every input set ran up front), whether every op ran on the GPU, and what the recording
    hook needs again (the executor's OpenCL runtime)."""

    device: str
    init_s: float
    run: Callable[[list[np.ndarray]], list[np.ndarray]]
    timed: bool = True
    whole_on_gpu: bool = False
    state: object = None


# (the job, the model opened on it, the reference's model bytes, the input set of the first failing
# run, the tolerance an intermediate is held to) -> the first divergent op's record, or None
Localize = Callable[["Job", "Opened", bytes, "list[np.ndarray]", "Tolerance"], "dict | None"]


class Runner(Protocol):
    """One way to run a model. `name` is its key in the table (what `verify --runner` and `fix
    --verify-on` take), `title` what fix's records and progress lines call it, `about` its line in
    --help."""

    name: str
    title: str
    about: str
    default_runs: int  # verify's runs when --runs is not given
    dynamic_dim: int  # the size a fix's proof feeds dynamic dimensions at
    placed: bool  # runs the ops where the simulated delegate places them (a fix's proof works those out for it)
    proves_every_fix: bool  # fix proves on it unasked (else only with --verify-on)
    real_delegate: bool  # it is a real GPU delegate: what it computes needs no calibration's word beside it
    localize: Localize | None  # the recording hook for --localize (None: the runner has none)

    def open(self, job: Job) -> Opened:
        """The model opened on this runner; NotRun when it cannot run here."""

    def tolerance(self, safeties: set[str]) -> Tolerance:
        """The tolerance a fix's proof holds the rewritten model to, for the safety classes applied."""

    def reference_where(self, model: ir.Model, where: dict[int, list[str]]) -> dict[int, list[str]]:
        """Where the reference interpreter, which this runner is compared with, computes `model`'s
        ops as the GPU does (`where`: the simulated delegate's placements)."""


NOISE_RTOL = 1e-3  # fp32 noise: of the output's largest magnitude (the calibration grid's threshold)


def fp32_noise(safeties: set[str]) -> Tolerance:
    """The tolerance a real GPU delegate's proof of a fix is held to, for every safety class: fp32
    noise, NOISE_RTOL of the output's largest magnitude."""
    from gpucompat.verification.tolerance import Tolerance

    return Tolerance(0.0, NOISE_RTOL, f"fp32 noise: {NOISE_RTOL:g} of the largest output")
