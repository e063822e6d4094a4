"""Hybrid execution, the runner: the ops the simulated delegate takes run on the OpenCL executor,
the rest on the reference interpreter (cut out as sub-models), control flow in Python
(control_flow.py), in the model's execution order; tensors cross at the boundaries as on a device
(BHWC host memory, dequantized into the GPU side and quantized back out of it). Constants are
folded at load (constant_folding.py) and shapes are the ones the runtime prepares
(prepared_shapes.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from gpucompat import ir
from gpucompat.errors import GpucompatError
from gpucompat.ir import dtypes
from gpucompat.ir.signatures import subgraph_calls
from gpucompat.ir.submodel import cut
from gpucompat.opencl.executor import Executor, RecordingExecutor
from gpucompat.opencl.runtime import Runtime
from gpucompat.progress import status
from gpucompat.verification.constant_folding import fold_constants
from gpucompat.verification.control_flow import CONTROL_FLOW, ControlSegment
from gpucompat.verification.interpreter import reference_interpreter, run_reference
from gpucompat.verification.prepared_shapes import with_prepared_shapes


@dataclass
class Segment:
    """A maximal run of consecutive ops with the same placement."""

    placement: str
    ops: list[ir.Op]
    inputs: list[ir.Tensor] = field(default_factory=list)
    outputs: list[ir.Tensor] = field(default_factory=list)


def refuse_invalid_order(model: ir.Model, what: str) -> None:
    """A one-line error when a subgraph's execution plan is not a topological order (an op reading
    its own output, a cycle): the runtime executes the plan as written and would read tensors
    nothing has written yet (subgraph.cc Invoke; the interpreter may crash on it)."""
    for i, graph in enumerate(model.graphs):
        problem = graph.topological_problem()
        if problem:
            raise GpucompatError(f"{what}: subgraph {i} cannot be run, its execution order is invalid: {problem}")


def segments(graph: ir.Graph, placements: list[str], skip: set[int]) -> list[Segment]:
    """Split the execution plan into runs of one placement (ops in `skip` are folded away) and
    find what crosses each run's boundary. Variable tensors (an LSTM's states) never cross: each
    side keeps its own, zero at load and carried from one run to the next, as the runtime keeps
    them (on the GPU side, the delegate's own variable tensors)."""
    runs: list[Segment] = []
    for op, where in zip(graph.ops, placements):
        if id(op) in skip:
            continue
        if not runs or runs[-1].placement != where:
            runs.append(Segment(where, []))
        runs[-1].ops.append(op)
    graph_outputs = {id(t) for t in graph.outputs}
    for seg in runs:
        inside = {id(op) for op in seg.ops}
        produced = {id(t) for op in seg.ops for t in op.outputs}
        for op in seg.ops:
            for t in op.present_inputs:
                if id(t) not in produced and not t.is_constant and not t.is_variable and t not in seg.inputs:
                    seg.inputs.append(t)
            for t in op.outputs:
                if id(t) in graph_outputs or any(id(c) not in inside for c in t.consumers):
                    seg.outputs.append(t)
    return runs


class _CpuSegment:
    def __init__(self, seg: Segment, index: int):
        self.seg = seg
        names = ", ".join(sorted({op.name for op in seg.ops}))
        self.interpreter = reference_interpreter(cut(seg.ops, seg.inputs, seg.outputs),
                                                 f"CPU partition {index} ({names})")

    def run(self, values: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
        """The partition's outputs (by tensor id) from the values produced so far."""
        outs = run_reference(self.interpreter, [values[id(t)] for t in self.seg.inputs])
        return {id(t): v for t, v in zip(self.seg.outputs, outs)}


class HybridRunner:
    """One subgraph of a model (the main one by default), its ops placed by a delegate simulation
    (`placements`, "gpu" / "cpu" per op), ready to run. Subgraphs called by WHILE / IF get runners
    of their own, placed by `called[index]` (each subgraph is delegated on its own); a subgraph
    missing there runs wholly on the reference interpreter. `record=True` keeps every GPU op output
    and every CPU partition output for localization, keyed by the tensors of `self.model`: a copy
    of `model` when the runtime prepares some shapes differently from the declared ones
    (shapes.py). `data`: the bytes `model` was read from, when it is unchanged since (its
    shapes are then prepared from them, not from the model written again)."""

    def __init__(self, model: ir.Model, placements: list[str], runtime: Runtime | None, record: bool = False,
                 called: dict[int, list[str]] | None = None, graph: int = 0, data: bytes | None = None):
        t0 = time.perf_counter()
        if graph == 0:
            refuse_invalid_order(model, model.path or "the model")
            model = with_prepared_shapes(model, data)
        self.model, self.runtime, self.record = model, runtime, record
        self.placements_called = called or {}
        self.callees: dict[int, HybridRunner] = {}
        self.graph = model.graphs[graph]
        self.folded = fold_constants(self.graph)
        skip = {id(op) for op in self.graph.ops if all(id(t) in self.folded for t in op.outputs)}
        where = ["control" if op.name in CONTROL_FLOW else p for op, p in zip(self.graph.ops, placements)]
        for op, place in zip(self.graph.ops, where):
            if place == "gpu" and subgraph_calls(op):  # a CPU one is cut out with the subgraphs it calls
                raise GpucompatError(f"op#{op.index} {op.name} calls another subgraph; the executor cannot run it")
        self.segments = segments(self.graph, where, skip)
        if runtime is None and any(s.placement == "gpu" for s in self.segments):
            raise GpucompatError("GPU partitions need an OpenCL runtime")
        kind = RecordingExecutor if record else Executor
        self.parts = [kind(runtime, s.ops, s.inputs, s.outputs, self.folded) if s.placement == "gpu"
                      else ControlSegment(s.ops, self) if s.placement == "control"
                      else _CpuSegment(s, i) for i, s in enumerate(self.segments)]
        self.recorded: dict[int, np.ndarray] = {}
        if runtime is not None:
            runtime.build()  # every partition's kernels in one compilation, before the warm-up run
        self.run([np.zeros(t.shape, dtypes.numpy_dtype(t.dtype)) for t in self.graph.inputs])  # builds programs
        self.reset_variables()  # the warm-up run must not leave state behind
        if runtime is not None and runtime.cache is not None:
            runtime.cache.save()
        self.init_s = time.perf_counter() - t0

    def run(self, feeds: list[np.ndarray]) -> list[np.ndarray]:
        """Outputs (model dtypes, output order) for inputs in input order."""
        values = {id(t): np.asarray(v) for t, v in zip(self.graph.inputs, feeds)}
        values.update(self.folded)
        for part in self.parts:
            produced = part.run(values)
            values.update(produced)
            if isinstance(part, (RecordingExecutor, ControlSegment)):
                self.recorded.update(part.recorded)
            elif isinstance(part, _CpuSegment):
                self.recorded.update(produced)
        return [values[id(t)] if id(t) in values else t.data() for t in self.graph.outputs]

    def reset_variables(self) -> None:
        """Every variable tensor (an LSTM's states) back to its value at load, zero or the model's
        initial data, on both sides: where a freshly allocated interpreter starts."""
        for part in self.parts:
            if isinstance(part, Executor):
                part.reset_variables()
            elif isinstance(part, _CpuSegment):
                part.interpreter.reset_all_variables()
        for callee in self.callees.values():
            callee.reset_variables()

    def called(self, index: int) -> HybridRunner:
        """The runner of subgraph `index` (built on first use, shared by every op calling it)."""
        if index not in self.callees:
            ops = self.model.graphs[index].ops
            where = self.placements_called.get(index, ["cpu"] * len(ops))
            self.callees[index] = HybridRunner(self.model, where, self.runtime, self.record, self.placements_called,
                                               index)
        return self.callees[index]


def open_runtime(settings, model_bytes: bytes, early: bool = False) -> Runtime:
    """The OpenCL runtime `settings` ask for (its `device`: index or part of a name, None: a GPU,
    else PoCL; its `precision`; its `cache_dir`, None: the user cache directory, "": no cache),
    with the model's program cache; what it compiles is shown on stderr (progress.py). `early`: on
    a device still being probed in the background (device.choose), whose builds then wait for it."""
    from gpucompat.opencl.cache import ProgramCache, default_dir, fingerprint
    from gpucompat.opencl.device import choose

    device = choose(settings.device, early=early)
    directory = settings.cache_dir if settings.cache_dir is not None else default_dir()
    cache = ProgramCache(directory or None, device.key, fingerprint(model_bytes), settings.precision)
    return Runtime(device, settings.precision, cache, progress=status)
