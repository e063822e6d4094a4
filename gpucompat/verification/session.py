"""A verify session: N runs (seeded random inputs, or the samples of --inputs) of the reference
interpreter on the whole model (or on the original model with --against; in float with the weights
dequantized for a hybrid-quantized model) and of hybrid execution, compared output by output under
the tolerance rule (a run past atol + rtol x max|ref| judged again against the reference's own
rounding sensitivity on it: sensitivity.py); the reference's own noise floor measured on the first
run; on failure, the first op whose recorded tensor diverges.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from gpucompat import ir
from gpucompat.errors import GpucompatError
from gpucompat.ir.signatures import make_main, reachable, signatures, subgraph_of
from gpucompat.npz_inputs import fits
from gpucompat.progress import status
from gpucompat.runners import OPENCL, Job, Runner, named, verify_choices
from gpucompat.verification import at_input_shape, budget, inputs, sensitivity, tolerance
from gpucompat.verification.comparison import OutputStats, ShapeMismatch
from gpucompat.verification.interpreter import reference_interpreter, run_reference
from gpucompat.verification.placements import placements_by_subgraph
from gpucompat.verification.real_gpu_forms import measured_profiles, summary, unproven_ops
from gpucompat.verification.reference_model import reference_model
from gpucompat.verification.task_metrics import TaskStats, classifier_like
from gpucompat.verification.tolerance import Tolerance, max_abs_error

SCHEMA_VERSION = 1
DEFAULT_RUNS = 50


@dataclass
class Settings:
    """What the command line asks for."""

    runs: int | None = None  # None: 50 seeded runs, or every sample of `inputs`
    precision: str = "fp32"
    device: str | None = None
    cache_dir: str | None = None
    profile: str = "gpu-current"
    atol: float | None = None
    rtol: float | None = None
    overrides: dict[str, Tolerance] = field(default_factory=dict)  # output name or index -> tolerance
    localize: bool = False
    against: str | None = None
    seed: int = 0
    runner: str = "opencl"  # the test side: a name in gpucompat/runners' table
    inputs: str | None = None  # a .npz or an image directory (gpucompat/sample_inputs.py): its samples are the runs
    normalization: object = None  # image_inputs.Normalization from the flags, for a directory of images
    inputs_described: str | None = None  # what the samples of `inputs` are, once read
    max_memory: int = budget.parse_size(budget.DEFAULT_MAX_MEMORY)  # bytes of tensors a run may allocate
    allow_class_flips: bool = False  # fp16: a top-1 flip on a classifier-like output is reported, not a failure
    signature: str | None = None  # run this signature's subgraph (None: the main subgraph)

    def tolerance(self, index: int, name: str) -> Tolerance:
        """The tolerance of one output: its override, else --atol / --rtol, else the precision's default."""
        for key in (name, str(index)):
            if key in self.overrides:
                return self.overrides[key]
        atol, rtol = tolerance.DEFAULTS[self.precision]
        return Tolerance(atol if self.atol is None else self.atol, rtol if self.rtol is None else self.rtol)


@dataclass
class VerifyResult:
    model: str
    settings: Settings
    device: str
    outputs: list[OutputStats]
    reference_ms: list[float]
    test_ms: list[float]
    init_ms: float
    ops_gpu: int
    ops_total: int
    runs: int = 0
    reference_kind: str = "as stored"
    noise_kernels: str = ""
    first_divergent_op: dict | None = None
    unproven: list | None = None  # real_gpu_forms.UnprovenOp of the delegated ops; None: ran on the real GPU

    @property
    def passed(self) -> bool:
        return all(o.passed for o in self.outputs)

    def verdict(self) -> str:
        """ "passed" / "failed", and on the executor what it does not prove: "passed on the
        executor; 1 op is known wrong on the real GPU: op#0 SUB [...]" (real_gpu_forms.py)."""
        word = "passed" if self.passed else "failed"
        if self.unproven is None:
            return word
        line = summary(self.unproven)
        return f"{word} on the executor; {line}" if line else f"{word} on the executor"

    def record(self) -> dict:
        """The JSON document (schema_version 1, the issue's field list)."""
        return {
            "schema_version": SCHEMA_VERSION, "model": self.model, "signature": self.settings.signature,
            "precision": self.settings.precision,
            "runs": self.runs, "inputs": self.settings.inputs_described or f"seeded random (seed {self.settings.seed})",
            "device": self.device,
            "reference": {"latency_ms": _latency(self.reference_ms), "model": self.reference_kind,
                          "noise_floor": self.noise_kernels},
            "test": {"latency_ms": _latency(self.test_ms), "init_ms": self.init_ms},
            "outputs": [o.record() for o in self.outputs],
            "passed": self.passed, "verdict": self.verdict(), "first_divergent_op": self.first_divergent_op,
            "real_gpu": None if self.unproven is None else {
                "profiles": measured_profiles(), "precision": self.settings.precision,
                "ops": [u.record() for u in self.unproven]},
        }


def _latency(ms: list[float]) -> dict:
    a = np.asarray(ms, np.float64)
    return {"avg": float(a.mean()) if a.size else 0.0, "std": float(a.std()) if a.size else 0.0}


def _signature_first(data: bytes, path: str, signature: str | None) -> tuple[bytes, ir.Model]:
    """The model read from `data`, with the subgraph `signature` runs made the main one (when it
    names one that is not)."""
    model = ir.from_bytes(data, path)
    index = 0 if signature is None else subgraph_of(model, signature, path)
    if index == 0:
        return data, model
    make_main(model, index)
    data = ir.to_bytes(model)
    return data, ir.from_bytes(data, path)


def signatures_to_run(path: str, settings: Settings) -> list[str | None]:
    """The signatures `verify` runs: the one asked for; else every signature, when the model's
    signatures run different subgraphs (an LLM export's prefill and decode); else the main
    subgraph alone (None)."""
    if settings.signature is not None:
        return [settings.signature]
    found = signatures(ir.load(path))
    return [name for name, _ in found] if len({index for _, index in found}) > 1 else [None]


def by_signature(model: str, results: list[VerifyResult]) -> dict:
    """The JSON document of a run over several signatures: each signature's own document (its
    "signature" names it), and whether every one passed."""
    return {"schema_version": SCHEMA_VERSION, "model": model, "signatures": [r.record() for r in results],
            "passed": all(r.passed for r in results)}


def verify_model(path: str, settings: Settings) -> VerifyResult:
    """Run the comparison; GpucompatError (exit 2) for anything that cannot be run."""
    from gpucompat.verification.hybrid import refuse_invalid_order

    if settings.runs is not None and settings.runs < 1:
        raise GpucompatError("--runs must be at least 1")
    stored = ir.reader.read_bytes(path)
    data, model = _signature_first(stored, path, settings.signature)
    ref_path = settings.against or path
    ref_bytes, original = _signature_first(ir.reader.read_bytes(ref_path), ref_path, settings.signature) \
        if settings.against else (data, None)
    refuse_invalid_order(model, path)
    if original is not None:
        refuse_invalid_order(original, ref_path)
    by_subgraph = placements_by_subgraph(model, settings.profile)
    # at the stored shapes before any input is drawn: a model claiming 4 GiB tensors is refused, not tried
    budget.enforce(path, budget.estimate(model, by_subgraph, settings.precision, original), settings.max_memory)
    runner = named(settings.runner, "--runner", verify_choices())
    if runner is OPENCL and any("gpu" in p for p in by_subgraph.values()):
        runner.start(settings.device)  # its probe overlaps with drawing inputs and the reference's preparation
    all_feeds = _feeds(model, settings)
    if at_input_shape.differs(model.graphs[0], all_feeds[0]):  # the test side runs the model frozen there
        original = original or model
        model = at_input_shape.frozen_at_feeds(model, all_feeds[0], settings.profile)
        data = ir.to_bytes(model)
        by_subgraph = placements_by_subgraph(model, settings.profile)
        budget.enforce(path, budget.estimate(model, by_subgraph, settings.precision, original), settings.max_memory)
    graph = model.graphs[0]
    where = [p for i in reachable(model) for p in by_subgraph[i]]  # the ops a run of this signature meets
    _refuse_other_signature(all_feeds[0], original or model)
    ref_bytes, changes = reference_model(ref_bytes, _gpu_side(runner, original or model, by_subgraph, original,
                                                              settings.profile), original or model)
    reference = _reference(ref_bytes, ref_path, all_feeds[0])
    job = Job(model, data, by_subgraph, all_feeds, settings.precision, settings.device, settings.cache_dir,
              path=path if data is stored else None, what=path)  # a moved signature or frozen shapes: not the file
    opened = runner.open(job)
    if opened.whole_on_gpu:
        where = ["gpu"] * len(where)  # the accelerator took every op
    forbid_flips = settings.precision == "fp16" and not settings.allow_class_flips
    outputs = [OutputStats(i, t.name, settings.tolerance(i, t.name), task=TaskStats(classifier_like(t)),
                           forbid_flips=forbid_flips) for i, t in enumerate(graph.outputs)]
    ref_ms, test_ms, pending, first_ref = [], [], [], None
    with status("comparing with the reference interpreter") as step:
        for run, feeds in enumerate(all_feeds):
            step.say(f"comparing with the reference interpreter: run {run + 1} of {len(all_feeds)}")
            t0 = time.perf_counter()
            ref = run_reference(reference, feeds)
            t1 = time.perf_counter()
            got = opened.run(feeds)
            t2 = time.perf_counter()
            ref_ms.append((t1 - t0) * 1e3)
            first_ref = ref if first_ref is None else first_ref
            if opened.timed:
                test_ms.append((t2 - t1) * 1e3)
            over = []
            for stats, g, r in zip(outputs, got, ref):
                t = graph.outputs[stats.index]
                try:
                    g, r = _as_float(t, g), _as_float(t, r)
                    if not stats.add(g, r):
                        over.append((stats, g, r))
                except ShapeMismatch as e:
                    raise GpucompatError(f"{path}: {e} (the model declares {t.shape})") from None
            pending += _judge_nudged(reference, graph, feeds, run, over)
    del reference  # the builtin kernels' interpreter takes its place: the budget counts one at a time
    with status("measuring the reference interpreter's noise floor"):
        builtin = _builtin(ref_bytes, ref_path, all_feeds[0])
        noise = _noise_floor(builtin, graph, outputs, all_feeds[0], first_ref)
        first_bad = _judge_builtin(builtin, graph, all_feeds, pending)
        del builtin
    result = VerifyResult(path, settings, opened.device, outputs, ref_ms, test_ms, opened.init_s * 1e3,
                          where.count("gpu"), len(where), runs=len(all_feeds), noise_kernels=noise,
                          reference_kind="; ".join(changes) or "as stored",
                          unproven=None if runner.real_delegate else unproven_ops(model, settings.precision))
    if settings.localize and first_bad is not None and runner.localize is not None and not settings.against:
        with status("looking for the first op whose output diverges"):
            result.first_divergent_op = runner.localize(job, opened, ref_bytes, all_feeds[first_bad],
                                                        settings.tolerance(-1, ""))
    return result


def _gpu_side(runner: Runner, reference: ir.Model, by_subgraph: dict[int, list[str]], original: ir.Model | None,
              profile: str) -> dict[int, list[str]]:
    """Where the reference computes the ops of its model as the test side's GPU does: as the
    runner says, from the simulated delegate's placements (of the --against original when there
    is one)."""
    return runner.reference_where(reference, placements_by_subgraph(original, profile) if original is not None
                                  else by_subgraph)


def _feeds(model: ir.Model, settings: Settings) -> list[list[np.ndarray]]:
    """The runs' input sets: every sample of --inputs (described in `settings`), else --runs
    seeded random sets (50 by default)."""
    if settings.inputs:
        from gpucompat.sample_inputs import load

        samples = load(settings.inputs, model, settings.normalization)
        settings.inputs_described = samples.description
        return samples.values
    return inputs.seeded(inputs.specs(model.graphs[0]), settings.seed, settings.runs or DEFAULT_RUNS)


def _judge_nudged(reference, graph: ir.Graph, feeds: list[np.ndarray], run: int,
                  over: list[tuple[OutputStats, np.ndarray, np.ndarray]]) -> list[tuple]:
    """Judge the outputs of one run that exceeded atol + rtol x max|ref| against the reference's
    spread under inputs nudged by one ulp (sensitivity.py); those still outside are returned as
    (run, stats, test, ref, sensitivity so far) for the builtin kernels to judge."""
    if not over:
        return []
    spreads = {id(stats): 0.0 for stats, _, _ in over}
    for draw in range(sensitivity.NUDGES):
        moved = run_reference(reference, sensitivity.nudged(feeds, run * sensitivity.NUDGES + draw))
        for stats, _, r in over:
            value = _as_float(graph.outputs[stats.index], moved[stats.index])
            spreads[id(stats)] = max(spreads[id(stats)], sensitivity.spread(r, value))
    left = []
    for stats, g, r in over:
        if stats.tolerance.failing(g, r, spreads[id(stats)]).any():
            left.append((run, stats, g, r, spreads[id(stats)]))
        else:
            stats.settle(g, r, spreads[id(stats)])
    return left


def _judge_builtin(builtin, graph: ir.Graph, all_feeds: list[list[np.ndarray]], pending: list[tuple]) -> int | None:
    """Settle the runs `_judge_nudged` left, with the builtin kernels' disagreement with XNNPACK
    counted in their sensitivity; the index of the first run with a failing output (None: none)."""
    first_bad, outputs_of = None, {}
    for run, stats, g, r, spread in pending:
        if builtin is not None and run not in outputs_of:
            outputs_of = {run: run_reference(builtin, all_feeds[run])}
        if builtin is not None:
            other = _as_float(graph.outputs[stats.index], outputs_of[run][stats.index])
            spread = max(spread, sensitivity.spread(r, other))
        if not stats.settle(g, r, spread) and first_bad is None:
            first_bad = run
    return first_bad


def _builtin(ref_bytes: bytes, ref_path: str, feeds: list[np.ndarray]):
    """The reference on its builtin kernels instead of XNNPACK, allocated at the inputs' shapes,
    or None when they cannot run it."""
    try:
        return reference_interpreter(ref_bytes, ref_path, xnnpack=False, input_shapes=[np.shape(f) for f in feeds])
    except GpucompatError:
        return None


def _noise_floor(builtin, graph: ir.Graph, outputs: list[OutputStats], feeds: list[np.ndarray],
                 first: list[np.ndarray]) -> str:
    """Run the reference's builtin kernels (None: they cannot run the model) on the first run's
    inputs (`first`: the XNNPACK reference's outputs there), and keep each output's largest
    disagreement between the two as its noise floor: how far two correct CPU implementations of
    the model differ. Returns what was compared."""
    if builtin is None:
        return "not measured (the builtin kernels cannot run the model)"
    for stats, a, b in zip(outputs, first, run_reference(builtin, feeds)):
        t = graph.outputs[stats.index]
        stats.noise_floor = max_abs_error(_as_float(t, a), _as_float(t, b))
    return "XNNPACK vs builtin kernels, first run"


def _reference(ref_bytes: bytes, ref_path: str, feeds: list[np.ndarray]):
    """The reference interpreter, allocated at the inputs' shapes; a model that cannot even
    prepare at its stored shape (a placeholder input) says how to run it at another."""
    try:
        return reference_interpreter(ref_bytes, ref_path, input_shapes=[np.shape(f) for f in feeds])
    except GpucompatError as e:
        inputs = ir.from_bytes(ref_bytes, ref_path).graphs[0].inputs
        if not any(t.is_dynamic for t in inputs):
            raise
        names = ", ".join(f"{t.name!r} {list(t.signature)}" for t in inputs)
        hint = "run it on --inputs of such a shape, or freeze it first (gpucompat fix --input-shape NAME=d0,d1,...)"
        raise GpucompatError(f"{str(e).rstrip('.')}; its inputs take other shapes ({names}): {hint}") from None


def _refuse_other_signature(feeds: list[np.ndarray], reference: ir.Model) -> None:
    """With --against the inputs must fit the original's signature too (adapters for
    signature-changing rewrites belong to `fix`)."""
    inputs = reference.graphs[0].inputs
    if len(inputs) != len(feeds) or not all(fits(f.shape, t) for f, t in zip(feeds, inputs)):
        got = [tuple(f.shape) for f in feeds]
        want = [tuple(t.signature) for t in inputs]
        raise GpucompatError(f"the two models have different input signatures ({got} vs {want})")


def _as_float(t: ir.Tensor, value: np.ndarray) -> np.ndarray:
    """Outputs compare in float: quantized outputs are dequantized first."""
    from gpucompat.opencl.executor import dequantize

    return dequantize(t, np.asarray(value))
