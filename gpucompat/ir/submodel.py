"""Sub-model cutting: a run of ops taken out of a model into a standalone model for the reference
interpreter (the CPU side of hybrid execution, and load-time constant folding).

The new model holds only those ops, the tensors they touch and the constants they read; tensors
arriving from elsewhere become its inputs.
"""

from __future__ import annotations

import copy

import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat import ir
from gpucompat.errors import GpucompatError
from gpucompat.ir.signatures import subgraph_calls


def cut(ops: list[ir.Op], inputs: list[ir.Tensor], outputs: list[ir.Tensor]) -> bytes:
    """A model running `ops` (in order) from `inputs` to `outputs`. An op that calls a subgraph it
    does not run through control flow (STABLEHLO_COMPOSITE's decomposition: the CPU runs the
    composite by running it) takes that subgraph along, and every subgraph it calls in turn."""
    from gpucompat.ir.build import empty_model

    for op in ops:
        if op.name in ("WHILE", "IF"):
            raise GpucompatError(f"op#{op.index} {op.name} calls another subgraph; control flow cannot be cut out")
    model, graph = empty_model()
    placed: dict[int, int] = {}  # the source model's subgraph -> its index in the cut model

    def take(index: int) -> int:
        """The cut model's copy of the source's subgraph `index` (copied once, with its callees)."""
        if index not in placed:
            source = ops[0].graph.model.graphs[index]
            sub = fb.SubGraphT()
            sub.name = source.fb.name
            model.fb.subgraphs.append(sub)
            target = ir.Graph(sub, model)
            model.graphs.append(target)
            placed[index] = len(model.graphs) - 1
            _copy(source.ops, source.inputs, source.outputs, model, target, take)
        return placed[index]

    _copy(ops, inputs, outputs, model, graph, take)
    return ir.to_bytes(model)


def _copy(ops: list[ir.Op], inputs: list[ir.Tensor], outputs: list[ir.Tensor], model: ir.Model, graph: ir.Graph,
          take) -> None:
    """`ops` with the tensors they touch (constants with their data) into `graph` of `model`, from
    `inputs` to `outputs`; a subgraph an op calls is `take`n (its index in `model`)."""
    fresh: dict[int, ir.Tensor] = {}

    def own(t: ir.Tensor | None) -> ir.Tensor | None:
        if t is None:
            return None
        if id(t) not in fresh:
            fresh[id(t)] = copy_tensor(t, graph, own)
        return fresh[id(t)]

    graph.inputs = [own(t) for t in inputs]
    for op in ops:
        record = copy.copy(op.fb)
        if subgraph_calls(op):  # its own options tables, the callees' new indices
            record.builtinOptions = copy.deepcopy(op.fb.builtinOptions)
            record.builtinOptions2 = copy.deepcopy(getattr(op.fb, "builtinOptions2", None))
            mine = ir.Op(record, graph, op.code, [], [])
            for options, field in subgraph_calls(mine):
                setattr(options, field, take(int(getattr(options, field))))
        graph.ops.append(ir.Op(record, graph, op.code, [own(t) for t in op.inputs],
                               [own(t) for t in op.outputs], [own(t) for t in op.intermediates]))
    graph.outputs = [own(t) for t in outputs]
    graph.link()


def copy_tensor(t: ir.Tensor, graph: ir.Graph, own, name: str | None = None) -> ir.Tensor:
    """A copy of `t` in `graph` (named `name` when given), a constant with its data in a buffer of
    its own; INT4 weights' scales come along through `own` (the caller's copy of a tensor) and
    are named anew."""
    record = copy.copy(t.fb)
    if name is not None:
        record.name = name
    record.buffer = graph.model.add_buffer(np.asarray(t.buffer.data, np.uint8).tobytes()) if t.is_constant else 0
    made = graph.add_tensor(record)
    targets = t.graph.model.quantization_targets(t)
    if targets:
        graph.model.link_quantization(made, [(f, own(target)) for f, target in targets])
    return made
