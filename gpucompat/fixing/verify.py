"""Numerical proof of a fix: the rewritten model against the original, on seeded inputs.

Each backend runs both models on the same inputs and reports the worst difference per output.
The reference interpreter (ai_edge_litert's CPU interpreter) is the one backend today; the OpenCL
executor plugs in by adding a `Backend` to `backends()`, and is then asked the same question.

Tolerance follows the loosest safety class applied: `exact` rewrites must give identical outputs
(0 difference); `equivalent` and `signature` rewrites may differ by float rounding, at most
1e-5 of the output's largest magnitude. For a signature rewrite that adds an alpha channel, the
rewritten model gets the same RGB values plus a random alpha: its outputs must not depend on it.
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


@dataclass
class Verification:
    """The verdict of one backend: pass or fail, the tolerance, per-output differences."""

    backend: str
    tolerance: str
    outputs: list[OutputDiff] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and all(o.ok for o in self.outputs)

    def record(self) -> dict:
        """JSON form."""
        return {"backend": self.backend, "ok": self.ok, "tolerance": self.tolerance, "error": self.error,
                "outputs": [{"name": o.name, "max_abs_diff": o.max_abs_diff, "bound": o.bound, "ok": o.ok}
                            for o in self.outputs]}


Runner = Callable[[bytes, list[np.ndarray]], tuple[list[str], list[np.ndarray]]]


@dataclass(frozen=True)
class Backend:
    """A way to run a model: name and a function (model bytes, inputs) -> (output names, values)."""

    name: str
    run: Runner


def backends() -> list[Backend]:
    """Backends that verify a fix, reference interpreter first."""
    return [Backend("reference-interpreter", run_reference)]


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


def input_shapes(model_bytes: bytes) -> list[tuple[tuple[int, ...], np.dtype]]:
    """Shape (dynamic dimensions set to DYNAMIC_DIM) and dtype of every input, in order."""
    from ai_edge_litert.interpreter import Interpreter

    it = Interpreter(model_content=model_bytes)
    out = []
    for d in it.get_input_details():
        sig = d.get("shape_signature")
        dims = [DYNAMIC_DIM if s < 0 else s for s in (sig if sig is not None and len(sig) else d["shape"])]
        out.append((tuple(int(x) for x in dims), np.dtype(d["dtype"])))
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


def tolerance_of(safeties: set[str]) -> str:
    """'exact' when every applied rewrite is exact, else 'relative 1e-05'."""
    return "exact" if safeties <= {"exact"} else f"relative {RELATIVE_TOLERANCE:g}"


def verify(original: bytes, fixed: bytes, safeties: set[str], backend: Backend | None = None) -> Verification:
    """Compare `fixed` with `original` on seeded inputs; every output within tolerance passes."""
    backend = backend or backends()[0]
    tolerance = tolerance_of(safeties)
    result = Verification(backend.name, tolerance)
    shapes, fixed_shapes = input_shapes(original), input_shapes(fixed)
    if len(shapes) != len(fixed_shapes):
        result.error = f"the fixed model has {len(fixed_shapes)} inputs, the original {len(shapes)}"
        return result
    worst: dict[int, OutputDiff] = {}
    for seed in SEEDS:
        values = seeded_inputs(shapes, seed)
        try:
            names, want = backend.run(original, values)
            _, got = backend.run(fixed, adapt(values, fixed_shapes, seed))
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
            bound = 0.0 if tolerance == "exact" else RELATIVE_TOLERANCE * max(float(np.max(np.abs(a), initial=0)), 1e-30)
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
