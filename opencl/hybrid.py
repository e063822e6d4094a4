"""Hybrid execution: the ops the simulated delegate takes run on OpenCL, the rest on the reference
interpreter, in the model's execution order; tensors cross at the boundaries as on a device
(BHWC host memory, dequantized into the GPU side and quantized back out of it).

Control flow (WHILE, IF) runs here, in Python, over runners of the subgraphs it calls: the
delegate never takes a WHILE or IF, but it delegates each called subgraph on its own
(tflite/core/interpreter.cc ModifyGraphWithDelegateImpl), so each subgraph runs hybrid with its own placements.

At load, ops whose inputs are all constant (DENSIFY, fp16 DEQUANTIZE, ...) are folded: run once on
the reference interpreter, their outputs become constants (the delegate folds them too:
model_transformations.cc merge_densify, model_builder.cc DequantizeOperationParser).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from gpucompat import ir
from gpucompat.errors import GpucompatError
from gpucompat.ir import dtypes
from gpucompat.opencl.cut import SUBGRAPH_FIELDS, cut
from gpucompat.opencl.device import native_stderr_silenced
from gpucompat.opencl.executor import Executor, RecordingExecutor
from gpucompat.opencl.runtime import Runtime
from gpucompat.opencl.shapes import with_prepared_shapes


@dataclass
class Segment:
    """A maximal run of consecutive ops with the same placement."""

    placement: str
    ops: list[ir.Op]
    inputs: list[ir.Tensor] = field(default_factory=list)
    outputs: list[ir.Tensor] = field(default_factory=list)


def reference_interpreter(model_bytes: bytes, what: str, preserve: bool = False, xnnpack: bool = True):
    """The reference interpreter (ai-edge-litert) on a model, allocated; a one-line error saying
    why when it cannot load it (an unregistered custom op, for instance). `xnnpack=False` uses
    the builtin kernels only (XNNPACK refuses graphs without runtime inputs)."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    resolver = OpResolverType.AUTO if xnnpack else OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    try:
        with native_stderr_silenced():
            it = Interpreter(model_content=model_bytes, experimental_preserve_all_tensors=preserve,
                             experimental_op_resolver_type=resolver)
            it.allocate_tensors()
    except (ValueError, RuntimeError) as e:
        reason = " ".join(str(e).split())
        raise GpucompatError(f"the reference interpreter cannot run {what}: {reason}") from None
    try:
        it.get_input_details(), it.get_output_details()
    except UnicodeDecodeError:
        return reference_interpreter(_with_readable_names(model_bytes), what, preserve, xnnpack)
    return it


def _with_readable_names(model_bytes: bytes) -> bytes:
    """The model with every tensor name decoded (bytes that are not UTF-8 become U+FFFD): the
    interpreter's Python API decodes names strictly and fails on them, while its kernels never
    read a name, so the run is the same."""
    model = ir.from_bytes(model_bytes)
    for graph in model.graphs:
        for t in graph.tensors:
            t.fb.name = t.name
    return ir.to_bytes(model)


def run_reference(it, feeds: list[np.ndarray]) -> list[np.ndarray]:
    """Invoke an interpreter on inputs in input order; outputs in output order. A model the
    runtime refuses only when it runs (an input tensor without data, for instance) is one line.
    An input whose size differs from the one allocated (a loop variable that WHILE grows or
    empties, a WHERE with no hits) is resized first, as the WHILE kernel resizes the subgraphs it
    calls (kernels/while.cc CopyTensorsShapeAndType)."""
    try:
        with native_stderr_silenced():
            _resize_to(it, feeds)
            for d, v in zip(it.get_input_details(), feeds):
                it.set_tensor(d["index"], np.asarray(v, d["dtype"]).reshape(d["shape"]))
            it.invoke()
    except (ValueError, RuntimeError) as e:
        reason = " ".join(str(e).split())
        raise GpucompatError(f"the reference interpreter cannot run the model: {reason}") from None
    return [it.get_tensor(d["index"]).copy() for d in it.get_output_details()]


def _resize_to(it, feeds: list[np.ndarray]) -> None:
    """Resize the inputs whose element count differs from the allocated one, then reallocate."""
    resized = False
    for d, v in zip(it.get_input_details(), feeds):
        if np.size(v) != int(np.prod(d["shape"])):
            it.resize_tensor_input(d["index"], list(np.shape(v)))
            resized = True
    if resized:
        it.allocate_tensors()


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


def fold_constants(graph: ir.Graph) -> dict[int, np.ndarray]:
    """Values of every tensor computable from constants alone, by running those ops once (control
    flow excepted)."""
    folded: dict[int, np.ndarray] = {}
    for op in graph.ops:
        inputs = op.present_inputs
        if op.name not in CONTROL_FLOW and inputs and all(t.is_constant or id(t) in folded for t in inputs):
            ins = [t for t in op.present_inputs if id(t) in folded]
            it = reference_interpreter(cut([op], ins, op.outputs), f"the constant op#{op.index} {op.name}",
                                     xnnpack=False)
            for t, v in zip(op.outputs, run_reference(it, [folded[id(t)] for t in ins])):
                folded[id(t)] = v
    return folded


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


class _ControlSegment:
    """WHILE and IF ops, each over runners of the subgraphs it calls (kernels/while.cc, if.cc)."""

    def __init__(self, seg: Segment, runner: HybridRunner):
        self.ops = seg.ops
        self.runner = runner
        self.recorded: dict[int, np.ndarray] = {}
        for op in seg.ops:
            for field_name in CONTROL_FLOW[op.name]:
                runner.called(getattr(op.options, field_name))

    def run(self, values: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
        """Run the control-flow ops in order; their outputs by tensor id."""
        produced: dict[int, np.ndarray] = {}
        for op in self.ops:
            args = [t.data() if t.is_constant else produced.get(id(t), values.get(id(t))) for t in op.inputs]
            if op.name == "IF":
                o = op.options
                branch = o.thenSubgraphIndex if bool(np.asarray(args[0]).ravel()[0]) else o.elseSubgraphIndex
                args = self._call(branch, args[1:])
            else:
                turns = 0
                while bool(np.asarray(self._call(op.options.condSubgraphIndex, args)[0]).ravel()[0]):
                    args = self._call(op.options.bodySubgraphIndex, args)
                    turns += 1
                    if turns > MAX_TURNS:
                        raise GpucompatError(f"op#{op.index} WHILE did not stop after {MAX_TURNS} turns")
            produced.update({id(t): np.asarray(v) for t, v in zip(op.outputs, args)})
        return produced

    def _call(self, index: int, args: list[np.ndarray]) -> list[np.ndarray]:
        callee = self.runner.called(index)
        out = callee.run(args)
        self.recorded.update(callee.recorded)
        return out


MAX_TURNS = 100_000  # a verification run must end: a WHILE still going after this many turns is an error

# Control-flow ops and the option fields naming the subgraphs they call.
CONTROL_FLOW = {"WHILE": ("condSubgraphIndex", "bodySubgraphIndex"), "IF": ("thenSubgraphIndex", "elseSubgraphIndex")}


class HybridRunner:
    """One subgraph of a model (the main one by default), its ops placed by a delegate simulation
    (`placements`, "gpu" / "cpu" per op), ready to run. Subgraphs called by WHILE / IF get runners
    of their own, placed by `called[index]` (each subgraph is delegated on its own); a subgraph
    missing there runs wholly on the reference interpreter. `record=True` keeps every GPU op output
    and every CPU partition output for localization, keyed by the tensors of `self.model`: a copy
    of `model` when the runtime prepares some shapes differently from the declared ones
    (shapes.py)."""

    def __init__(self, model: ir.Model, placements: list[str], runtime: Runtime | None, record: bool = False,
                 called: dict[int, list[str]] | None = None, graph: int = 0):
        t0 = time.perf_counter()
        if graph == 0:
            refuse_invalid_order(model, model.path or "the model")
            model = with_prepared_shapes(model)
        self.model, self.runtime, self.record = model, runtime, record
        self.placements_called = called or {}
        self.callees: dict[int, HybridRunner] = {}
        self.graph = model.graphs[graph]
        self.folded = fold_constants(self.graph)
        skip = {id(op) for op in self.graph.ops if all(id(t) in self.folded for t in op.outputs)}
        where = ["control" if op.name in CONTROL_FLOW else p for op, p in zip(self.graph.ops, placements)]
        for op in self.graph.ops:
            if op.name not in CONTROL_FLOW and any(getattr(op.options, f, None) is not None for f in SUBGRAPH_FIELDS):
                raise GpucompatError(f"op#{op.index} {op.name} calls another subgraph; only WHILE and IF can be run")
        self.segments = segments(self.graph, where, skip)
        if runtime is None and any(s.placement == "gpu" for s in self.segments):
            raise GpucompatError("GPU partitions need an OpenCL runtime")
        kind = RecordingExecutor if record else Executor
        self.parts = [kind(runtime, s.ops, s.inputs, s.outputs, self.folded) if s.placement == "gpu"
                      else _ControlSegment(s, self) if s.placement == "control"
                      else _CpuSegment(s, i) for i, s in enumerate(self.segments)]
        self.recorded: dict[int, np.ndarray] = {}
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
            if isinstance(part, (RecordingExecutor, _ControlSegment)):
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
