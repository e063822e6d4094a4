"""Numerical proof of a fix: the rewritten model against the original, on seeded inputs.

Each backend runs the fixed model on the inputs the original ran on and reports the worst
difference per output: the reference interpreter (ai_edge_litert's CPU interpreter) runs both;
hybrid execution on the included OpenCL executor (GPU partitions placed by the fix's profile, the
rest on the reference interpreter) runs the fixed model against the original on the reference
interpreter, the reference for what the model computes. The executor is built for the declared
input shapes, so there dynamic dimensions run at 1 (at 2 on the reference interpreter, so a batch
mix-up shows); a dimension the fix froze (freeze-shapes) runs at its frozen size on both models.
A backend that cannot run a model here (no OpenCL device, an op without a kernel) reports "not
run" and why, which does not fail the fix.

Inputs are two seeded random sets (inputs.py), or the samples of `--inputs`. Tolerances use the
package's one rule (tolerance.py: atol + rtol x the output's largest magnitude). On the reference
interpreter they follow the loosest safety class applied: `exact` rewrites must give identical
outputs (0 difference); `equivalent` and `signature` rewrites may differ by float rounding, at most
1e-5 of the output's largest magnitude. On the executor every class is held to verify's fp32
default: a rewrite that is exact on the CPU can still move ops between partitions and change float
rounding there. For a signature rewrite that adds an alpha channel, the rewritten model gets the
same RGB values plus a random alpha: its outputs must not depend on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from gpucompat import ir
from gpucompat.progress import status
from gpucompat.verification import inputs, tolerance
from gpucompat.verification.inputs import InputSpec
from gpucompat.verification.tolerance import Tolerance, max_abs_error

RELATIVE_TOLERANCE = 1e-5
SEED, RUNS = 0, 2  # two seeded random input sets
DYNAMIC_DIM = 2  # dynamic dimensions (batch) are run at 2, so a batch mix-up shows


@dataclass
class OutputDiff:
    """Worst absolute difference of one output and the bound it was held to."""

    name: str
    max_abs_diff: float
    bound: float

    @property
    def ok(self) -> bool:
        return self.max_abs_diff <= self.bound


class NotRun(Exception):
    """A backend cannot run a model on this machine: reported with its reason, not a failure."""


@dataclass
class Verification:
    """The verdict of one backend: pass, fail or not run, the tolerance, per-output differences."""

    backend: str
    tolerance: str
    outputs: list[OutputDiff] = field(default_factory=list)
    error: str | None = None
    not_run: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and all(o.ok for o in self.outputs)

    def record(self) -> dict:
        """JSON form."""
        return {"backend": self.backend, "ok": self.ok, "tolerance": self.tolerance, "error": self.error,
                "not_run": self.not_run,
                "outputs": [{"name": o.name, "max_abs_diff": o.max_abs_diff, "bound": o.bound, "ok": o.ok}
                            for o in self.outputs]}


@dataclass
class Verifications:
    """Every backend's verdict on one fix; it passes when none failed (a backend not run is no
    failure)."""

    results: list[Verification]

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    def record(self) -> dict:
        """JSON form: the reference interpreter's fields at the top (the first backend), the overall
        `ok`, and every backend's record under `backends`."""
        return {**self.results[0].record(), "ok": self.ok, "backends": [r.record() for r in self.results]}


Runner = Callable[[bytes, list[np.ndarray]], tuple[list[str], list[np.ndarray]]]


def tolerance_of(safeties: set[str]) -> Tolerance:
    """On the reference interpreter: 0 when every applied rewrite is exact, else 1e-5 relative."""
    if safeties <= {"exact"}:
        return Tolerance(0.0, 0.0, "exact")
    return Tolerance(0.0, RELATIVE_TOLERANCE, f"relative {RELATIVE_TOLERANCE:g}")


def executor_tolerance(safeties: set[str]) -> Tolerance:
    """On the executor: verify's fp32 default for every safety class."""
    atol, rtol = tolerance.DEFAULTS["fp32"]
    return tolerance.default("fp32", f"executor fp32: atol {atol:g}, rtol {rtol:g}")


@dataclass(frozen=True)
class Backend:
    """A way to run a model: name, a function (model bytes, inputs) -> (output names, values) that
    raises NotRun when it cannot, the tolerance it holds a set of safety classes to, the size it
    runs dynamic dimensions at, and where the original it is compared with runs."""

    name: str
    run: Runner
    tolerance_for: Callable[[set[str]], Tolerance] = tolerance_of
    dynamic_dim: int = DYNAMIC_DIM  # what dynamic dimensions are run at
    original_on: Runner | None = None  # where the original runs (None: on this backend too)


class ExecutorRun:
    """Hybrid execution as a Runner: GPU partitions (placed by `profile` under `options`) on the
    OpenCL executor, the rest on the reference interpreter; each model's runner is built once and
    kept for the next input set."""

    def __init__(self, profile: str, options=None):
        self.profile, self.options = profile, options
        self.runners: dict[bytes, object] = {}

    def __call__(self, model_bytes: bytes, inputs: list[np.ndarray]) -> tuple[list[str], list[np.ndarray]]:
        runner = self.runners.get(model_bytes) or self._build(model_bytes)
        if isinstance(runner, NotRun):
            raise runner
        for t, value in zip(runner.graph.inputs, inputs):
            if tuple(value.shape) != t.shape:
                raise NotRun(f"input {t.name!r} runs at {tuple(value.shape)}, the executor only at its "
                             f"declared shape {t.shape}")
        return [t.name for t in runner.graph.outputs], runner.run(inputs)

    def _build(self, model_bytes: bytes):
        from gpucompat.errors import GpucompatError
        from gpucompat.verification.hybrid import HybridRunner, open_runtime
        from gpucompat.verification.placements import placements_by_subgraph
        from gpucompat.verification.session import Settings

        model = ir.from_bytes(model_bytes)
        where = placements_by_subgraph(model, self.profile, self.options)
        try:
            runtime = open_runtime(Settings(), model_bytes) if any("gpu" in p for p in where.values()) else None
            runner = HybridRunner(model, where[0], runtime, called=where)
        except GpucompatError as e:  # no device, an op without a kernel: the executor cannot say
            runner = NotRun(str(e))
        self.runners[model_bytes] = runner
        return runner


def backends(profile: str = "gpu-current", options=None) -> list[Backend]:
    """Backends that verify a fix: the reference interpreter first, then the OpenCL executor."""
    return [Backend("reference-interpreter", run_reference),
            Backend("opencl-executor", ExecutorRun(profile, options), executor_tolerance, dynamic_dim=1,
                    original_on=ReferenceForExecutor(profile, options))]


def verify_everywhere(original: bytes, fixed: bytes, safeties: set[str], profile: str = "gpu-current",
                      options=None, samples: list[list[np.ndarray]] | None = None) -> Verifications:
    """`verify` on every backend (on `samples` when given: the user's representative inputs)."""
    return Verifications([verify(original, fixed, safeties, b, samples) for b in backends(profile, options)])


def run_reference(model_bytes: bytes, feeds: list[np.ndarray],
                  where: dict[int, list[str]] | None = None) -> tuple[list[str], list[np.ndarray]]:
    """The reference interpreter as a Runner: output names and values of `model_bytes` on `feeds`,
    run as verify runs its reference (reference_model.py; `where`: the delegate's placements,
    none on the GPU by default, so hybrid kernels stay as stored). The interpreter is allocated
    at the feeds' shapes: an original whose stored input shape is a placeholder runs at the
    frozen shape without ever being prepared at the placeholder."""
    from gpucompat.verification.interpreter import output_names, reference_interpreter
    from gpucompat.verification.interpreter import run_reference as run
    from gpucompat.verification.reference_model import reference_model

    data, _ = reference_model(model_bytes, where or {})
    it = reference_interpreter(data, "the model", input_shapes=[np.shape(f) for f in feeds])
    return output_names(it), run(it, feeds)


class ReferenceForExecutor:
    """The original on the reference interpreter as the executor's comparison: hybrid ops the
    delegate places on the GPU (under `profile` and `options`) computed in float, as verify does."""

    def __init__(self, profile: str, options=None):
        self.profile, self.options = profile, options
        self.where: dict[bytes, dict] = {}  # placements per model, worked out once for every run

    def __call__(self, model_bytes: bytes, feeds: list[np.ndarray]) -> tuple[list[str], list[np.ndarray]]:
        from gpucompat.verification.placements import placements_by_subgraph

        where = self.where.get(model_bytes)
        if where is None:
            where = self.where[model_bytes] = placements_by_subgraph(ir.from_bytes(model_bytes), self.profile,
                                                                     self.options)
        return run_reference(model_bytes, feeds, where)


def frozen_at(specs: list[InputSpec], before: list, after: list) -> list[InputSpec]:
    """The original's inputs (`before`: its input tensors), with every dimension it leaves dynamic
    and the fixed model (`after`) has frozen (freeze-shapes) at the fixed model's size: the
    original runs at the frozen shape."""
    out = []
    for spec, old, new in zip(specs, before, after):
        shape = spec.shape
        if len(old.signature) == len(new.signature):
            shape = tuple(f if s < 0 and f >= 0 else d for d, s, f in zip(shape, old.signature, new.signature))
        out.append(InputSpec(spec.name, shape, spec.dtype))
    return out


def _unfit(values: list[np.ndarray], specs: list[InputSpec], before: list, after: list) -> str | None:
    """Why samples cannot prove a model frozen at other shapes (`specs`: the shapes the original
    runs at; `before` / `after`: the two models' inputs), or None: the proof runs at the frozen
    shape."""
    for v, spec, old, new in zip(values, specs, before, after):
        frozen = len(old.signature) == len(new.signature) and any(
            s < 0 <= f for s, f in zip(old.signature, new.signature))
        if frozen and tuple(v.shape) != spec.shape:
            return (f"the samples of input {spec.name!r} are {tuple(v.shape)}, the fixed model is frozen at "
                    f"{spec.shape}: give samples of the frozen shape")
    return None


def input_specs(model_bytes: bytes, dynamic_dim: int = DYNAMIC_DIM) -> list[InputSpec]:
    """The model's inputs, dynamic dimensions fed at `dynamic_dim`."""
    return inputs.specs(ir.from_bytes(model_bytes).graphs[0], dynamic_dim)


def adapt(values: list[np.ndarray], fixed: list[InputSpec], seed: int) -> list[np.ndarray]:
    """The original's inputs made to fit the rewritten model: an input that gained channels
    (RGB -> RGBA) gets random values there, which the outputs must ignore."""
    gen = np.random.default_rng(1000 + seed)
    out = []
    for v, spec in zip(values, fixed):
        shape, dt = spec.shape, spec.dtype
        if v.shape != shape and v.shape[:-1] == shape[:-1] and shape[-1] > v.shape[-1]:
            extra = gen.uniform(-2, 2, shape[:-1] + (shape[-1] - v.shape[-1],)).astype(dt)
            v = np.concatenate([v, extra], axis=-1)
        out.append(v)
    return out


def verify(original: bytes, fixed: bytes, safeties: set[str], backend: Backend | None = None,
           samples: list[list[np.ndarray]] | None = None) -> Verification:
    """Compare `fixed` with `original` on seeded inputs, or on `samples` (input values per run)
    when given (on the reference interpreter unless `backend` says otherwise); every output within
    tolerance passes."""
    backend = backend or Backend("reference-interpreter", run_reference)
    tol = backend.tolerance_for(safeties)
    result = Verification(backend.name, tol.describe())
    before, after = ir.from_bytes(original).graphs[0], ir.from_bytes(fixed).graphs[0]
    fixed_specs = inputs.specs(after, backend.dynamic_dim)
    specs = frozen_at(inputs.specs(before, backend.dynamic_dim), before.inputs, after.inputs)
    if len(specs) != len(fixed_specs):
        result.error = f"the fixed model has {len(fixed_specs)} inputs, the original {len(specs)}"
        return result
    runs = samples if samples is not None else inputs.seeded(specs, SEED, RUNS)
    unfit = _unfit(runs[0], specs, before.inputs, after.inputs) if runs else None
    if unfit:
        result.error = unfit
        return result
    worst: dict[int, OutputDiff] = {}
    with status(f"verifying the fix on the {backend.name}") as step:
        for k, values in enumerate(runs):
            step.say(f"verifying the fix on the {backend.name}: input set {k + 1} of {len(runs)}")
            try:
                names, want = (backend.original_on or backend.run)(original, values)
                _, got = backend.run(fixed, adapt(values, fixed_specs, k))
            except NotRun as e:
                result.not_run = str(e)
                return result
            except Exception as e:  # the runtime's own error text is the finding
                result.error = f"{type(e).__name__}: {e}"
                return result
            if len(got) != len(want):
                result.error = f"the fixed model has {len(got)} outputs, the original {len(want)}"
                return result
            for i, (name, a, b) in enumerate(zip(names, want, got)):
                if a.shape != b.shape:
                    result.error = f"output {name!r} has shape {b.shape}, the original {a.shape}"
                    return result
                diff, bound = max_abs_error(b, a), tol.bound(a)
                if i not in worst or diff - bound > worst[i].max_abs_diff - worst[i].bound:
                    worst[i] = OutputDiff(name, diff, bound)
    result.outputs = [worst[i] for i in sorted(worst)]
    return result
