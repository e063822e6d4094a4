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

Tolerance on the reference interpreter follows the loosest safety class applied: `exact` rewrites
must give identical outputs (0 difference); `equivalent` and `signature` rewrites may differ by
float rounding, at most 1e-5 of the output's largest magnitude. On the executor every class is
held to its fp32 tolerance (atol 1e-5, rtol 1e-5 of the largest magnitude): a rewrite that is
exact on the CPU can still move ops between partitions and change float rounding there. For a
signature rewrite that adds an alpha channel, the rewritten model gets the same RGB values plus a
random alpha: its outputs must not depend on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

RELATIVE_TOLERANCE = 1e-5
SEEDS = (0, 1)
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


@dataclass(frozen=True)
class Tolerance:
    """How far an output may drift: max(atol, rtol x the original's largest magnitude)."""

    label: str
    atol: float
    rtol: float

    def bound(self, want: np.ndarray) -> float:
        """The largest absolute difference allowed on an output whose original value is `want`."""
        return max(self.atol, self.rtol * max(float(np.max(np.abs(want), initial=0)), 1e-30))


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
        return Tolerance("exact", 0.0, 0.0)
    return Tolerance(f"relative {RELATIVE_TOLERANCE:g}", 0.0, RELATIVE_TOLERANCE)


def executor_tolerance(safeties: set[str]) -> Tolerance:
    """On the executor: its fp32 tolerance for every safety class (gpucompat/verify/compare.py)."""
    from gpucompat.verify.compare import DEFAULT_TOLERANCE

    atol, rtol = DEFAULT_TOLERANCE["fp32"]
    return Tolerance(f"executor fp32: atol {atol:g}, rtol {rtol:g}", atol, rtol)


@dataclass(frozen=True)
class Backend:
    """A way to run a model: name, a function (model bytes, inputs) -> (output names, values) that
    raises NotRun when it cannot, the tolerance it holds a set of safety classes to, the size it
    runs dynamic dimensions at, and where the original it is compared with runs."""

    name: str
    run: Runner
    tolerance: Callable[[set[str]], Tolerance] = tolerance_of
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
        from gpucompat import ir
        from gpucompat.errors import GpucompatError
        from gpucompat.opencl.hybrid import HybridRunner
        from gpucompat.verify.run import Settings, open_runtime, placements_by_subgraph

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
                    original_on=run_reference)]


def verify_everywhere(original: bytes, fixed: bytes, safeties: set[str], profile: str = "gpu-current",
                      options=None, samples: list[list[np.ndarray]] | None = None) -> Verifications:
    """`verify` on every backend (on `samples` when given: the user's representative inputs)."""
    return Verifications([verify(original, fixed, safeties, b, samples) for b in backends(profile, options)])


def run_reference(model_bytes: bytes, inputs: list[np.ndarray]) -> tuple[list[str], list[np.ndarray]]:
    """Run the reference CPU interpreter on `inputs` (one array per model input, in order)."""
    from ai_edge_litert.interpreter import Interpreter

    it = Interpreter(model_content=model_bytes)
    for d, value in zip(it.get_input_details(), inputs):
        if tuple(d["shape"]) != value.shape:
            it.resize_tensor_input(d["index"], list(value.shape))
    it.allocate_tensors()
    for d, value in zip(it.get_input_details(), inputs):
        it.set_tensor(d["index"], value)
    it.invoke()
    details = it.get_output_details()
    return [d["name"] for d in details], [it.get_tensor(d["index"]).copy() for d in details]


def input_shapes(model_bytes: bytes, dynamic_dim: int = DYNAMIC_DIM) -> list[tuple[tuple[int, ...], np.dtype]]:
    """Shape (dynamic dimensions set to `dynamic_dim`) and dtype of every input, in order."""
    return [(tuple(dynamic_dim if s < 0 else s for s in sig), dt) for sig, dt in input_signatures(model_bytes)]


def input_signatures(model_bytes: bytes) -> list[tuple[tuple[int, ...], np.dtype]]:
    """Shape signature (-1: dynamic) and dtype of every input, in order."""
    from ai_edge_litert.interpreter import Interpreter

    it = Interpreter(model_content=model_bytes)
    out = []
    for d in it.get_input_details():
        sig = d.get("shape_signature")
        out.append((tuple(int(x) for x in (sig if sig is not None and len(sig) else d["shape"])), np.dtype(d["dtype"])))
    return out


def frozen_at(shapes: list[tuple[tuple[int, ...], np.dtype]], original: bytes, fixed: bytes):
    """The original's input shapes, with every dimension it leaves dynamic and the fixed model
    has frozen (freeze-shapes) at the fixed model's size: the original runs at the frozen shape."""
    out = []
    for (shape, dt), (sig, _), (fixed_sig, _) in zip(shapes, input_signatures(original), input_signatures(fixed)):
        if len(sig) == len(fixed_sig):
            shape = tuple(f if s < 0 and f >= 0 else d for d, s, f in zip(shape, sig, fixed_sig))
        out.append((shape, dt))
    return out


def seeded_inputs(shapes: list[tuple[tuple[int, ...], np.dtype]], seed: int) -> list[np.ndarray]:
    """Reproducible values for every input: normal floats, small integers, random booleans."""
    gen = np.random.default_rng(seed)
    values = []
    for shape, dt in shapes:
        if dt.kind == "f":
            values.append(gen.standard_normal(shape).astype(dt))
        elif dt == np.bool_:
            values.append(gen.integers(0, 2, shape).astype(bool))
        else:
            info = np.iinfo(dt)
            values.append(gen.integers(max(info.min, -100), min(info.max, 100), shape).astype(dt))
    return values


def adapt(values: list[np.ndarray], shapes: list[tuple[tuple[int, ...], np.dtype]], seed: int) -> list[np.ndarray]:
    """The original's inputs made to fit the rewritten model: an input that gained channels
    (RGB -> RGBA) gets random values there, which the outputs must ignore."""
    gen = np.random.default_rng(1000 + seed)
    out = []
    for v, (shape, dt) in zip(values, shapes):
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
    tolerance = backend.tolerance(safeties)
    result = Verification(backend.name, tolerance.label)
    shapes, fixed_shapes = input_shapes(original, backend.dynamic_dim), input_shapes(fixed, backend.dynamic_dim)
    shapes = frozen_at(shapes, original, fixed)
    if len(shapes) != len(fixed_shapes):
        result.error = f"the fixed model has {len(fixed_shapes)} inputs, the original {len(shapes)}"
        return result
    worst: dict[int, OutputDiff] = {}
    runs = samples if samples is not None else [seeded_inputs(shapes, seed) for seed in SEEDS]
    for seed, values in enumerate(runs):
        try:
            names, want = (backend.original_on or backend.run)(original, values)
            _, got = backend.run(fixed, adapt(values, fixed_shapes, seed))
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
            diff = _max_diff(a, b)
            bound = tolerance.bound(a)
            if i not in worst or diff - bound > worst[i].max_abs_diff - worst[i].bound:
                worst[i] = OutputDiff(name, diff, bound)
    result.outputs = [worst[i] for i in sorted(worst)]
    return result


def _max_diff(a: np.ndarray, b: np.ndarray) -> float:
    """Largest absolute difference; NaN where only one side is NaN counts as infinite."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    both_nan = np.isnan(a64) & np.isnan(b64)
    d = np.where(both_nan, 0.0, np.abs(a64 - b64))
    d = np.where(np.isnan(d), np.inf, d)
    return float(np.max(d, initial=0.0))
