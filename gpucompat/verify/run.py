"""The verify run: N seeded runs of the reference interpreter on the whole model (or on the original
model with --against) and of hybrid execution, compared output by output; on failure, the first op
whose recorded tensor diverges.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from gpucompat import ir
from gpucompat.errors import GpucompatError
from gpucompat.verify import budget
from gpucompat.verify.compare import DEFAULT_TOLERANCE, OutputStats, ShapeMismatch, Tolerance
from gpucompat.verify.inputs import random_inputs

SCHEMA_VERSION = 1


@dataclass
class Settings:
    """What the command line asks for."""

    runs: int = 50
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
    backend: str = "opencl"  # or "litert-gpu": LiteRT's real GPU accelerator (fp32, or its default fp16)
    inputs: str | None = None  # a .npz of representative inputs (gpucompat/npz_inputs.py): its samples are the runs
    max_memory: int = budget.parse_size(budget.DEFAULT_MAX_MEMORY)  # bytes of tensors a run may allocate

    def tolerance(self, index: int, name: str) -> Tolerance:
        """The tolerance of one output: its override, else --atol / --rtol, else the precision's default."""
        for key in (name, str(index)):
            if key in self.overrides:
                return self.overrides[key]
        atol, rtol = DEFAULT_TOLERANCE[self.precision]
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
    first_divergent_op: dict | None = None

    @property
    def passed(self) -> bool:
        return all(o.passed for o in self.outputs)

    def record(self) -> dict:
        """The JSON document (schema_version 1, the issue's field list)."""
        return {
            "schema_version": SCHEMA_VERSION, "model": self.model, "precision": self.settings.precision,
            "runs": self.settings.runs, "device": self.device,
            "reference": {"latency_ms": _latency(self.reference_ms)},
            "test": {"latency_ms": _latency(self.test_ms), "init_ms": self.init_ms},
            "outputs": [o.record() for o in self.outputs],
            "passed": self.passed, "first_divergent_op": self.first_divergent_op,
        }


def _latency(ms: list[float]) -> dict:
    a = np.asarray(ms, np.float64)
    return {"avg": float(a.mean()) if a.size else 0.0, "std": float(a.std()) if a.size else 0.0}


def placements_by_subgraph(model: ir.Model, profile_name: str, options=None) -> dict[int, list[str]]:
    """Where the simulated delegate puts each op ("gpu" / "cpu"), per subgraph index, under the
    profile and check options (the defaults when None)."""
    from gpucompat.placement import check_model
    from gpucompat.rules import registry
    from gpucompat.rules.profile import Options

    result = check_model(model, registry.get(profile_name), options or Options())
    where: dict[int, list[str]] = {i: [] for i in range(len(model.graphs))}
    for o in result.ops:
        where[o.subgraph].append(o.placement)
    return where


def placements(model: ir.Model, profile_name: str) -> list[str]:
    """Where the simulated delegate puts each op of the main subgraph ("gpu" / "cpu")."""
    return placements_by_subgraph(model, profile_name)[0]


def open_runtime(settings: Settings, model_bytes: bytes):
    """The OpenCL runtime with the model's program cache."""
    from gpucompat.opencl.cache import ProgramCache, default_dir, fingerprint
    from gpucompat.opencl.device import choose
    from gpucompat.opencl.runtime import Runtime

    device = choose(settings.device)
    directory = settings.cache_dir if settings.cache_dir is not None else default_dir()
    cache = ProgramCache(directory or None, device.key, fingerprint(model_bytes), settings.precision)
    return Runtime(device, settings.precision, cache)


def verify_model(path: str, settings: Settings) -> VerifyResult:
    """Run the comparison; GpucompatError (exit 2) for anything that cannot be run."""
    from gpucompat.opencl.executor import UnsupportedOp
    from gpucompat.opencl.hybrid import HybridRunner, reference_interpreter, refuse_invalid_order, run_reference

    if settings.runs < 1:
        raise GpucompatError("--runs must be at least 1")
    data = ir.reader.read_bytes(path)
    model = ir.from_bytes(data, path)
    ref_path = settings.against or path
    ref_bytes = ir.reader.read_bytes(ref_path) if settings.against else data
    by_subgraph = placements_by_subgraph(model, settings.profile)
    original = ir.from_bytes(ref_bytes, ref_path) if settings.against else None
    refuse_invalid_order(model, path)
    if original is not None:
        refuse_invalid_order(original, ref_path)
    budget.enforce(path, budget.estimate(model, by_subgraph, settings.precision, original), settings.max_memory)
    reference = reference_interpreter(ref_bytes, ref_path)
    where = [p for ps in by_subgraph.values() for p in ps]
    graph = model.graphs[0]
    if settings.inputs:
        from gpucompat.npz_inputs import load_samples

        all_feeds = load_samples(settings.inputs, graph.inputs)
        settings.runs = len(all_feeds)
    else:
        gen = np.random.default_rng(settings.seed)
        all_feeds = [random_inputs(graph, gen) for _ in range(settings.runs)]
    runtime = None
    if settings.backend == "litert-gpu":
        device, init_s, run_test, timed = _on_accelerator(path, graph, all_feeds, settings.precision)
        where = ["gpu"] * len(where)  # the accelerator took every op, or it refused above
    else:
        runtime = open_runtime(settings, data) if "gpu" in where else None
        try:
            runner = HybridRunner(model, by_subgraph[0], runtime, called=by_subgraph)
        except UnsupportedOp as e:
            raise GpucompatError(f"{path}: the executor cannot run it: {e}") from None
        device = runtime.device.name if runtime else "none (every op runs on the CPU)"
        init_s, run_test, timed = runner.init_s, runner.run, True
    outputs = [OutputStats(i, t.name, settings.tolerance(i, t.name)) for i, t in enumerate(graph.outputs)]
    ref_ms, test_ms, first_bad = [], [], None
    for feeds in all_feeds:
        t0 = time.perf_counter()
        ref = run_reference(reference, _adapted(feeds, reference))
        t1 = time.perf_counter()
        got = run_test(feeds)
        t2 = time.perf_counter()
        ref_ms.append((t1 - t0) * 1e3)
        if timed:
            test_ms.append((t2 - t1) * 1e3)
        for stats, g, r in zip(outputs, got, ref):
            try:
                stats.add(_as_float(graph.outputs[stats.index], g), _as_float(graph.outputs[stats.index], r))
            except ShapeMismatch as e:
                declared = graph.outputs[stats.index].shape
                raise GpucompatError(f"{path}: {e} (the model declares {declared})") from None
        if first_bad is None and not all(o.passed for o in outputs):
            first_bad = feeds
    result = VerifyResult(path, settings, device, outputs, ref_ms, test_ms, init_s * 1e3, where.count("gpu"),
                          len(where))
    if settings.localize and first_bad is not None and runtime is not None and not settings.against:
        from gpucompat.verify.localize import first_divergent_op

        result.first_divergent_op = first_divergent_op(model, data, by_subgraph, runtime, first_bad, settings)
    return result


def _on_accelerator(path: str, graph: ir.Graph, all_feeds: list[list[np.ndarray]], precision: str):
    """Every run on LiteRT's GPU accelerator in one child process, up front, at `precision` (fp16:
    the accelerator's default): (device, seconds the child took, a function handing out each run's
    outputs in turn, False: no per-run latency)."""
    from gpucompat.confirm.infer import run_on_accelerator
    from gpucompat.confirm.runner import launcher

    t0 = time.perf_counter()
    results = iter(run_on_accelerator(path, all_feeds, [t.index for t in graph.inputs],
                                      [t.index for t in graph.outputs], precision=precision))
    mode = precision if precision == "fp32" else "default precision (fp16)"
    device = f"LiteRT GPU accelerator, {mode} ({launcher().driver})"
    return device, time.perf_counter() - t0, lambda feeds: next(results), False


def _adapted(feeds: list[np.ndarray], interpreter) -> list[np.ndarray]:
    """Inputs for the reference side; with --against a rewritten model's inputs must match the
    original's signature (adapters for signature-changing rewrites belong to `fix`)."""
    details = interpreter.get_input_details()
    if len(details) != len(feeds) or any(tuple(d["shape"]) != f.shape for d, f in zip(details, feeds)):
        got = [tuple(f.shape) for f in feeds]
        want = [tuple(int(x) for x in d["shape"]) for d in details]
        raise GpucompatError(f"the two models have different input signatures ({got} vs {want})")
    return feeds


def _as_float(t: ir.Tensor, value: np.ndarray) -> np.ndarray:
    """Outputs compare in float: quantized outputs are dequantized first."""
    from gpucompat.opencl.executor import dequantize

    return dequantize(t, np.asarray(value))
