"""Numerical proof of a fix: the rewritten model against the original, on seeded inputs.

Each runner (gpucompat/runners/) runs the fixed model on the inputs the original ran on, and the
original runs on the reference interpreter (ai_edge_litert's CPU interpreter), the reference for
what the model computes; the worst difference per output is reported. The reference interpreter
and hybrid execution on the included OpenCL executor (GPU partitions placed by the fix's profile,
the rest on the reference interpreter) prove every fix; LiteRT's GPU accelerator proves it when
asked. The executor is built for the declared input shapes, so there dynamic dimensions run at 1
(at 2 on the reference interpreter, so a batch mix-up shows); a dimension the fix froze
(freeze-shapes) runs at its frozen size on both models. A runner that cannot run a model here (no
OpenCL device, an op without a kernel, no Vulkan device) reports "not run" and why, which does not
fail the fix.

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

from dataclasses import dataclass, field, replace

import numpy as np

from gpucompat import ir
from gpucompat.errors import GpucompatError
from gpucompat.progress import status
from gpucompat.runners import REFERENCE, RUNNERS, Job, NotRun, Runner
from gpucompat.verification import inputs
from gpucompat.verification.inputs import InputSpec
from gpucompat.verification.reference_model import hybrid_ops, with_float_weights
from gpucompat.verification.tolerance import Tolerance, max_abs_error

SEED, RUNS = 0, 2  # two seeded random input sets


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
    """The verdict of one runner (`backend`: its title): pass, fail or not run, the tolerance,
    per-output differences."""

    backend: str
    tolerance: str
    outputs: list[OutputDiff] = field(default_factory=list)
    error: str | None = None
    not_run: str | None = None
    original_failed: bool = False  # the error is the original model's own, on the proof's inputs

    @property
    def ok(self) -> bool:
        return self.error is None and all(o.ok for o in self.outputs)

    def record(self) -> dict:
        """JSON form."""
        return {"backend": self.backend, "ok": self.ok, "tolerance": self.tolerance, "error": self.error,
                "not_run": self.not_run, "original_failed": self.original_failed,
                "outputs": [{"name": o.name, "max_abs_diff": o.max_abs_diff, "bound": o.bound, "ok": o.ok}
                            for o in self.outputs]}


@dataclass
class Verifications:
    """Every runner's verdict on one fix; it passes when none failed (a runner not run is no
    failure)."""

    results: list[Verification]

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    def record(self) -> dict:
        """JSON form: the reference interpreter's fields at the top (the first runner), the overall
        `ok`, and every runner's record under `backends` (the field names of schema 1)."""
        return {**self.results[0].record(), "ok": self.ok, "backends": [r.record() for r in self.results]}


def placed(runner: Runner, model: ir.Model, profile: str, options) -> dict[int, list[str]]:
    """Where the simulated delegate puts `model`'s ops (under `profile` and `options`) for a runner
    that runs them so. For the others every op counts as on the GPU: a hybrid-quantized op (int8
    weights, float activations) is proved in float, as the GPU computes it. The CPU's hybrid
    kernels quantize the activations on the fly from the whole input tensor, so a rewrite that
    slices that tensor (subsample-1x1-conv) moves them by the activation rounding, about 1e-2,
    which says nothing about the rewrite (verification/reference_model.py)."""
    from gpucompat.verification.placements import placements_by_subgraph

    if runner.placed:
        return placements_by_subgraph(model, profile, options)
    return everywhere(model)


def everywhere(model: ir.Model) -> dict[int, list[str]]:
    """Every op of `model` placed on the GPU."""
    return {g.index: ["gpu"] * len(g.ops) for g in model.graphs}


def in_float(original: ir.Model, fixed: bytes) -> tuple[dict[int, list[str]], ir.Model, bytes]:
    """A hybrid-quantized model proved on a runner that places its ops, in float on both sides:
    the reference's placements for the original (every hybrid op dequantized, as the GPU reads
    it), and the fixed model with every hybrid op's weights stored dequantized, so its ops left on
    the CPU compute in float too. A fix that moves hybrid ops between the CPU and the GPU (a model
    that did not compile and now does) otherwise differs by the CPU kernels' activation
    quantization, about 1e-2, which says nothing about the rewrite; the placements stay those of
    the stored fixed model."""
    model = ir.from_bytes(fixed)
    with_float_weights(model, everywhere(model))
    data = ir.to_bytes(model)
    return everywhere(original), ir.from_bytes(data), data


def verify_everywhere(original: bytes, fixed: bytes, safeties: set[str], profile: str = "gpu-current",
                      options=None, samples: list[list[np.ndarray]] | None = None,
                      asked: tuple[Runner, ...] = ()) -> Verifications:
    """`verify` on every runner that proves every fix (the reference interpreter first, then the
    OpenCL executor), then on the `asked` ones (on `samples` when given: the user's representative
    inputs, which are the main subgraph's); for a model whose signatures run different subgraphs
    (an LLM export's prefill and decode), on each signature in turn, each verdict naming it."""
    chosen = dict.fromkeys([*(r for r in RUNNERS.values() if r.proves_every_fix), *asked])
    found = []
    for name, index, before, after in signature_pairs(original, fixed):
        for r in chosen:
            v = verify(before, after, safeties, r, samples if index == 0 else None, profile, options)
            if name is not None:
                v.backend = f"{v.backend}, signature {name}"
            found.append(v)
    return Verifications(found)


def signature_pairs(original: bytes, fixed: bytes) -> list[tuple[str | None, int, bytes, bytes]]:
    """(signature, its subgraph in the original, the original and the fixed model with that
    subgraph made the main one) for every signature when the signatures run different subgraphs;
    else the two models as they are (None, 0, ...)."""
    from gpucompat.ir.signatures import make_main, signatures, subgraph_of

    found = signatures(ir.from_bytes(original))
    if len({index for _, index in found}) <= 1:
        return [(None, 0, original, fixed)]

    def main(data: bytes, name: str) -> bytes:
        model = ir.from_bytes(data)
        make_main(model, subgraph_of(model, name, "the model"))
        return ir.to_bytes(model)

    return [(name, index, main(original, name), main(fixed, name)) for name, index in found]


def frozen_at(specs: list[InputSpec], before: list, after: list) -> list[InputSpec]:
    """The original's inputs (`before`: its input tensors), with every dimension it leaves dynamic
    and the fixed model (`after`) has frozen (freeze-shapes) at the fixed model's size: the
    original runs at the frozen shape."""
    out = []
    for spec, old, new in zip(specs, before, after):
        shape = spec.shape
        if len(old.signature) == len(new.signature):
            shape = tuple(f if s < 0 and f >= 0 else d for d, s, f in zip(shape, old.signature, new.signature))
        out.append(replace(spec, shape=shape))
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


def input_specs(model_bytes: bytes, dynamic_dim: int = REFERENCE.dynamic_dim) -> list[InputSpec]:
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


def verify(original: bytes, fixed: bytes, safeties: set[str], runner: Runner = REFERENCE,
           samples: list[list[np.ndarray]] | None = None, profile: str = "gpu-current",
           options=None) -> Verification:
    """Compare `fixed` on `runner` with `original` on the reference interpreter, on seeded inputs
    or on `samples` (input values per run) when given; every output within the runner's tolerance
    for `safeties` passes. A runner that runs the simulated delegate's placements places both
    models under `profile` and `options`. LiteRT's accelerator on a hybrid-quantized model is
    compared with the fixed model on the reference, its hybrid ops dequantized where the
    accelerator takes them and left to the CPU's hybrid kernels where it leaves them to LiteRT's
    CPU (as litert-mldrift places them, equal to the accelerator on every model measured): LiteRT's
    CPU quantizes their inputs on the fly, about 1e-2 off the float reference, which says nothing
    about the GPU; the reference interpreter's proof holds the fixed model to the original."""
    tol = runner.tolerance(safeties)
    result = Verification(runner.title, tol.describe())
    before_model, after_model = ir.from_bytes(original), ir.from_bytes(fixed)
    before, after = before_model.graphs[0], after_model.graphs[0]
    fixed_specs = inputs.specs(after, runner.dynamic_dim)
    specs = frozen_at(inputs.specs(before, runner.dynamic_dim), before.inputs, after.inputs)
    if len(specs) != len(fixed_specs):
        result.error = f"the fixed model has {len(fixed_specs)} inputs, the original {len(specs)}"
        return result
    runs = samples if samples is not None else inputs.seeded(specs, SEED, RUNS)
    unfit = _unfit(runs[0], specs, before.inputs, after.inputs) if runs else None
    if unfit:
        result.error = unfit
        return result
    adapted = [adapt(values, fixed_specs, k) for k, values in enumerate(runs)]
    worst: dict[int, OutputDiff] = {}
    with status(f"verifying the fix on the {runner.title}") as step:
        try:
            where = placed(runner, before_model, profile, options)
            got_where = placed(runner, after_model, profile, options)
            hybrid = bool(hybrid_ops(after_model, everywhere(after_model)))
            if runner.placed and hybrid:
                where, after_model, fixed = in_float(before_model, fixed)
            mirrored = hybrid and not runner.placed and runner is not REFERENCE
            if mirrored:  # LiteRT's accelerator: against the fixed model as it places it (see `verify`)
                want_on = REFERENCE.open(Job(after_model, fixed, runner.reference_where(after_model, got_where),
                                             adapted))
            else:
                want_on = REFERENCE.open(Job(before_model, original, where if runner is REFERENCE else
                                             runner.reference_where(before_model, where), runs))
            got_on = runner.open(Job(after_model, fixed, got_where, adapted))
            for k, values in enumerate(runs):
                step.say(f"verifying the fix on the {runner.title}: input set {k + 1} of {len(runs)}")
                try:
                    want = want_on.run(adapted[k] if mirrored else values)
                except GpucompatError as e:  # never the rewrite's fault: the original fails as it is
                    result.error, result.original_failed = f"the original model fails on these inputs: {e}", True
                    return result
                result.error = _compare(want, got_on.run(adapted[k]), before.outputs, tol, worst)
                if result.error:
                    return result
        except NotRun as e:
            result.not_run = str(e)
            return result
        except Exception as e:  # the runtime's own error text is the finding
            result.error = f"{type(e).__name__}: {e}"
            return result
    result.outputs = [worst[i] for i in sorted(worst)]
    return result


def _compare(want: list[np.ndarray], got: list[np.ndarray], outputs: list[ir.Tensor], tol: Tolerance,
             worst: dict[int, OutputDiff]) -> str | None:
    """Keep each output's worst difference of one input set in `worst`; why the two cannot be
    compared (another number of outputs, another shape), or None."""
    if len(got) != len(want):
        return f"the fixed model has {len(got)} outputs, the original {len(want)}"
    for i, (t, a, b) in enumerate(zip(outputs, want, got)):
        if a.shape != b.shape:
            return f"output {t.name!r} has shape {b.shape}, the original {a.shape}"
        diff, bound = max_abs_error(b, a), tol.bound(a)
        if i not in worst or diff - bound > worst[i].max_abs_diff - worst[i].bound:
            worst[i] = OutputDiff(t.name, diff, bound)
    return None
